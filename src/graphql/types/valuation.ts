// The points in money (admin face only): the merchant's valuation of a point and of the share
// redeemed, and what follows at an instant: the liability's value, revenue allocated to points,
// recognized (redemptions and breakage) and deferred (domain/finance/valuation.ts).
import { type PointsValuation, pointsValuation, setPointsValuation } from '../../domain/finance/valuation.js';
import { builder } from '../builder.js';

const ValueSourceEnum = builder.enumType('PointValueSource', {
  subGraphs: ['admin'],
  values: { set: { description: "The merchant's setting" }, derived: { description: 'The discount or credit given per point by the rewards redeemed' } },
});
const RateSourceEnum = builder.enumType('RedemptionRateSource', {
  subGraphs: ['admin'],
  values: { set: { description: "The merchant's setting" }, estimated: { description: 'Of the points that reached an end (redeemed or expired), the share redeemed' } },
});

const ValuationRef = builder.objectRef<PointsValuation>('PointsValuation').implement({
  subGraphs: ['admin'],
  description: "Money in the merchant's currency, rounded once to its minor unit; null where a point's value or the redemption rate is not known yet",
  fields: (t) => ({
    at: t.expose('at', { type: 'DateTime' }),
    currency: t.exposeString('currency'),
    point_value: t.exposeFloat('point_value', { nullable: true }),
    point_value_source: t.expose('point_value_source', { type: ValueSourceEnum, nullable: true }),
    redemption_rate: t.exposeFloat('redemption_rate', { nullable: true, description: 'The share of points expected to be redeemed, 0 to 1' }),
    redemption_rate_source: t.expose('redemption_rate_source', { type: RateSourceEnum, nullable: true }),
    points_outstanding: t.exposeFloat('points_outstanding'),
    liability_value: t.exposeFloat('liability_value', { nullable: true, description: 'points_outstanding × point_value × redemption_rate' }),
    points_from_sales: t.exposeFloat('points_from_sales', { description: 'Points earned by the orders recorded so far' }),
    points_redeemed_from_sales: t.exposeFloat('points_redeemed_from_sales', { description: "Redemptions in proportion to sales' share of the points issued" }),
    allocated_revenue: t.exposeFloat('allocated_revenue', { nullable: true, description: "The part of the orders' revenue allocated to their points (relative stand-alone selling price)" }),
    revenue_recognized: t.exposeFloat('revenue_recognized', { nullable: true, description: 'Recognized so far: redemption_revenue + breakage_revenue' }),
    redemption_revenue: t.exposeFloat('redemption_revenue', { nullable: true }),
    breakage_revenue: t.exposeFloat('breakage_revenue', { nullable: true, description: 'Points expected never to be redeemed, recognized in proportion to redemptions' }),
    deferred_revenue: t.exposeFloat('deferred_revenue', { nullable: true, description: 'allocated_revenue - revenue_recognized: the contract liability' }),
  }),
});

builder.queryFields((t) => ({
  points_valuation: t.field({
    subGraphs: ['admin'],
    type: ValuationRef,
    description: "The points in money at an instant (default now); a period's revenue is the difference between its end and its start",
    args: { at: t.arg({ type: 'DateTime' }) },
    resolve: (_root, args, ctx) => pointsValuation(ctx.db, ctx.merchantId, args.at ?? undefined),
  }),
}));

builder.mutationFields((t) => ({
  set_points_valuation: t.field({
    subGraphs: ['admin'],
    type: ValuationRef,
    description: 'In effect from now on (the past keeps the valuation it had); a field left out keeps its setting, null derives or estimates it',
    args: {
      point_value: t.arg.float({ description: "Money per point in the merchant's currency, more than 0" }),
      redemption_rate: t.arg.float({ description: 'The share of points expected to be redeemed: more than 0, at most 1' }),
    },
    resolve: (_root, args, ctx) => setPointsValuation(ctx.db, ctx.merchantId, { ...args }),
  }),
}));
