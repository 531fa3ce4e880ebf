// Re-judging tiers whose window turned (the hourly calendar job; `loyalty tiers rejudge`): a
// calendar-year window empties at the merchant's local New Year and a rolling 12-month window
// drops a day of history every day, so a customer holding a tier of either kind may no longer
// qualify without having done anything. Each such customer is re-judged by reevaluateTier
// (standing.ts), the same judgement an award makes; it changes nothing when the tier still
// holds, so running this often, or on two instances at once, is safe. The scheduled job runs
// hourly and takes each merchant in the first hour of its local day (`justAfterLocalMidnight`),
// so a local New Year is judged within the hour, whatever the zone.
import type { Db } from '../../db/client.js';
import { rowsOf } from '../../db/sql.js';
import { Prisma } from '../../generated/prisma/client.js';
import { eachInBatches, type Page } from '../shared/batches.js';
import { periodStart } from '../shared/calendar.js';
import { reevaluateTier } from './standing.js';

export interface RejudgeReport {
  merchants: number;
  customers: number;
  changed: number;
}

const BATCH = 500;

const HOUR_MS = 3_600_000;

export async function rejudgeTiers(
  db: Db,
  now = new Date(),
  opts: { merchantId?: string; justAfterLocalMidnight?: boolean } = {},
): Promise<RejudgeReport> {
  const tiers = await db.tier.findMany({
    where: { window: { not: 'lifetime' }, ...(opts.merchantId ? { merchantId: opts.merchantId } : {}) },
    select: { id: true, merchantId: true, merchant: { select: { timezone: true } } },
  });
  const windowed = opts.justAfterLocalMidnight
    ? tiers.filter((t) => now.getTime() - periodStart('day', now, t.merchant.timezone).getTime() < HOUR_MS)
    : tiers;
  const report: RejudgeReport = { merchants: new Set(windowed.map((t) => t.merchantId)).size, customers: 0, changed: 0 };
  const tiersOf = new Map<string, string[]>();
  for (const t of windowed) tiersOf.set(t.merchantId, [...(tiersOf.get(t.merchantId) ?? []), t.id]);
  for (const [merchantId, tierIds] of tiersOf) await rejudgeCustomers(db, merchantId, { tierId: { in: tierIds } }, now, report);
  return report;
}

/**
 * The tier-changes job: every customer of a merchant whose ladder changed (a tier added, or its
 * threshold, qualification, window, position, default or activity changed; an import) is
 * re-judged, then the mark is cleared unless it was set again meanwhile. `merchantId`: that
 * merchant's only, if marked.
 */
export async function rejudgeChangedMerchants(db: Db, now = new Date(), opts: { merchantId?: string } = {}): Promise<RejudgeReport> {
  // SQL on the pool: this runs every minute on every instance and nearly always finds nothing,
  // so Prisma's query compiler loads (a ~0.2 s stall of the event loop, the first time) only
  // when a ladder has changed
  const marked = await rowsOf<{ id: string; tiersChangedAt: Date }>(
    db,
    Prisma.sql`SELECT id, tiers_changed_at AS "tiersChangedAt" FROM merchants
                WHERE tiers_changed_at IS NOT NULL ${opts.merchantId ? Prisma.sql`AND id = ${opts.merchantId}::uuid` : Prisma.empty}`,
  );
  const report: RejudgeReport = { merchants: marked.length, customers: 0, changed: 0 };
  for (const merchant of marked) {
    await rejudgeCustomers(db, merchant.id, {}, now, report);
    await db.merchant.updateMany({ where: { id: merchant.id, tiersChangedAt: merchant.tiersChangedAt }, data: { tiersChangedAt: null } });
  }
  return report;
}

/** Re-judges the customers of `merchantId` that `where` selects. */
async function rejudgeCustomers(db: Db, merchantId: string, where: Prisma.CustomerWhereInput, now: Date, report: RejudgeReport) {
  const customers: Page<{ id: string }, string> = (after, take) =>
    db.customer.findMany({
      where: { ...where, merchantId, ...(after ? { id: { gt: after } } : {}) },
      orderBy: { id: 'asc' },
      take,
      select: { id: true },
    });
  await eachInBatches({ size: BATCH, page: customers, keyOf: (c) => c.id }, async (customer) => {
    report.customers += 1;
    if ((await reevaluateTier(db, merchantId, customer.id, now)).changed) report.changed += 1;
  });
}
