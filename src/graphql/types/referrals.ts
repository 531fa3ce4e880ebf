// Referrals. Public: GET /customers/referrals and GET /referrals/program (a merchant without a
// program answers it too: inactive, null rewards); on /graphql a signed-in shopper refers a
// friend (refer_friend). Admin: the merchant's one referral program with its fraud checks, read
// and set (create or replace); the referrals, those held by a fraud signal among them, and the
// review of a held one (approve_referral, reject_referral).
import { visibleCustomer } from '../../domain/access/customer-sessions.js';
import { withTier } from '../../domain/customers/customer-records.js';
import { type FraudChecks, fraudChecksOf, type Signal, signalNames } from '../../domain/referrals/fraud-signals.js';
import { getReferralProgram, setReferralProgram } from '../../domain/referrals/referral-program.js';
import { listReferrals, merchantReferrals, referralRows } from '../../domain/referrals/referral-records.js';
import { approveReferral, referFriend, rejectReferral } from '../../domain/referrals/referrals.js';
import type { RewardRule } from '../../domain/rewards/reward-rules.js';
import type { ReferralProgram } from '../../generated/prisma/client.js';
import { ReferralParty, ReferralReview } from '../../generated/prisma/enums.js';
import { builder, forGuests, forShoppers } from '../builder.js';
import { cachedByCustomer, cachedByProgram } from '../cached.js';
import { customerRefArgs } from '../customer-args.js';
import { connectionLink, pageLink } from '../customer-links.js';
import { ReferralStatusEnum, RewardTypeEnum } from '../enums.js';
import { listOf, pageArgs, provided, resultOf } from '../envelopes.js';
import { byIdOf } from '../loaders.js';
import { CustomerRef } from './customers.js';
import { RewardRuleRef } from './rewards.js';

const FraudSignalEnum = builder.enumType('FraudSignal', {
  subGraphs: ['admin'],
  description: 'A fraud check that holds a referral for review (docs/admin.md says what each catches)',
  values: signalNames,
});
const ReferralReviewEnum = builder.enumType(ReferralReview, { name: 'ReferralReview', subGraphs: ['admin'] });
const ReferralPartyEnum = builder.enumType(ReferralParty, {
  name: 'ReferralParty',
  subGraphs: ['admin'],
  description: 'Who registered a referral: the referrer (refer_friend on the storefront) or the friend (record_referral)',
});

export const ReferralSignalRef = builder.objectRef<Signal>('ReferralSignal').implement({
  subGraphs: ['admin'],
  description: 'A fraud signal that flagged a referral: which check, and what it matched',
  fields: (t) => ({
    signal: t.field({ type: FraudSignalEnum, resolve: (s) => s.signal }),
    detail: t.exposeString('detail'),
  }),
});

