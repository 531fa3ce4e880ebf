// What-if replay (admin face only): the orders of a period replayed under a draft of the program,
// against what was recorded (domain/finance/replay.ts). A plain query over a bounded history; a
// longer one runs as a job the admin app starts, follows and can cancel (replay-jobs.ts), or from
// the CLI (`loyalty replay`). Sums are Float: they can pass a 32-bit Int.

import { type ReplayReport, replayProgram } from '../../domain/finance/replay.js';
import {
  cancelReplayJob,
  listReplayJobs,
  type ReplayJobView,
  replayJob,
  replayJobStates,
  replayReport,
  startReplayJob,
} from '../../domain/finance/replay-jobs.js';
import { enqueueReplay } from '../../jobs/replay.js';
import { builder } from '../builder.js';
import { listOf, pageArgs } from '../envelopes.js';
import { ReportTimeEnum } from './liability.js';

/** Orders a query replays at most (the history up to `to`): a few seconds' work. */
const REPLAY_QUERY_MAX_ORDERS = 250_000;

const TotalsRef = builder.objectRef<ReplayReport['issued']>('ReplayTotals').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    actual: t.exposeFloat('actual', { description: "Points the period's orders were awarded, as recorded" }),
    replayed: t.exposeFloat('replayed', {
      description: 'The same orders replayed under the program as it stands: equal to actual unless the program changed during the period',
    }),
    draft: t.exposeFloat('draft', { description: 'The same orders under the draft' }),
    difference: t.exposeFloat('difference', { description: 'draft - actual' }),
  }),
});

const ByRuleRef = builder.objectRef<ReplayReport['by_rule'][number]>('ReplayRule').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    replayed: t.exposeFloat('replayed', { description: 'Under the program as it stands (the ledger keeps no split by rule)' }),
    draft: t.exposeFloat('draft'),
    difference: t.exposeFloat('difference'),
  }),
});

const ByTierRef = builder.objectRef<ReplayReport['by_tier'][number]>('ReplayTier').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    id: t.exposeID('id', { nullable: true, description: 'Null: customers without a tier' }),
    name: t.exposeString('name'),
    actual: t.exposeFloat('actual', { description: 'Points recorded for orders of customers in this tier then' }),
    draft: t.exposeFloat('draft', { description: 'Points under the draft for orders of customers in this tier under the draft' }),
    difference: t.exposeFloat('difference'),
  }),
});

const MoveRef = builder.objectRef<ReplayReport['tier_changes']['moves'][number]>('ReplayTierMove').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    from_tier_id: t.exposeID('from_tier_id', { nullable: true }),
    to_tier_id: t.exposeID('to_tier_id', { nullable: true }),
    customers: t.exposeInt('customers'),
  }),
});

const TierChangesRef = builder.objectRef<ReplayReport['tier_changes']>('ReplayTierChanges').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    customers: t.exposeInt('customers', { description: 'Customers whose tier at the end of the period would differ' }),
    moves: t.expose('moves', { type: [MoveRef], description: 'From the tier they hold to the tier the draft gives, most customers first' }),
  }),
});

const LiabilityRef = builder.objectRef<ReplayReport['liability']>('ReplayLiability').implement({
  subGraphs: ['admin'],
  description: "Points outstanding from the period's orders: issued less what their refunds owe back",
  fields: (t) => ({
    actual: t.exposeFloat('actual'),
    draft: t.exposeFloat('draft'),
    change: t.exposeFloat('change', { description: 'draft - actual, in points' }),
  }),
});

const CustomerRef = builder.objectRef<ReplayReport['customers_most_affected'][number]>('ReplayCustomer').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    id: t.exposeID('id'),
    customer_id: t.exposeString('customer_id', { nullable: true }),
    actual: t.exposeFloat('actual'),
    draft: t.exposeFloat('draft'),
    difference: t.exposeFloat('difference'),
    tier_id: t.exposeID('tier_id', { nullable: true, description: 'At the end of the period, under the program as it stands' }),
    draft_tier_id: t.exposeID('draft_tier_id', { nullable: true, description: 'At the end of the period, under the draft' }),
  }),
});

const ReportRef = builder.objectRef<ReplayReport>('ProgramReplay').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    timezone: t.exposeString('timezone'),
    from: t.exposeString('from'),
    to: t.exposeString('to', { description: 'Included' }),
    grouped_by: t.expose('grouped_by', {
      type: ReportTimeEnum,
      description: 'Always placed: the period holds the orders placed in it, however late they were recorded',
    }),
    orders: t.exposeInt('orders', { description: 'Orders placed in the period' }),
    orders_read: t.exposeInt('orders_read', { description: 'Orders read, history before the period included (it sets the state at from)' }),
    history_orders: t.exposeInt('history_orders', {
      description:
        'Of the orders, those imported as history: they earned nothing as recorded and as the program stands; the draft judges them',
    }),
    mismatched_orders: t.exposeInt('mismatched_orders', {
      description: 'Orders whose replay under the program as it stands differs from what was recorded: the program changed since',
    }),
    issued: t.expose('issued', { type: TotalsRef }),
    by_rule: t.expose('by_rule', { type: [ByRuleRef] }),
    by_tier: t.expose('by_tier', { type: [ByTierRef] }),
    tier_changes: t.expose('tier_changes', { type: TierChangesRef }),
    liability: t.expose('liability', { type: LiabilityRef }),
    customers_most_affected: t.expose('customers_most_affected', {
      type: [CustomerRef],
      description: 'By absolute difference, largest first',
    }),
  }),
});

