// Referrals: GET /customers/referrals and GET /referrals/program.
import { findCustomer } from '../domain/customers/customers.js';
import { type ReferralProgramView, referralProgramOf } from '../domain/referrals/referral-program.js';
import { type ReferralRecord, listReferrals } from '../domain/referrals/referral-records.js';
import { builder } from './builder.js';
import { customerRefArgs } from './customers.js';
import { ReferralStatusEnum, RewardTypeEnum } from './enums.js';
import { listOf, pageArgs, resultOf } from './pagination.js';
import { RewardRuleRef } from './rewards.js';

// A plain object type: the domain loads the referee's platform id in the same query.
const ReferralRef = builder.objectRef<ReferralRecord>('Referral').implement({
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

type Program = ReferralProgramView;

const ReferrerRewardRef = builder.objectRef<Program['referrer_reward']>('ReferrerReward').implement({
  fields: (t) => ({ points: t.exposeInt('points', { description: 'Points the referrer earns per completed referral' }) }),
});

const RefereeRewardRef = builder.objectRef<Program['referee_reward']>('RefereeReward').implement({
  description: 'The reward the referred friend receives; its points_required is 0',
  fields: (t) => ({
    reward_type: t.expose('reward_type', { type: RewardTypeEnum }),
    reward_rule: t.expose('reward_rule', { type: RewardRuleRef }),
  }),
});

const ReferralProgramRef = builder.objectRef<Program>('ReferralProgram').implement({
  fields: (t) => ({
    is_active: t.exposeBoolean('is_active'),
    referrer_reward: t.expose('referrer_reward', { type: ReferrerRewardRef }),
    referee_reward: t.expose('referee_reward', { type: RefereeRewardRef }),
    min_order_subtotal: t.exposeFloat('min_order_subtotal', {
      nullable: true,
      description: "Smallest subtotal of the referee's order that completes a referral",
    }),
    share_url_template: t.exposeString('share_url_template', { nullable: true }),
  }),
});

builder.queryFields((t) => ({
  customer_referrals: t.field({
    type: listOf('Referral', ReferralRef),
    description: 'Referrals the customer made, newest first. REST: GET /v1/customers/referrals',
    authScopes: { scope: 'read:referrals' },
    args: { ...customerRefArgs, ...pageArgs },
    resolve: async (_root, args, ctx) => {
      const customer = await findCustomer(ctx.db, ctx.principal.merchantId, args);
      return listReferrals(ctx.db, ctx.principal.merchantId, customer.id, args);
    },
  }),
  referral_program: t.field({
    type: resultOf('ReferralProgram', ReferralProgramRef),
    description: "The merchant's referral program. REST: GET /v1/referrals/program",
    authScopes: { scope: 'read:referrals' },
    resolve: async (_root, _args, ctx) => ({ data: await referralProgramOf(ctx.db, ctx.principal.merchantId) }),
  }),
}));
