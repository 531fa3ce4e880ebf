// Points expiry (`loyalty expire`): for merchants with points_expiry_days set, a customer
// inactive for that many days loses the whole balance through the ledger. The debit is
// itself activity and leaves a zero balance, so a second run finds nothing to do. Days are
// the merchant's local calendar days: points last through N whole local days without
// activity after the day of the last activity, and lapse at the local midnight ending the Nth.
import type { Db } from '../../db/client.js';
import { addPeriods, periodStart } from '../shared/calendar.js';
import { tryApplyPoints } from './ledger.js';

/** When a balance whose last activity was at `since` lapses, for N = `days`, in `zone`. */
export function pointsExpireAt(since: Date, days: number, zone: string): Date {
  return addPeriods('day', periodStart('day', since, zone), days + 1, zone);
}

/** Activity before this instant has lapsed by `now`: the start of the local day N days ago. */
function expiryCutoff(now: Date, days: number, zone: string): Date {
  return addPeriods('day', periodStart('day', now, zone), -days, zone);
}

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
    select: { id: true, pointsExpiryDays: true, timezone: true },
  });
  const report: ExpiryReport = { merchants: merchants.length, customers: 0, points: 0 };
  for (const merchant of merchants) {
    const days = merchant.pointsExpiryDays!;
    const cutoff = expiryCutoff(now, days, merchant.timezone);
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