const ReplayJobStateEnum = builder.enumType('ReplayJobState', {
  subGraphs: ['admin'],
  description:
    'queued, running, done (the report is there), failed (error says why; a job whose process ended reads so) or cancelled (no report)',
  values: replayJobStates,
});

const JobErrorRef = builder.objectRef<NonNullable<ReplayJobView['error']>>('ReplayJobError').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    code: t.exposeString('code', { description: "The admin API's error code" }),
    message: t.exposeString('message'),
  }),
});

const DraftSectionRef = builder.objectRef<ReplayJobView['draft_sections'][number]>('ReplayDraftSection').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    section: t.exposeString('section', { description: 'earning_rules, booster_campaigns or tiers' }),
    items: t.exposeInt('items', { description: 'Records the section holds (0: that part of the program emptied)' }),
  }),
});

const JobRef = builder.objectRef<ReplayJobView>('ProgramReplayJob').implement({
  subGraphs: ['admin'],
  description: 'A what-if replay run as a job: its progress, and its report when done. Kept a day after it started',
  fields: (t) => ({
    id: t.exposeID('id'),
    state: t.field({ type: ReplayJobStateEnum, resolve: (j) => j.state }),
    from: t.exposeString('from'),
    to: t.exposeString('to', { description: 'Included' }),
    orders_read: t.exposeInt('orders_read', { description: 'Orders read so far, history before the period included' }),
    progress: t.exposeFloat('progress', { description: 'The share of the period read, 0 to 1' }),
    read_up_to: t.expose('read_up_to', { type: 'DateTime', nullable: true, description: 'When the last order read was recorded' }),
    report: t.field({
      type: ReportRef,
      nullable: true,
      description: 'When done: what program_replay answers for the same input',
      // a job of a list comes without its report: read only when asked for
      resolve: (j, _args, ctx) => (j.report === undefined ? replayReport(ctx.db, ctx.merchantId, j.id) : j.report),
    }),
    draft_sections: t.expose('draft_sections', {
      type: [DraftSectionRef],
      description: 'The sections the draft changes, with their records (a section left out stays as it stands)',
    }),
    error: t.expose('error', { type: JobErrorRef, nullable: true }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    started_at: t.expose('started_at', { type: 'DateTime', nullable: true }),
    finished_at: t.expose('finished_at', { type: 'DateTime', nullable: true }),
  }),
});

const replayArgs = builder.args((t) => ({
  from: t.field({ type: 'Date', required: true }),
  to: t.field({ type: 'Date', required: true, description: 'Included' }),
  draft: t.field({ type: 'JSON', required: true }),
  top: t.int({ description: 'Customers most affected to list, 0 to 1000, default 20' }),
}));
const replayInput = (args: { from: Date; to: Date; draft?: unknown; top?: number | null }) => ({
  from: args.from.toISOString().slice(0, 10),
  to: args.to.toISOString().slice(0, 10),
  draft: args.draft,
  top: args.top ?? undefined,
});

builder.queryFields((t) => ({
  program_replay_jobs: t.field({
    subGraphs: ['admin'],
    type: listOf('ProgramReplayJob', JobRef),
    description: "The merchant's replay jobs of the last day, newest first; a job's report is read when asked for",
    args: pageArgs,
    resolve: (_root, args, ctx) => listReplayJobs(ctx.db, ctx.merchantId, args),
  }),
  program_replay_job: t.field({
    subGraphs: ['admin'],
    type: JobRef,
    description: 'A replay job started by start_program_replay: its state, progress and, when done, its report. 404 once purged',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => replayJob(ctx.db, ctx.merchantId, String(args.id)),
  }),
  program_replay: t.field({
    subGraphs: ['admin'],
    type: ReportRef,
    description:
      "The orders of a range of the merchant's local dates replayed under a draft of the program, against what was recorded. " +
      'Writes nothing. The draft: {earning_rules, booster_campaigns, tiers}, each a list in the shapes of the create mutations ' +
      '(an item with an id changes that record); a section given replaces that part of the program, one left out stays',
    args: replayArgs,
    resolve: (_root, args, ctx) => replayProgram(ctx.db, ctx.merchantId, replayInput(args), { maxOrders: REPLAY_QUERY_MAX_ORDERS }),
  }),
}));

builder.mutationFields((t) => ({
  start_program_replay: t.field({
    subGraphs: ['admin'],
    type: JobRef,
    description:
      'Starts program_replay as a job, with no bound on the history: bad input is refused here as program_replay refuses it. ' +
      'Follow it with program_replay_job(id); 503 service_unavailable when no worker has ever started on this database',
    args: replayArgs,
    resolve: (_root, args, ctx) => startReplayJob(ctx.db, ctx.merchantId, replayInput(args), enqueueReplay),
  }),
  cancel_program_replay: t.field({
    subGraphs: ['admin'],
    type: JobRef,
    description:
      'Cancels a queued or running replay job: it stops at the end of the page it reads and keeps no report. 409 conflict once it is done or failed',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => cancelReplayJob(ctx.db, ctx.merchantId, String(args.id)),
  }),
}));
