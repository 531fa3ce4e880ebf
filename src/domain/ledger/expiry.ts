// Points expiry (`loyalty expire`): for merchants with points_expiry_days set, a customer
// inactive for that many days loses the whole balance through the ledger. The debit is
// itself activity and leaves a zero balance, so a second run finds nothing to do.
import type { Db } from '../../db/client.js';
import { DAY_MS } from '../shared/limits.js';
import { tryApplyPoints } from './ledger.js';

const BATCH = 200;

export interface ExpiryReport {
  merchants: number;
  customers: number;
  points: number;
}

export async function expirePoints(db: Db, opts: { now?: Date; merchantId?: string } = {}): Promise<ExpiryReport> {
  const now = opts.now ?? new Date();
  const merchants = await db.merchant.findMany({
    where: { pointsExpiryDays: { not: null }, ...(opts.merchantId ? { id: opts.merchantId } : {}) },
    select: { id: true, pointsExpiryDays: true },
  });
  const report: ExpiryReport = { merchants: merchants.length, customers: 0, points: 0 };
  for (const merchant of merchants) {
    const days = merchant.pointsExpiryDays!;
    const cutoff = new Date(now.getTime() - days * DAY_MS);
    const stale = {
      merchantId: merchant.id,
      pointsBalance: { gt: 0 },
      OR: [{ lastActivityAt: { lt: cutoff } }, { lastActivityAt: null, createdAt: { lt: cutoff } }],
    };
    let after: string | undefined;
    for (;;) {
      const batch = await db.customer.findMany({
        where: { ...stale, ...(after ? { id: { gt: after } } : {}) },
        orderBy: { id: 'asc' },
        take: BATCH,
        select: { id: true, pointsBalance: true },
      });
      if (batch.length === 0) break;
      after = batch.at(-1)!.id;
      for (const customer of batch) {
        const expired = await expireBalance(db, merchant.id, customer.id, customer.pointsBalance, days);
        if (expired > 0) {
          report.customers += 1;
          report.points += expired;
        }
      }
    }
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
 * above) within the next `days` days, once per expiry date (a later activity moves the date,
 * and a new reminder is due then). Returns how many customers were due; re-running is safe.
 */
export async function remindExpiringPoints(db: Db, opts: { days: number; now?: Date; merchantId?: string }): Promise<number> {
  if (opts.days <= 0) return 0;
  const now = opts.now ?? new Date();
  const until = new Date(now.getTime() + opts.days * DAY_MS);
  return db.$executeRaw`
    WITH due AS (
      SELECT c.id, c.merchant_id, c.points_balance,
             COALESCE(c.last_activity_at, c.created_at) + make_interval(days => m.points_expiry_days) AS expires_at
        FROM customers c JOIN merchants m ON m.id = c.merchant_id
       WHERE m.points_expiry_days IS NOT NULL AND c.points_balance > 0
         AND (${opts.merchantId ?? null}::uuid IS NULL OR m.id = ${opts.merchantId ?? null}::uuid)
    )
    SELECT loyalty_emit_event(merchant_id, 'points.expiring',
             jsonb_build_object('customer', loyalty_customer_ref(id), 'points', points_balance,
                                'expires_at', loyalty_iso(expires_at)),
             'points.expiring:' || id || ':' || loyalty_iso(expires_at))::text
      FROM due
     WHERE expires_at > ${now}::timestamptz AND expires_at <= ${until}::timestamptz`;
}
