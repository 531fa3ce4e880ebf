// The points in money (admin face only): the merchant's valuation of a point and of the share
// redeemed, and what follows at an instant: the liability's value, revenue allocated to points,
// recognized (redemptions and breakage) and deferred (domain/finance/valuation.ts); the
// redemption rate estimate the job keeps (domain/finance/rate-estimates.ts).
import {
  type RedemptionRateEstimate,
  redemptionRateEstimateAt,
  refreshRedemptionRateEstimate,
} from '../../domain/finance/rate-estimates.js';
import { type PointsValuation, pointsValuation, setPointsValuation } from '../../domain/finance/valuation.js';
import { pointsVintages, type Vintage, type Vintages } from '../../domain/finance/vintages.js';
import { estimateQueue } from '../../jobs/rate-estimates.js';
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
  values: {
    set: { description: "The merchant's setting" },
    estimated: { description: 'From the issuance cohorts (points_vintages), as the job last estimated it (redemption_rate_estimate)' },
  },
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
    redemption_rate_estimated_at: t.expose('redemption_rate_estimated_at', {
      type: 'DateTime',
      nullable: true,
      description:
        'When the estimate used was computed: null when no estimate is needed, or none was computed by `at` (the rate is then null unless set; with none computed at all, one is queued)',
    }),
    points_outstanding: t.exposeFloat('points_outstanding'),
    liability_value: t.exposeFloat('liability_value', {
      nullable: true,
      description: 'points_outstanding × point_value × redemption_rate',
    }),
    points_from_sales: t.exposeFloat('points_from_sales', {
      description: 'Points earned by the orders recorded so far, less what their refunds owed back',
    }),
    points_redeemed_from_sales: t.exposeFloat('points_redeemed_from_sales', {
      description: "Redemptions in proportion to sales' share of the points issued, both net of what refunds owed back",
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

const EstimateRef = builder.objectRef<RedemptionRateEstimate>('RedemptionRateEstimate').implement({
  subGraphs: ['admin'],
  description: 'The redemption rate estimated from the issuance cohorts by the job, as stored when it ran',
  fields: (t) => ({
    as_of: t.expose('as_of', { type: 'DateTime', description: 'The instant the ledger was read up to' }),
    computed_at: t.expose('computed_at', { type: 'DateTime', description: 'When it was stored' }),
    redemption_rate: t.exposeFloat('redemption_rate', {
      nullable: true,
      description: 'points_redeemed / points_ended; null when no point of the cohorts had ended',
    }),
    points_redeemed: t.exposeFloat('points_redeemed', { description: 'Of the points that ended, those redeemed' }),
    points_ended: t.exposeFloat('points_ended', { description: 'Points of the cohorts used that were redeemed or expired' }),
    cohorts: t.exposeStringList('cohorts', { description: 'The cohorts (YYYY-MM, local) the estimate was taken from' }),
  }),
});

const EstimateRefreshRef = builder
  .objectRef<{ queued: boolean; estimate: RedemptionRateEstimate | null }>('RedemptionRateEstimateRefresh')
  .implement({
    subGraphs: ['admin'],
    fields: (t) => ({
      queued: t.exposeBoolean('queued', { description: "False when the merchant's job was already waiting for a worker" }),
      estimate: t.expose('estimate', {
        type: EstimateRef,
        nullable: true,
        description: 'The estimate in effect now, until the job has run',
      }),
    }),
  });

builder.queryFields((t) => ({
  redemption_rate_estimate: t.field({
    subGraphs: ['admin'],
    type: EstimateRef,
    nullable: true,
    description: 'The latest estimate the job computed at or before an instant (default now); null if none was',
    args: { at: t.arg({ type: 'DateTime' }) },
    resolve: async (_root, args, ctx) => (await redemptionRateEstimateAt(ctx.db, ctx.merchantId, args.at ?? undefined)).estimate,
  }),
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
    resolve: (_root, args, ctx) =>
      pointsValuation(ctx.db, ctx.merchantId, args.at ?? undefined, { enqueueEstimate: estimateQueue(ctx.db, { required: false }) }),
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
    resolve: (_root, args, ctx) =>
      setPointsValuation(ctx.db, ctx.merchantId, { ...args }, { enqueueEstimate: estimateQueue(ctx.db, { required: false }) }),
  }),
  refresh_redemption_rate_estimate: t.field({
    subGraphs: ['admin'],
    type: EstimateRefreshRef,
    description:
      'Queues the job that estimates the redemption rate from the whole ledger, and answers at once; 503 while no worker has ever started',
    resolve: (_root, _args, ctx) => refreshRedemptionRateEstimate(ctx.db, ctx.merchantId, estimateQueue(ctx.db, { required: true })),
  }),
}));
