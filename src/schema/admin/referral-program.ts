// The merchant's one referral program: read it, set (create or replace) it.
import type { ReferralProgram } from '../../generated/prisma/client.js';
import { getReferralProgram, setReferralProgram } from '../../domain/referrals/referral-program.js';
import { builder, provided } from './builder.js';
import { RewardTypeEnum } from './enums.js';

const ReferrerRewardRef = builder.objectRef<{ points: number }>('ReferrerReward').implement({
  fields: (t) => ({ points: t.exposeInt('points') }),
});

const RefereeRewardRef = builder
  .objectRef<Pick<ReferralProgram, 'refereeRewardType' | 'refereeRewardRule'>>('RefereeReward')
  .implement({
    fields: (t) => ({
      reward_type: t.expose('refereeRewardType', { type: RewardTypeEnum }),
      reward_rule: t.field({ type: 'JSON', resolve: (r) => r.refereeRewardRule }),
    }),
  });

export const ReferralProgramRef = builder.objectRef<ReferralProgram>('ReferralProgram').implement({
  fields: (t) => ({
    is_active: t.exposeBoolean('isActive'),
    referrer_reward: t.field({ type: ReferrerRewardRef, resolve: (r) => ({ points: r.referrerPoints }) }),
    referee_reward: t.field({ type: RefereeRewardRef, resolve: (r) => r }),
    min_order_subtotal: t.float({
      nullable: true,
      description: "The referee's first order must reach this subtotal to complete the referral",
      resolve: (r) => (r.minOrderSubtotal == null ? null : Number(r.minOrderSubtotal)),
    }),
    share_url_template: t.exposeString('shareUrlTemplate', { nullable: true }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const ReferrerRewardInput = builder.inputType('ReferrerRewardInput', {
  fields: (t) => ({ points: t.int({ required: true }) }),
});

const RefereeRewardInput = builder.inputType('RefereeRewardInput', {
  fields: (t) => ({
    reward_type: t.field({ type: RewardTypeEnum, required: true }),
    reward_rule: t.field({ type: 'JSON', description: 'As a reward of this type (without points_required)' }),
  }),
});

const ReferralProgramInput = builder.inputType('ReferralProgramInput', {
  fields: (t) => ({
    is_active: t.boolean({ description: 'Default true' }),
    referrer_reward: t.field({ type: ReferrerRewardInput, required: true }),
    referee_reward: t.field({ type: RefereeRewardInput, required: true }),
    min_order_subtotal: t.float(),
    share_url_template: t.string(),
  }),
});

builder.queryFields((t) => ({
  referral_program: t.field({
    type: ReferralProgramRef,
    nullable: true,
    description: 'The referral program; null until one is set',
    resolve: (_root, _args, ctx) => getReferralProgram(ctx.db, ctx.merchantId),
  }),
}));

builder.mutationFields((t) => ({
  set_referral_program: t.field({
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