// The domain loads the referee's platform id in the same query (the include's shape).
const ReferralRef = builder.prismaObject('Referral', {
  include: { referee: { select: { platformId: true } } },
  subGraphs: ['public', 'admin'],
  description: 'A referral made by the customer',
  fields: (t) => ({
    id: t.exposeID('id'),
    referee_email: t.exposeString('refereeEmail'),
    referee_customer_id: t.string({
      nullable: true,
      description: "The referee's platform id, once they are a customer",
      resolve: (r) => r.referee?.platformId ?? null,
    }),
    status: t.expose('status', { type: ReferralStatusEnum }),
    referrer_points: t.exposeInt('referrerPoints', {
      nullable: true,
      description: 'Points the referrer earned, once completed',
    }),
    order_id: t.exposeString('orderId', { nullable: true, description: "The referee's qualifying order" }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    completed_at: t.expose('completedAt', { type: 'DateTime', nullable: true }),
    referrer: t.field({
      subGraphs: ['admin'],
      type: CustomerRef,
      resolve: (r, _args, ctx) =>
        customersById(ctx)
          .load(r.referrerId)
          .then((c) => c!),
    }),
    referee: t.field({
      subGraphs: ['admin'],
      type: CustomerRef,
      nullable: true,
      description: 'The friend, once they are a customer',
      resolve: (r, _args, ctx) => (r.refereeId ? customersById(ctx).load(r.refereeId) : null),
    }),
    signals: t.field({
      subGraphs: ['admin'],
      type: [ReferralSignalRef],
      description: 'The fraud signals that held it; [] when none',
      resolve: (r) => r.signals as unknown as Signal[],
    }),
    registered_by: t.expose('registeredBy', { subGraphs: ['admin'], type: ReferralPartyEnum }),
    client_ip: t.exposeString('clientIp', { subGraphs: ['admin'], nullable: true, description: "The registering party's client address" }),
    device_id: t.exposeString('deviceId', { subGraphs: ['admin'], nullable: true }),
    held_at: t.expose('heldAt', { subGraphs: ['admin'], type: 'DateTime', nullable: true, description: 'When a fraud signal held it' }),
    review: t.expose('review', {
      subGraphs: ['admin'],
      type: ReferralReviewEnum,
      nullable: true,
      description: "The merchant's decision on it once held: approved or rejected",
    }),
    reviewed_at: t.expose('reviewedAt', { subGraphs: ['admin'], type: 'DateTime', nullable: true }),
  }),
});

/** The request's loader of the merchant's customers by internal id, for the admin's referral lists. */
const customersById = (ctx: Parameters<typeof byIdOf>[0]) =>
  byIdOf(ctx, 'referral_customers', (ids) =>
    ctx.db.customer.findMany({ where: { merchantId: ctx.merchantId, id: { in: [...ids] } }, include: withTier }),
  );

const ReferrerRewardRef = builder.objectRef<{ points: number }>('ReferrerReward').implement({
  subGraphs: ['public', 'admin'],
  fields: (t) => ({ points: t.exposeInt('points', { description: 'Points the referrer earns per completed referral' }) }),
});

const RefereeRewardRef = builder.objectRef<Pick<ReferralProgram, 'refereeRewardType' | 'refereeRewardRule'>>('RefereeReward').implement({
  subGraphs: ['public', 'admin'],
  description: 'The reward the referred friend receives; its points_required is 0',
  fields: (t) => ({
    reward_type: t.expose('refereeRewardType', { type: RewardTypeEnum }),
    reward_rule: t.field({
      type: RewardRuleRef,
      // the referee's reward is given, not bought: it costs no points
      resolve: (r) => ({ ...(r.refereeRewardRule as RewardRule), points_required: 0 }),
    }),
  }),
});

// The fraud checks, as the admin API shows and takes them (fraud-signals.ts has the rules and defaults).
const SimilarEmailCheckRef = builder.objectRef<FraudChecks['similar_email']>('SimilarEmailCheck').implement({
  subGraphs: ['admin'],
  description: "The friend's email is the referrer's mailbox, or its local part is at least `similarity` alike",
  fields: (t) => ({
    enabled: t.exposeBoolean('enabled'),
    similarity: t.exposeFloat('similarity', { description: '1 − edit distance ÷ the longer local part, 0.5 to 1 (default 0.8)' }),
  }),
});
const SharedIdentifierCheckRef = builder.objectRef<FraudChecks['shared_identifier']>('SharedIdentifierCheck').implement({
  subGraphs: ['admin'],
  description: "The friend's client address, device, payment method or shipping address is the referrer's",
  fields: (t) => ({
    enabled: t.exposeBoolean('enabled'),
    window_days: t.exposeInt('window_days', { description: "How far back the referrer's orders count, 1 to 365 (default 30)" }),
  }),
});
const NotFirstOrderCheckRef = builder.objectRef<FraudChecks['not_first_order']>('NotFirstOrderCheck').implement({
  subGraphs: ['admin'],
  description: 'The qualifying order is not the friend’s first order (off by default)',
  fields: (t) => ({ enabled: t.exposeBoolean('enabled') }),
});
const VelocityCheckRef = builder.objectRef<FraudChecks['referrer_velocity']>('VelocityCheck').implement({
  subGraphs: ['admin'],
  description: 'More than max_referrals referrals within window_days (default 10 in 7 days)',
  fields: (t) => ({
    enabled: t.exposeBoolean('enabled'),
    max_referrals: t.exposeInt('max_referrals'),
    window_days: t.exposeInt('window_days'),
  }),
});
const ReferralBlocklistRef = builder.objectRef<FraudChecks['blocklist']>('ReferralBlocklist').implement({
  subGraphs: ['admin'],
  description: 'Emails, email domains (and their subdomains) and client addresses (or ranges) that hold a referral',
  fields: (t) => ({
    enabled: t.exposeBoolean('enabled'),
    emails: t.exposeStringList('emails'),
    domains: t.exposeStringList('domains'),
    addresses: t.exposeStringList('addresses', { description: 'IP addresses or CIDR ranges' }),
  }),
});
const ReferralFraudChecksRef = builder.objectRef<FraudChecks>('ReferralFraudChecks').implement({
  subGraphs: ['admin'],
  description: 'What holds a referral for review instead of rewarding it; each check on or off, with its threshold',
  fields: (t) => ({
    similar_email: t.expose('similar_email', { type: SimilarEmailCheckRef }),
    shared_identifier: t.expose('shared_identifier', { type: SharedIdentifierCheckRef }),
    not_first_order: t.expose('not_first_order', { type: NotFirstOrderCheckRef }),
    referrer_velocity: t.expose('referrer_velocity', {
      type: VelocityCheckRef,
      description: 'Referrals the referrer made within the window',
    }),
    address_velocity: t.expose('address_velocity', {
      type: VelocityCheckRef,
      description: 'Referrals registered from one client address within the window',
    }),
    blocklist: t.expose('blocklist', { type: ReferralBlocklistRef }),
  }),
});

/** What GET /referrals/program answers for a merchant without a program: inactive, no rewards. */
const noProgram = { isActive: false } as const;
type ProgramOrNone = ReferralProgram | typeof noProgram;
const stored = (r: ProgramOrNone) => ('id' in r ? r : null);

const ReferralProgramRef = builder.objectRef<ProgramOrNone>('ReferralProgram').implement({
  subGraphs: ['public', 'admin'],
  description: 'The referral program; a merchant without one answers is_active false and null rewards',
  fields: (t) => ({
    is_active: t.exposeBoolean('isActive'),
    referrer_reward: t.field({
      type: ReferrerRewardRef,
      nullable: true,
      description: 'Null when the merchant has no referral program',
      resolve: (r) => {
        const program = stored(r);
        return program && { points: program.referrerPoints };
      },
    }),
    referee_reward: t.field({
      type: RefereeRewardRef,
      nullable: true,
      description: 'Null when the merchant has no referral program',
      resolve: stored,
    }),
    min_order_subtotal: t.float({
      nullable: true,
      description: "Smallest subtotal of the referee's order that completes a referral",
      resolve: (r) => {
        const min = stored(r)?.minOrderSubtotal ?? null;
        return min === null ? null : Number(min);
      },
    }),
    share_url_template: t.string({ nullable: true, resolve: (r) => stored(r)?.shareUrlTemplate ?? null }),
    // the admin API answers null rather than the placeholder, so these always have a program
    fraud_checks: t.field({ subGraphs: ['admin'], type: ReferralFraudChecksRef, resolve: (r) => fraudChecksOf(stored(r)!.fraudChecks) }),
    created_at: t.field({ subGraphs: ['admin'], type: 'DateTime', resolve: (r) => stored(r)!.createdAt }),
    updated_at: t.field({ subGraphs: ['admin'], type: 'DateTime', resolve: (r) => stored(r)!.updatedAt }),
  }),
});

const ReferrerRewardInput = builder.inputType('ReferrerRewardInput', {
  subGraphs: ['admin'],
  fields: (t) => ({ points: t.int({ required: true }) }),
});

const RefereeRewardInput = builder.inputType('RefereeRewardInput', {
  subGraphs: ['admin'],
  fields: (t) => ({
    reward_type: t.field({ type: RewardTypeEnum, required: true }),
    reward_rule: t.field({ type: 'JSON', description: 'As a reward of this type (without points_required)' }),
  }),
});

const switchOnly = { enabled: 'Default: the check’s default (docs/admin.md)' };
const SimilarEmailCheckInput = builder.inputType('SimilarEmailCheckInput', {
  subGraphs: ['admin'],
  fields: (t) => ({
    enabled: t.boolean({ description: switchOnly.enabled }),
    similarity: t.float({ description: '0.5 to 1 (default 0.8)' }),
  }),
});
const SharedIdentifierCheckInput = builder.inputType('SharedIdentifierCheckInput', {
  subGraphs: ['admin'],
  fields: (t) => ({
    enabled: t.boolean({ description: switchOnly.enabled }),
    window_days: t.int({ description: '1 to 365 (default 30)' }),
  }),
});
const NotFirstOrderCheckInput = builder.inputType('NotFirstOrderCheckInput', {
  subGraphs: ['admin'],
  fields: (t) => ({ enabled: t.boolean({ description: 'Default false' }) }),
});
const VelocityCheckInput = builder.inputType('VelocityCheckInput', {
  subGraphs: ['admin'],
  fields: (t) => ({
    enabled: t.boolean({ description: switchOnly.enabled }),
    max_referrals: t.int({ description: '1 to 10,000 (default 10)' }),
    window_days: t.int({ description: '1 to 365 (default 7)' }),
  }),
});
const ReferralBlocklistInput = builder.inputType('ReferralBlocklistInput', {
  subGraphs: ['admin'],
  fields: (t) => ({
    enabled: t.boolean({ description: switchOnly.enabled }),
    emails: t.stringList({ description: 'At most 1,000' }),
    domains: t.stringList({ description: 'At most 1,000; a domain also blocks its subdomains' }),
    addresses: t.stringList({ description: 'IP addresses or CIDR ranges, at most 1,000' }),
  }),
});
const ReferralFraudChecksInput = builder.inputType('ReferralFraudChecksInput', {
  subGraphs: ['admin'],
  description: 'Replaces the checks whole: a check left out takes its defaults',
  fields: (t) => ({
    similar_email: t.field({ type: SimilarEmailCheckInput }),
    shared_identifier: t.field({ type: SharedIdentifierCheckInput }),
    not_first_order: t.field({ type: NotFirstOrderCheckInput }),
    referrer_velocity: t.field({ type: VelocityCheckInput }),
    address_velocity: t.field({ type: VelocityCheckInput }),
    blocklist: t.field({ type: ReferralBlocklistInput }),
  }),
});

const ReferralProgramInput = builder.inputType('ReferralProgramInput', {
  subGraphs: ['admin'],
  fields: (t) => ({
    is_active: t.boolean({ description: 'Default true' }),
    referrer_reward: t.field({ type: ReferrerRewardInput, required: true }),
    referee_reward: t.field({ type: RefereeRewardInput, required: true }),
    min_order_subtotal: t.float(),
    share_url_template: t.string(),
    fraud_checks: t.field({
      type: ReferralFraudChecksInput,
      description: 'Absent: the fraud checks stay as they are (a new program takes the defaults)',
    }),
  }),
});

/** An input object with every level's absent fields left out. */
const providedDeep = (value: unknown): unknown =>
  value && typeof value === 'object' && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(provided(value)).map(([k, v]) => [k, providedDeep(v)]))
    : value;

