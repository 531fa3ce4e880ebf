// The points liability (admin face only): the roll-forward of points outstanding per period, each
// customer's share of it at an instant, and what will lapse soon (domain/finance/liability.ts).
// Sums are Float: a merchant's points can pass GraphQL's 32-bit Int; they are whole numbers.
import {
  balancesAt,
  expirySchedule,
  type LiabilityPeriod,
  type LiabilityReport,
  liabilityGroupings,
  liabilityRollForward,
} from '../../domain/finance/liability.js';
import { reportTimes } from '../../domain/finance/order-periods.js';
import { builder } from '../builder.js';

export const LiabilityGroupingEnum = builder.enumType('LiabilityGrouping', {
  subGraphs: ['admin'],
  description: "Periods of the merchant's local calendar; weeks start on Monday",
  values: liabilityGroupings,
});

export const ReportTimeEnum = builder.enumType('ReportTime', {
  subGraphs: ['admin'],
  description:
    'The time a per-period report groups by: placed (when an order was placed, an action happened) or recorded (when the service recorded it, and the ledger posted its points)',
  values: reportTimes,
});

const IssuedRef = builder.objectRef<LiabilityPeriod['issued']>('PointsIssuedBySource').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    orders: t.exposeFloat('orders', { description: 'Earned by orders (boosters and tier multipliers included)' }),
    engagement: t.exposeFloat('engagement', { description: 'Earned by other earning rules: sign-up, reviews, birthdays, social actions' }),
    referrals: t.exposeFloat('referrals'),
    manual: t.exposeFloat('manual', { description: 'Manual credits' }),
    import: t.exposeFloat('import', { description: 'Balances brought in by a program import' }),
    total: t.exposeFloat('total'),
  }),
});

const PeriodRef = builder.objectRef<LiabilityPeriod>('LiabilityPeriod').implement({
  subGraphs: ['admin'],
  description: 'Points outstanding over one period: closing = opening + issued - reversed - redeemed - expired - manual_debits',
  fields: (t) => ({
    label: t.exposeString('label', { description: "The period's first local date, YYYY-MM-DD" }),
    start: t.expose('start', { type: 'DateTime' }),
    end: t.expose('end', { type: 'DateTime', description: 'Exclusive: the next period starts here' }),
    opening: t.exposeFloat('opening', { description: 'Points outstanding at the start: the sum of every balance then' }),
    issued: t.expose('issued', { type: IssuedRef }),
    reversed: t.exposeFloat('reversed', { description: 'Earned points taken back: refunds, referrals reversed' }),
    redeemed: t.exposeFloat('redeemed', { description: 'Points spent on rewards' }),
    expired: t.exposeFloat('expired'),
    manual_debits: t.exposeFloat('manual_debits'),
    closing: t.exposeFloat('closing', { description: 'Points outstanding at the end: the sum of every balance then' }),
  }),
});

const PendingRef = builder.objectRef<LiabilityReport['pending']>('PendingPoints').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    points: t.exposeFloat('points', { description: 'Earned by orders still in their return window: not outstanding yet' }),
    customers: t.exposeInt('customers'),
  }),
});

const HeldReferralsRef = builder.objectRef<LiabilityReport['held_referrals']>('HeldReferralPoints').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    referrals: t.exposeInt('referrals', { description: "Referrals held for review with their friend's order" }),
    points: t.exposeFloat('points', { description: "The referrer's points their approval would issue now: not issued until then" }),
  }),
});

const ReportRef = builder.objectRef<LiabilityReport>('PointsLiability').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    timezone: t.exposeString('timezone', { description: "The merchant's time zone, in which the periods are cut" }),
    grouping: t.expose('grouping', { type: LiabilityGroupingEnum }),
    grouped_by: t.expose('grouped_by', {
      type: ReportTimeEnum,
      description: 'Always recorded: a change is in the period the ledger recorded it in (a closed period never changes)',
    }),
    from: t.exposeString('from', { description: 'The first local date of the range' }),
    to: t.exposeString('to', { description: 'The last local date of the range (included)' }),
    periods: t.expose('periods', { type: [PeriodRef], description: "Each period's closing is the next one's opening" }),
    total: t.expose('total', { type: PeriodRef, description: 'The whole range as one period' }),
    pending: t.expose('pending', { type: PendingRef, description: 'Now, whatever the range' }),
    held_referrals: t.expose('held_referrals', { type: HeldReferralsRef, description: 'Now, whatever the range' }),
  }),
});

type Balances = Awaited<ReturnType<typeof balancesAt>> & { at: Date };

const BalanceRef = builder.objectRef<Balances['balances'][number]>('CustomerLiability').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    id: t.exposeID('id'),
    customer_id: t.exposeString('customer_id', { nullable: true, description: 'Null once the customer was erased; the points stay owed' }),
    points: t.exposeFloat('points'),
  }),
});

const BalancesRef = builder.objectRef<Balances>('CustomerLiabilityPage').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    at: t.expose('at', { type: 'DateTime' }),
    data: t.expose('balances', { type: [BalanceRef], description: 'Customers with a balance, in id order' }),
    next_after: t.exposeID('next', { nullable: true, description: 'Pass as `after` for the next page; null on the last' }),
  }),
});

type Schedule = Awaited<ReturnType<typeof expirySchedule>>;

const ExpiryWindowRef = builder.objectRef<Schedule['windows'][number]>('ExpiryWindow').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    days: t.exposeInt('days'),
    until: t.expose('until', { type: 'DateTime' }),
    points: t.exposeFloat('points', { description: 'Points that lapse by then unless their customer is active again' }),
    customers: t.exposeInt('customers'),
  }),
});

const ScheduleRef = builder.objectRef<Schedule>('PointsExpirySchedule').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    expiry_days: t.exposeInt('expiry_days', { nullable: true, description: 'Null: points never expire' }),
    windows: t.expose('windows', { type: [ExpiryWindowRef], description: 'The next 30, 60 and 90 days; each holds the shorter ones' }),
  }),
});

builder.queryFields((t) => ({
  points_liability: t.field({
    subGraphs: ['admin'],
    type: ReportRef,
    description: "Points outstanding, opening to closing, per period of a range of the merchant's local dates",
    args: {
      from: t.arg({ type: 'Date', required: true }),
      to: t.arg({ type: 'Date', required: true, description: 'Included' }),
      grouping: t.arg({ type: LiabilityGroupingEnum, description: 'Default month' }),
    },
    resolve: (_root, args, ctx) =>
      liabilityRollForward(ctx.db, ctx.merchantId, {
        from: args.from.toISOString().slice(0, 10),
        to: args.to.toISOString().slice(0, 10),
        grouping: args.grouping ?? undefined,
      }),
  }),
  points_liability_balances: t.field({
    subGraphs: ['admin'],
    type: BalancesRef,
    description: "Each customer's points at an instant (default now): the pages sum to the liability's closing then",
    args: {
      at: t.arg({ type: 'DateTime' }),
      after: t.arg.id(),
      per_page: t.arg.int({ description: '1 to 1000, default 100' }),
    },
    resolve: async (_root, args, ctx) => {
      const at = args.at ?? new Date();
      const page = await balancesAt(ctx.db, ctx.merchantId, { at, after: args.after ?? undefined, per_page: args.per_page ?? undefined });
      return { at, ...page };
    },
  }),
  points_expiry_schedule: t.field({
    subGraphs: ['admin'],
    type: ScheduleRef,
    description: 'Points that will lapse within 30, 60 and 90 days if their customers stay inactive',
    resolve: (_root, _args, ctx) => expirySchedule(ctx.db, ctx.merchantId),
  }),
}));
