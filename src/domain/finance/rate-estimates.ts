// The redemption rate estimated from a merchant's cohorts (vintages.ts), computed by a job and
// stored (redemption_rate_estimates), so the valuation reads one row instead of the whole ledger.
// The vintages statement takes seconds on a large ledger: it runs on the workers, once a day for
// every merchant and when a merchant asks, never in a valuation's request.
import type { Db } from '../../db/client.js';
import { rowsOf } from '../../db/sql.js';
import { Prisma } from '../../generated/prisma/client.js';
import { pointsVintages } from './vintages.js';

/** Queues a merchant's estimate (the queue lives in src/jobs); false when one is already waiting. */
export type EnqueueEstimate = (merchantId: string) => Promise<boolean>;

export interface RedemptionRateEstimate {
  /** The instant the ledger was read up to. */
  as_of: Date;
  /** When it was stored: a valuation at an instant uses the latest stored by then. */
  computed_at: Date;
  /** points_redeemed / points_ended; null when no point of the cohorts used had ended. */
  redemption_rate: number | null;
  points_redeemed: number;
  points_ended: number;
  cohorts: string[];
}

/** Estimates the merchant's rate from its whole ledger now, and stores it. */
export async function computeRedemptionRateEstimate(db: Db, merchantId: string): Promise<RedemptionRateEstimate> {
  const vintages = await pointsVintages(db, merchantId);
  const basis = vintages.cohorts.filter((v) => vintages.estimate_cohorts.includes(v.cohort));
  const redeemed = basis.reduce((s, v) => s + v.redeemed, 0);
  const ended = basis.reduce((s, v) => s + v.redeemed + v.expired, 0);
  const row = await db.redemptionRateEstimate.create({
    data: {
      merchantId,
      asOf: vintages.at,
      pointsRedeemed: BigInt(redeemed),
      pointsEnded: BigInt(ended),
      cohorts: vintages.estimate_cohorts,
    },
  });
  return view(row);
}

function view(row: {
  asOf: Date;
  computedAt: Date;
  pointsRedeemed: bigint | string;
  pointsEnded: bigint | string;
  cohorts: string[] | null;
}): RedemptionRateEstimate {
  const redeemed = Number(row.pointsRedeemed);
  const ended = Number(row.pointsEnded);
  return {
    as_of: row.asOf,
    computed_at: row.computedAt,
    // the vintages' own division, so the stored estimate is the figure they report
    redemption_rate: ended > 0 ? redeemed / ended : null,
    points_redeemed: redeemed,
    points_ended: ended,
    cohorts: row.cohorts ?? [],
  };
}

/**
 * The latest estimate stored at or before `at` (default now), and whether the merchant has any:
 * by the time it was stored, not the instant it read up to, so a past instant's answer never
 * changes once given.
 */
export async function redemptionRateEstimateAt(
  db: Db,
  merchantId: string,
  at = new Date(),
): Promise<{ estimate: RedemptionRateEstimate | null; any: boolean }> {
  const [row] = await rowsOf<{
    asOf: Date;
    computedAt: Date;
    pointsRedeemed: string;
    pointsEnded: string;
    cohorts: string[] | null;
  }>(
    db,
    Prisma.sql`
    SELECT as_of AS "asOf", computed_at AS "computedAt", points_redeemed::text AS "pointsRedeemed",
           points_ended::text AS "pointsEnded", cohorts
      FROM redemption_rate_estimates
     WHERE merchant_id = ${merchantId}::uuid AND computed_at <= ${at.toISOString()}::timestamptz
     ORDER BY computed_at DESC, id DESC LIMIT 1`,
  );
  if (row) return { estimate: view(row), any: true };
  const later = await db.redemptionRateEstimate.findFirst({ where: { merchantId }, select: { id: true } });
  return { estimate: null, any: later !== null };
}

/** Asks for a fresh estimate: queued for the workers, answered at once with the one in effect now. */
export async function refreshRedemptionRateEstimate(db: Db, merchantId: string, enqueue: EnqueueEstimate) {
  const queued = await enqueue(merchantId);
  const { estimate } = await redemptionRateEstimateAt(db, merchantId);
  return { queued, estimate };
}
