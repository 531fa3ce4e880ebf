// Points expiry (`loyalty expire`): for merchants with points_expiry_days set, a customer
// inactive for that many days loses the whole balance through the ledger. The debit is
// itself activity and leaves a zero balance, so a second run finds nothing to do. Days are
// the merchant's local calendar days: points last through N whole local days without
// activity after the day of the last activity, and lapse at the local midnight ending the Nth.
import type { Db } from '../../db/client.js';
import { eachInBatches, type Page } from '../shared/batches.js';
import { addPeriods, dayStartFrom, perLocalDay } from '../shared/calendar.js';
import { tryApplyPoints } from './ledger.js';

/** When a balance whose last activity was at `since` lapses, for N = `days`, in `zone`. */
export function pointsExpireAt(since: Date, days: number, zone: string): Date {
  return perLocalDay(since, zone, `expiry:${days}`, (at) => dayStartFrom(at, days + 1, zone));
}

/** Activity before this instant has lapsed by `now`: the start of the local day N days ago. */
export function expiryCutoff(now: Date, days: number, zone: string): Date {
  return dayStartFrom(now, -days, zone);
}

const BATCH = 200;

/** The merchants whose points expire (all, or the one named), with what their expiry needs. */
const merchantsWithExpiry = (db: Db, merchantId?: string) =>
  db.merchant.findMany({
    where: { pointsExpiryDays: { not: null }, ...(merchantId ? { id: merchantId } : {}) },
    select: { id: true, pointsExpiryDays: true, timezone: true },
  });

export interface ExpiryReport {
  merchants: number;
  customers: number;
  points: number;
}

export async function expirePoints(db: Db, opts: { now?: Date; merchantId?: string } = {}): Promise<ExpiryReport> {
  const now = opts.now ?? new Date();
  const merchants = await merchantsWithExpiry(db, opts.merchantId);
  const report: ExpiryReport = { merchants: merchants.length, customers: 0, points: 0 };
  for (const merchant of merchants) {
    const days = merchant.pointsExpiryDays!;
    const cutoff = expiryCutoff(now, days, merchant.timezone);
    const stale = {
      merchantId: merchant.id,
      pointsBalance: { gt: 0 },
      OR: [{ lastActivityAt: { lt: cutoff } }, { lastActivityAt: null, createdAt: { lt: cutoff } }],
    };
    const customers: Page<{ id: string; pointsBalance: number }, string> = (after, take) =>
      db.customer.findMany({
        where: { ...stale, ...(after ? { id: { gt: after } } : {}) },
        orderBy: { id: 'asc' },
        take,
        select: { id: true, pointsBalance: true },
      });
    await eachInBatches({ size: BATCH, page: customers, keyOf: (c) => c.id }, async (customer) => {
      const expired = await expireBalance(db, merchant.id, customer.id, customer.pointsBalance, days);
      if (expired > 0) {
        report.customers += 1;
        report.points += expired;
      }
    });
  }
  return report;
}

/** Debits the balance read; if it fell meanwhile the debit is refused and the next run retries. */
async function expireBalance(db: Db, merchantId: string, customerId: string, balance: number, days: number) {
  const result = await tryApplyPoints(db, {
    merchantId,
    customerId,
    points: -balance,
    description: `${balance} points expired after ${days} days without activity`,
    source: 'expiry',
    activityType: 'expiry',
  });
  return result ? balance : 0;
}

/**
 * `points.expiring` reminders: one event per customer whose balance expires (under the rule
 * above, in the merchant's zone) within the next `days` days, once per expiry date (a later
 * activity moves the date, and a new reminder is due then). Returns how many customers were
 * due; re-running is safe (the event's dedupe key is the customer and the expiry date).
 */
export async function remindExpiringPoints(db: Db, opts: { days: number; now?: Date; merchantId?: string }): Promise<number> {
  if (opts.days <= 0) return 0;
  const now = opts.now ?? new Date();
  const merchants = await merchantsWithExpiry(db, opts.merchantId);
  let due = 0;
  for (const merchant of merchants) {
    const days = merchant.pointsExpiryDays!;
    const zone = merchant.timezone;
    // balances lapsing in (now, now + opts.days]: last activity on a local day from
    // (days + 1) days before today to (days + 1 - opts.days) days after it, read with a day's
    // margin each side and then judged exactly by pointsExpireAt
    const from = addPeriods('day', expiryCutoff(now, days + 1, zone), -1, zone);
    const to = addPeriods('day', expiryCutoff(now, days - opts.days, zone), 1, zone);
    const customers = await db.customer.findMany({
      where: {
        merchantId: merchant.id,
        pointsBalance: { gt: 0 },
        OR: [{ lastActivityAt: { gte: from, lt: to } }, { lastActivityAt: null, createdAt: { gte: from, lt: to } }],
      },
      select: { id: true, pointsBalance: true, lastActivityAt: true, createdAt: true },
    });
    const until = addPeriods('day', now, opts.days, zone);
    const reminders = customers
      .map((c) => ({ ...c, expiresAt: pointsExpireAt(c.lastActivityAt ?? c.createdAt, days, zone) }))
      .filter((c) => c.expiresAt > now && c.expiresAt <= until);
    if (reminders.length === 0) continue;
    due += reminders.length;
    await db.$executeRaw`
      SELECT loyalty_emit_event(${merchant.id}::uuid, 'points.expiring',
               jsonb_build_object('customer', loyalty_customer_ref(${merchant.id}::uuid, r.id), 'points', r.points,
                                  'expires_at', loyalty_iso(r.expires_at)),
               'points.expiring:' || r.id || ':' || loyalty_iso(r.expires_at))::text
        FROM unnest(${reminders.map((r) => r.id)}::uuid[], ${reminders.map((r) => r.pointsBalance)}::int[],
                    ${reminders.map((r) => r.expiresAt)}::timestamptz[]) AS r(id, points, expires_at)`;
  }
  return due;
}
