// Referrals. Public: GET /customers/referrals and GET /referrals/program (a merchant without a
// program answers it too: inactive, null rewards). Admin: the merchant's one referral program,
// read and set (create or replace).
import { visibleCustomer } from '../../domain/access/customer-sessions.js';
import { getReferralProgram, setReferralProgram } from '../../domain/referrals/referral-program.js';
import { listReferrals, referralConnections, referralPages } from '../../domain/referrals/referral-records.js';
import type { RewardRule } from '../../domain/rewards/reward-rules.js';
import type { ReferralProgram } from '../../generated/prisma/client.js';
import { builder, forGuests, forShoppers } from '../builder.js';
import { cachedByCustomer, cachedByProgram } from '../cached.js';
import { customerRefArgs } from '../customer-args.js';
import { connectionLink, idsOf, pageLink } from '../customer-links.js';
import { ReferralStatusEnum, RewardTypeEnum } from '../enums.js';
import { listOf, pageArgs, provided, resultOf } from '../envelopes.js';
import { CustomerRef } from './customers.js';
import { RewardRuleRef } from './rewards.js';

// The domain loads the referee's platform id in the same query (the include's shape).
const ReferralRef = builder.prismaObject('Referral', {
  include: { referee: { select: { platformId: true } } },
  subGraphs: ['public'],
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
  }),
});

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

const ReferralProgramInput = builder.inputType('ReferralProgramInput', {
  subGraphs: ['admin'],
  fields: (t) => ({
    is_active: t.boolean({ description: 'Default true' }),
    referrer_reward: t.field({ type: ReferrerRewardInput, required: true }),
    referee_reward: t.field({ type: RefereeRewardInput, required: true }),
    min_order_subtotal: t.float(),
    share_url_template: t.string(),
  }),
});

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
    pages: (ctx, cs, args) => referralPages(ctx.db, ctx.merchantId, idsOf(cs), args),
  }),
  referrals_connection: connectionLink(t, {
    name: 'referrals',
    typeName: 'Referral',
    item: ReferralRef,
    scope: 'read:referrals',
    description: 'Referrals the customer made as a Relay connection, newest first: scroll down with first/after, up with last/before',
    connections: (ctx, cs, args) => referralConnections(ctx.db, ctx.merchantId, idsOf(cs), args),
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
      }),
  }),
}));
