// The points liability in money, after IFRS 15 (B39–B43, IE267–IE270) and ASC 606-10-55-41 to 49:
// part of each sale's revenue is allocated to the points it earns, by relative stand-alone
// selling price, and recognized as points are redeemed, breakage (points expected never to be
// redeemed) included in proportion to redemptions.
//
// - A point's value is the merchant's (points_valuations), or else derived from the rewards
//   redeemed: the discount or credit they gave per point spent.
// - The expected redemption rate is the merchant's, or else the latest estimate from its history
//   by issuance cohort that the job had stored by then (rate-estimates.ts): never computed in
//   the request, since it reads the whole ledger. None stored at all queues one.
// - Each order's allocation is fixed when it is recorded, with the valuation then in effect:
//   subtotal × SSP / (subtotal + SSP), SSP = points earned × value × rate; its refunds by the
//   instant read reduce it in proportion (the consideration left × the same ratio), and the
//   points they owed back leave the points from sales.
// - Revenue recognized by an instant = allocated × redeemed / (points from sales × the rate in
//   effect then), at most allocated: a changed estimate is caught up when it changes. Redemptions
//   are shared between sale points and free points (engagement, manual, referrals, import) as
//   they were issued, the sale points net of what refunds owed back, as in the points from sales.
// Every figure is computed unrounded and rounded once, to the currency's minor unit.
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { rowsOf } from '../../db/sql.js';
import { Prisma } from '../../generated/prisma/client.js';
import { parseInput } from '../shared/validation.js';
import { ledgerSumsAt } from './liability.js';
import { type EnqueueEstimate, redemptionRateEstimateAt } from './rate-estimates.js';

const valuationInput = z
  .object({
    point_value: z.number().positive('must be more than 0').max(1_000_000).nullish(),
    redemption_rate: z.number().gt(0, 'must be more than 0').max(1, 'must be at most 1 (every point redeemed)').nullish(),
  })
  .refine((v) => v.point_value !== undefined || v.redemption_rate !== undefined, {
    path: ['point_value'],
    message: 'give point_value, redemption_rate or both',
  });

export type ValuationInput = z.input<typeof valuationInput>;

/** A new valuation in effect from now; a field left out keeps its current setting, null derives it. */
export async function setPointsValuation(db: Db, merchantId: string, input: ValuationInput, opts: ValuationOptions = {}) {
  const given = parseInput(valuationInput, input);
  const current = await settingAt(db, merchantId, new Date());
  await db.pointsValuation.create({
    data: {
      merchantId,
      pointValue: given.point_value === undefined ? current?.point_value : given.point_value,
      redemptionRate: given.redemption_rate === undefined ? current?.redemption_rate : given.redemption_rate,
    },
  });
  return pointsValuation(db, merchantId, new Date(), opts);
}

async function settingAt(db: Db, merchantId: string, at: Date) {
  const [row] = await rowsOf<{ point_value: string | null; redemption_rate: string | null; effective_at: Date }>(
    db,
    Prisma.sql`
    SELECT point_value::text, redemption_rate::text, effective_at FROM points_valuations
     WHERE merchant_id = ${merchantId}::uuid AND effective_at <= ${at.toISOString()}::timestamptz
     ORDER BY effective_at DESC, id DESC LIMIT 1`,
  );
  return row && { point_value: row.point_value, redemption_rate: row.redemption_rate, effective_at: row.effective_at };
}

/** Whether a rate must be estimated: none set now, or an order was recorded while none was. */
async function needsEstimate(db: Db, merchantId: string, at: Date, setting: Awaited<ReturnType<typeof settingAt>>) {
  if (setting?.redemption_rate == null) return true;
  const [row] = await rowsOf<{ needed: boolean }>(
    db,
    Prisma.sql`
    SELECT EXISTS (
      SELECT 1 FROM orders o
       WHERE o.merchant_id = ${merchantId}::uuid AND o.created_at < ${at.toISOString()}::timestamptz
         AND o.created_at < COALESCE((
           SELECT min(v.effective_at) FROM points_valuations v
            WHERE v.merchant_id = ${merchantId}::uuid AND v.redemption_rate IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM points_valuations w WHERE w.merchant_id = ${merchantId}::uuid
                                 AND w.effective_at > v.effective_at AND w.effective_at <= ${at.toISOString()}::timestamptz
                                 AND w.redemption_rate IS NULL)), 'infinity')) AS needed`,
  );
  return Boolean(row?.needed);
}

/** Money per point from the fixed discounts and store credit redeemed before `at`; null when none were. */
async function derivedPointValue(db: Db, merchantId: string, at: Date): Promise<number | null> {
  const [row] = await rowsOf<{ value: string | null }>(
    db,
    Prisma.sql`
    SELECT sum(COALESCE(r.reward_rule->>'discount_value', r.reward_rule->>'credit_value')::numeric) / NULLIF(sum(cr.points_spent), 0) AS value
      FROM customer_rewards cr
      JOIN rewards r ON r.merchant_id = cr.merchant_id AND r.id = cr.reward_id
     WHERE cr.merchant_id = ${merchantId}::uuid AND cr.issued_at < ${at.toISOString()}::timestamptz
       AND r.reward_type IN ('fixed_discount', 'store_credit')`,
  );
  return row?.value == null ? null : Number(row.value);
}

const minorUnits = (currency: string) => {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
};