builder.queryFields((t) => ({
  customer_referrals: t.field({
    subGraphs: ['public'],
    ...cachedByCustomer,
    ...forShoppers,
    type: listOf('Referral', ReferralRef),
    description: 'Referrals the customer made, newest first. REST: GET /v1/customers/referrals',
    authScopes: { scope: 'read:referrals' },
    args: { ...customerRefArgs, ...pageArgs },
    resolve: async (_root, args, ctx) => {
      const customer = await visibleCustomer(ctx.db, ctx, args);
      return listReferrals(ctx.db, ctx.merchantId, customer.id, args);
    },
  }),
  referral_program: t.field({
    subGraphs: ['public'],
    ...cachedByProgram,
    ...forGuests('read:referrals'),
    type: resultOf('ReferralProgram', ReferralProgramRef),
    description: "The merchant's referral program. REST: GET /v1/referrals/program",
    resolve: async (_root, _args, ctx) => {
      // no program is an answer too (200): a storefront renders "no referral program" from it
      return { data: (await getReferralProgram(ctx.db, ctx.merchantId)) ?? noProgram };
    },
  }),
  referrals: t.field({
    subGraphs: ['admin'],
    type: listOf('Referral', ReferralRef),
    description: 'The referrals, newest first; status: held lists those waiting for review',
    args: { status: t.arg({ type: ReferralStatusEnum }), ...pageArgs },
    resolve: (_root, args, ctx) => merchantReferrals(ctx.db, ctx.merchantId, args),
  }),
  admin_referral_program: t.field({
    subGraphs: ['admin'],
    type: ReferralProgramRef,
    nullable: true,
    description: 'The referral program; null until one is set',
    resolve: (_root, _args, ctx) => getReferralProgram(ctx.db, ctx.merchantId),
  }),
}));

