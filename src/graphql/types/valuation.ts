// The points in money (admin face only): the merchant's valuation of a point and of the share
// redeemed, and what follows at an instant: the liability's value, revenue allocated to points,
// recognized (redemptions and breakage) and deferred (domain/finance/valuation.ts).
import { type PointsValuation, pointsValuation, setPointsValuation } from '../../domain/finance/valuation.js';
import { pointsVintages, type Vintage, type Vintages } from '../../domain/finance/vintages.js';
import { builder } from '../builder.js';

const ValueSourceEnum = builder.enumType('PointValueSource', {
  subGraphs: ['admin'],
  values: {
    set: { description: "The merchant's setting" },
    derived: { description: 'The discount or credit given per point by the rewards redeemed' },
  },
});
const RateSourceEnum = builder.enumType('RedemptionRateSource', {
  subGraphs: ['admin'],
  values: { set: { description: "The merchant's setting" }, estimated: { description: 'From the issuance cohorts (points_vintages)' } },
});

const ValuationRef = builder.objectRef<PointsValuation>('PointsValuation').implement({
  subGraphs: ['admin'],
  description:
    "Money in the merchant's currency, rounded once to its minor unit; null where a point's value or the redemption rate is not known yet",
  fields: (t) => ({
    at: t.expose('at', { type: 'DateTime' }),
    currency: t.exposeString('currency'),
    point_value: t.exposeFloat('point_value', { nullable: true }),
    point_value_source: t.expose('point_value_source', { type: ValueSourceEnum, nullable: true }),
    redemption_rate: t.exposeFloat('redemption_rate', {
      nullable: true,
      description: 'The share of points expected to be redeemed, 0 to 1',
    }),
    redemption_rate_source: t.expose('redemption_rate_source', { type: RateSourceEnum, nullable: true }),
    points_outstanding: t.exposeFloat('points_outstanding'),
    liability_value: t.exposeFloat('liability_value', {
      nullable: true,
      description: 'points_outstanding × point_value × redemption_rate',
    }),
    points_from_sales: t.exposeFloat('points_from_sales', {
      description: 'Points earned by the orders recorded so far, less what their refunds owed back',
    }),
    points_redeemed_from_sales: t.exposeFloat('points_redeemed_from_sales', {
      description: "Redemptions in proportion to sales' share of the points issued",
    }),
    allocated_revenue: t.exposeFloat('allocated_revenue', {
      nullable: true,
      description:
        "The part of the orders' revenue allocated to their points (relative stand-alone selling price), less their refunds' share",
    }),
    revenue_recognized: t.exposeFloat('revenue_recognized', {
      nullable: true,
      description: 'Recognized so far: redemption_revenue + breakage_revenue',
    }),
    redemption_revenue: t.exposeFloat('redemption_revenue', { nullable: true }),
    breakage_revenue: t.exposeFloat('breakage_revenue', {
      nullable: true,
      description: 'Points expected never to be redeemed, recognized in proportion to redemptions',
    }),
    deferred_revenue: t.exposeFloat('deferred_revenue', {
      nullable: true,
      description: 'allocated_revenue - revenue_recognized: the contract liability',
    }),
  }),
});

const VintageMonthRef = builder.objectRef<Vintage['months'][number]>('PointsVintageMonth').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    month: t.exposeString('month', { description: 'YYYY-MM, local' }),
    redeemed: t.exposeFloat('redeemed'),
    expired: t.exposeFloat('expired'),
    corrected: t.exposeFloat('corrected', { description: 'Reversed or debited by hand' }),
  }),
});

const VintageRef = builder.objectRef<Vintage>('PointsVintage').implement({
  subGraphs: ['admin'],
  description: 'The points issued in one local month and what became of them (oldest points are taken first)',
  fields: (t) => ({
    cohort: t.exposeString('cohort', { description: 'YYYY-MM, local: when the points were issued' }),
    issued: t.exposeFloat('issued'),
    redeemed: t.exposeFloat('redeemed'),
    expired: t.exposeFloat('expired'),
    corrected: t.exposeFloat('corrected', { description: 'Reversed (refunds, referrals taken back) or debited by hand' }),
    outstanding: t.exposeFloat('outstanding'),
    months: t.expose('months', { type: [VintageMonthRef], description: 'Month by month; months with no change left out' }),
  }),
});

const VintagesRef = builder.objectRef<Vintages>('PointsVintages').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    timezone: t.exposeString('timezone'),
    at: t.expose('at', { type: 'DateTime' }),
    cohorts: t.expose('cohorts', { type: [VintageRef] }),
    estimated_redemption_rate: t.exposeFloat('estimated_redemption_rate', {
      nullable: true,
      description:
        'Of the points of cohorts at least 12 months old that were redeemed or expired, the share redeemed (every cohort while none is that old)',
    }),
    estimate_cohorts: t.exposeStringList('estimate_cohorts', { description: 'The cohorts the estimate was taken from' }),
  }),
});

builder.queryFields((t) => ({
  points_vintages: t.field({
    subGraphs: ['admin'],
    type: VintagesRef,
    description: 'Every monthly cohort of points up to an instant (default now), and the redemption rate estimated from them',
    args: { at: t.arg({ type: 'DateTime' }) },
    resolve: (_root, args, ctx) => pointsVintages(ctx.db, ctx.merchantId, { at: args.at ?? undefined }),
  }),
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
    description:
      'In effect from now on (the past keeps the valuation it had); a field left out keeps its setting, null derives or estimates it',
    args: {
      point_value: t.arg.float({ description: "Money per point in the merchant's currency, more than 0" }),
      redemption_rate: t.arg.float({ description: 'The share of points expected to be redeemed: more than 0, at most 1' }),
    },
    resolve: (_root, args, ctx) => setPointsValuation(ctx.db, ctx.merchantId, { ...args }),
  }),
}));