export interface PointsValuation {
  at: Date;
  currency: string;
  point_value: number | null;
  point_value_source: 'set' | 'derived' | null;
  redemption_rate: number | null;
  redemption_rate_source: 'set' | 'estimated' | null;
  /** When the estimate read was computed: null when none was needed, or none was stored by `at`. */
  redemption_rate_estimated_at: Date | null;
  points_outstanding: number;
  /** Points outstanding × value × rate: what honouring them is expected to cost. */
  liability_value: number | null;
  points_from_sales: number;
  points_redeemed_from_sales: number;
  /** The part of the sales' revenue allocated to their points. */
  allocated_revenue: number | null;
  /** Recognized so far: redemptions and breakage. */
  revenue_recognized: number | null;
  redemption_revenue: number | null;
  breakage_revenue: number | null;
  /** Allocated and not yet recognized: the contract liability. */
  deferred_revenue: number | null;
}

export interface ValuationOptions {
  /** Queues an estimate when the merchant has none stored at all (the queue lives in src/jobs). */
  enqueueEstimate?: EnqueueEstimate;
}

/** The estimate a valuation at `at` uses, when it needs one; none stored at all queues one. */
async function estimateFor(db: Db, merchantId: string, at: Date, { enqueueEstimate }: ValuationOptions) {
  const { estimate, any } = await redemptionRateEstimateAt(db, merchantId, at);
  if (!any) await enqueueEstimate?.(merchantId);
  return estimate;
}

/** The points in money at an instant (default now). */
export async function pointsValuation(db: Db, merchantId: string, at = new Date(), opts: ValuationOptions = {}): Promise<PointsValuation> {
  const { currency } = await db.merchant.findUniqueOrThrow({ where: { id: merchantId }, select: { currency: true } });
  const setting = await settingAt(db, merchantId, at);
  const [derived, sums, estimate] = await Promise.all([
    derivedPointValue(db, merchantId, at),
    ledgerSumsAt(db, merchantId, at),
    // only when a rate in effect then or now is not set
    (await needsEstimate(db, merchantId, at, setting)) ? estimateFor(db, merchantId, at, opts) : null,
  ]);
  const estimated = estimate?.redemption_rate ?? null;
  const value = setting?.point_value != null ? Number(setting.point_value) : derived;
  const rate = setting?.redemption_rate != null ? Number(setting.redemption_rate) : estimated;

  // each order's allocation, with the valuation in effect when it was recorded (or today's derivation)
  const inEffect = (column: string) => Prisma.sql`(
    SELECT ${Prisma.raw(column)} FROM points_valuations v
     WHERE v.merchant_id = ${merchantId}::uuid AND v.effective_at <= o.created_at
     ORDER BY v.effective_at DESC, v.id DESC LIMIT 1)`;
  const [allocation] = await rowsOf<{ allocated: string | null; points: string }>(
    db,
    Prisma.sql`
    SELECT sum(GREATEST(subtotal - refunded, 0) * ssp / NULLIF(subtotal + ssp, 0))::text AS allocated,
           COALESCE(sum(GREATEST(points_awarded - owed, 0)), 0)::text AS points
      FROM (
        SELECT o.subtotal, o.points_awarded, COALESCE(r.refunded, 0) AS refunded, COALESCE(r.owed, 0) AS owed,
               o.points_awarded * COALESCE(${inEffect('point_value')}, ${derived}::numeric)
                                * COALESCE(${inEffect('redemption_rate')}, ${estimated}::numeric) AS ssp
          FROM orders o
          LEFT JOIN (
            SELECT order_id, sum(amount) AS refunded, sum(points_owed) AS owed FROM order_refunds
             WHERE merchant_id = ${merchantId}::uuid AND created_at < ${at.toISOString()}::timestamptz
             GROUP BY order_id) r ON r.order_id = o.id
         WHERE o.merchant_id = ${merchantId}::uuid AND o.created_at < ${at.toISOString()}::timestamptz) s`,
  );
  const allocated = allocation?.allocated == null ? null : Number(allocation.allocated);
  const fromSales = Number(allocation?.points ?? 0);
  // sales' share of the points issued, both net of what refunds owed back: the free points as issued
  const issuedNet = fromSales + sums.issued - sums.issuedByOrders;
  const redeemedFromSales = issuedNet > 0 ? (sums.redeemed * fromSales) / issuedNet : 0;
  const expected = fromSales * (rate ?? 0);
  const recognized = allocated === null || rate === null ? null : expected > 0 ? allocated * Math.min(1, redeemedFromSales / expected) : 0;
  const redemption =
    recognized === null || allocated === null || fromSales === 0
      ? recognized === null
        ? null
        : 0
      : Math.min(recognized, (allocated * redeemedFromSales) / fromSales);
  const digits = minorUnits(currency);
  const money = (x: number | null) => (x === null ? null : Number(x.toFixed(digits)));
  return {
    at,
    currency,
    point_value: value,
    point_value_source: setting?.point_value != null ? 'set' : derived !== null ? 'derived' : null,
    redemption_rate: rate,
    redemption_rate_source: setting?.redemption_rate != null ? 'set' : estimated !== null ? 'estimated' : null,
    redemption_rate_estimated_at: estimate?.computed_at ?? null,
    points_outstanding: sums.outstanding,
    liability_value: money(value === null || rate === null ? null : sums.outstanding * value * rate),
    points_from_sales: fromSales,
    points_redeemed_from_sales: redeemedFromSales,
    allocated_revenue: money(allocated),
    revenue_recognized: money(recognized),
    redemption_revenue: money(redemption),
    breakage_revenue: money(recognized === null || redemption === null ? null : recognized - redemption),
    deferred_revenue: money(allocated === null || recognized === null ? null : allocated - recognized),
  };
}