builder.objectFields(CustomerRef, (t) => ({
  referrals: pageLink(t, {
    name: 'referrals',
    typeName: 'Referral',
    item: ReferralRef,
    scope: 'read:referrals',
    description: 'Referrals the customer made, newest first, as GET /v1/customers/referrals',
    rows: referralRows,
  }),
  referrals_connection: connectionLink(t, {
    name: 'referrals',
    typeName: 'Referral',
    item: ReferralRef,
    scope: 'read:referrals',
    description: 'Referrals the customer made as a Relay connection, newest first: scroll down with first/after, up with last/before',
    rows: referralRows,
  }),
}));

builder.mutationFields((t) => ({
  set_referral_program: t.field({
    subGraphs: ['admin'],
    type: ReferralProgramRef,
    description: 'Creates or replaces the referral program (every field; absent optional ones are cleared)',
    args: { input: t.arg({ type: ReferralProgramInput, required: true }) },
    resolve: (_root, args, ctx) =>
      setReferralProgram(ctx.db, ctx.merchantId, {
        ...provided(args.input),
        referrer_reward: provided(args.input.referrer_reward),
        referee_reward: provided(args.input.referee_reward),
        fraud_checks: providedDeep(args.input.fraud_checks),
      }),
  }),
  approve_referral: t.field({
    subGraphs: ['admin'],
    type: ReferralRef,
    description:
      'Approves a held referral: its rewards are issued now, once (without the friend’s order yet, it is pending again). ' +
      'Approving it again answers it as it stands; a rejected one is 409 conflict',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => approveReferral(ctx.db, ctx.merchantId, String(args.id)),
  }),
  reject_referral: t.field({
    subGraphs: ['admin'],
    type: ReferralRef,
    description: 'Rejects a held referral: nothing is issued. Rejecting it again answers it as it stands; an approved one is 409 conflict',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => rejectReferral(ctx.db, ctx.merchantId, String(args.id)),
  }),
  refer_friend: t.field({
    subGraphs: ['graph'],
    ...forShoppers,
    authScopes: { shopper: true },
    type: resultOf('ReferredFriend', ReferralRef),
    description:
      'The signed-in shopper refers a friend by email (GraphQL only, with a customer session). A referral a fraud check holds ' +
      'answers status held (under review), not an error; one the program refuses is 422 referral_rejected',
    args: {
      referee_email: t.arg.string({ required: true }),
      device_id: t.arg.string({ description: "The storefront's identifier of the shopper's device, if it keeps one" }),
    },
    resolve: async (_root, args, ctx) => {
      const principal = ctx.principal!;
      const customerId = principal.kind === 'session' ? principal.customerId : '';
      return { data: await referFriend(ctx.db, ctx.merchantId, customerId, provided(args), ctx.clientAddress ?? null) };
    },
  }),
}));
