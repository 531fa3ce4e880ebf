// The admin dashboard: points issued, redeemed and expired over time, members per tier, the
// redemption rate, active members, redemptions and the top rewards, each beside the previous
// period's (domain/dashboard.ts aggregates them in SQL).
import { type Dashboard, dashboard, dashboardRanges, MAX_CUSTOM_DAYS, type PeriodFigures } from '../../domain/reports/dashboard.js';
import { builder } from '../builder.js';

const DashboardRangeEnum = builder.enumType('DashboardRange', {
  subGraphs: ['admin'],
  values: {
    ...Object.fromEntries(Object.keys(dashboardRanges).map((range) => [range, {}])),
    custom: { description: `The local dates from_date to to_date, both included (at most ${MAX_CUSTOM_DAYS} days)` },
  } as Record<keyof typeof dashboardRanges | 'custom', object>,
});
const DashboardBucketEnum = builder.enumType('DashboardBucket', {
  subGraphs: ['admin'],
  values: ['day', 'week', 'month'] as const,
});

// Sums are Float: a merchant's points over a year can pass GraphQL's 32-bit Int; they are whole numbers.
const PointsPeriodRef = builder.objectRef<Dashboard['series'][number]>('PointsPeriod').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    period_start: t.expose('period_start', {
      type: 'DateTime',
      description: "Start of the merchant's local day, week (Monday) or month, as a UTC instant",
    }),
    issued: t.exposeFloat('issued', { description: 'Points credited (earned, manual, imported, referral)' }),
    redeemed: t.exposeFloat('redeemed', { description: 'Points spent on rewards' }),
    expired: t.exposeFloat('expired', { description: 'Points removed by expiry' }),
  }),
});

const TierMembersRef = builder.objectRef<Dashboard['members_per_tier'][number]>('TierMembers').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    tier_id: t.exposeID('tier_id', { nullable: true, description: 'Null: customers without a tier' }),
    tier_name: t.exposeString('tier_name'),
    customers: t.exposeInt('customers'),
  }),
});

const TopRewardRef = builder.objectRef<Dashboard['top_rewards'][number]>('TopReward').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    reward_id: t.exposeID('reward_id'),
    name: t.exposeString('name'),
    redemptions: t.exposeInt('redemptions'),
    points_spent: t.exposeFloat('points_spent'),
  }),
});

const ACTIVE_MEMBERS = 'Customers with at least one points transaction in the period';
const REDEMPTIONS = 'Rewards redeemed in the period';

const PeriodFiguresRef = builder.objectRef<PeriodFigures>('DashboardPeriod').implement({
  subGraphs: ['admin'],
  description: "The previous period's figures: the same number of days just before the range",
  fields: (t) => ({
    from: t.expose('from', { type: 'DateTime' }),
    to: t.expose('to', { type: 'DateTime' }),
    series: t.expose('series', { type: [PointsPeriodRef] }),
    points_issued: t.exposeFloat('points_issued'),
    points_redeemed: t.exposeFloat('points_redeemed'),
    points_expired: t.exposeFloat('points_expired'),
    redemption_rate: t.exposeFloat('redemption_rate'),
    active_members: t.exposeInt('active_members', { description: ACTIVE_MEMBERS }),
    redemptions: t.exposeInt('redemptions', { description: REDEMPTIONS }),
  }),
});

const DashboardRef = builder.objectRef<Dashboard>('Dashboard').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    range: t.expose('range', { type: DashboardRangeEnum }),
    bucket: t.expose('bucket', { type: DashboardBucketEnum }),
    from: t.expose('from', { type: 'DateTime' }),
    to: t.expose('to', { type: 'DateTime' }),
    series: t.expose('series', { type: [PointsPeriodRef] }),
    points_issued: t.exposeFloat('points_issued'),
    points_redeemed: t.exposeFloat('points_redeemed'),
    points_expired: t.exposeFloat('points_expired'),
    redemption_rate: t.exposeFloat('redemption_rate', { description: 'Points redeemed per point issued in the range, 0 to 1' }),
    active_members: t.exposeInt('active_members', { description: ACTIVE_MEMBERS }),
    redemptions: t.exposeInt('redemptions', { description: REDEMPTIONS }),
    previous: t.expose('previous', { type: PeriodFiguresRef }),
    members: t.exposeInt('members', { description: 'Every customer of the program' }),
    members_per_tier: t.expose('members_per_tier', { type: [TierMembersRef] }),
    top_rewards: t.expose('top_rewards', { type: [TopRewardRef], description: 'The five rewards redeemed most in the range' }),
  }),
});

builder.queryFields((t) => ({
  dashboard: t.field({
    subGraphs: ['admin'],
    type: DashboardRef,
    description: 'The program at a glance over a range (default the last 30 days)',
    args: {
      range: t.arg({ type: DashboardRangeEnum, description: 'Default last_30_days' }),
      from_date: t.arg({ type: 'Date', description: "range custom: the first local day (the merchant's time zone)" }),
      to_date: t.arg({ type: 'Date', description: 'range custom: the last local day, included' }),
    },
    resolve: (_root, args, ctx) =>
      dashboard(ctx.db, ctx.merchantId, {
        range: args.range ?? 'last_30_days',
        from_date: args.from_date?.toISOString().slice(0, 10),
        to_date: args.to_date?.toISOString().slice(0, 10),
      }),
  }),
}));
