// Rewards: the whole catalogue (active or not), create, update, activate, deactivate.
import type { Reward } from '../../generated/prisma/client.js';
import { createReward, listRewards, setRewardActive, updateReward } from '../../domain/rewards/rewards.js';
import { builder, listOf, pageArgs, provided } from './builder.js';
import { RewardTypeEnum } from './enums.js';

export const RewardRef = builder.objectRef<Reward>('Reward').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    reward_type: t.expose('rewardType', { type: RewardTypeEnum }),
    points_cost: t.exposeInt('pointsCost'),
    reward_rule: t.field({
      type: 'JSON',
      description: 'The rule for the reward type, with points_required (= points_cost)',
      resolve: (r) => ({ points_required: r.pointsCost, ...(r.rewardRule as object) }),
    }),
    is_active: t.exposeBoolean('isActive'),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const rewardRuleDescription =
  'By reward_type: fixed_discount {discount_value}, percentage_discount {discount_value (1-100), max_discount_amount?}, ' +
  'free_shipping {max_shipping_amount?}, free_product {product_id, variant_id?}, store_credit {credit_value}; ' +
  'all accept min_order_subtotal? and expires_after_days?';

const RewardInput = builder.inputType('RewardInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    description: t.string(),
    reward_type: t.field({ type: RewardTypeEnum, required: true }),
    points_cost: t.int({ required: true }),
    reward_rule: t.field({ type: 'JSON', description: rewardRuleDescription }),
    is_active: t.boolean({ description: 'Default true' }),
  }),
});

const RewardPatch = builder.inputType('RewardPatch', {
  description: 'Fields to change; the result is validated as a whole',
  fields: (t) => ({
    name: t.string(),
    description: t.string(),
    reward_type: t.field({ type: RewardTypeEnum }),
    points_cost: t.int(),
    reward_rule: t.field({ type: 'JSON', description: rewardRuleDescription }),
    is_active: t.boolean(),
  }),
});

builder.queryFields((t) => ({
  rewards: t.field({
    type: listOf('Reward', RewardRef),
    description: 'Every reward, active or not, newest first',
    args: {
      ...pageArgs,
      reward_type: t.arg({ type: RewardTypeEnum }),
      is_active: t.arg.boolean({ description: 'Only active (true) or inactive (false) rewards' }),
    },
    resolve: (_root, args, ctx) => listRewards(ctx.db, ctx.merchantId, args, { activeOnly: false }),
  }),
}));

builder.mutationFields((t) => ({
  create_reward: t.field({
    type: RewardRef,
    args: { input: t.arg({ type: RewardInput, required: true }) },
    resolve: (_root, args, ctx) => createReward(ctx.db, ctx.merchantId, provided(args.input)),
  }),
  update_reward: t.field({
    type: RewardRef,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: RewardPatch, required: true }) },
    resolve: (_root, args, ctx) => updateReward(ctx.db, ctx.merchantId, String(args.id), provided(args.input)),
  }),
  activate_reward: t.field({
    type: RewardRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => setRewardActive(ctx.db, ctx.merchantId, String(args.id), true),
  }),
  deactivate_reward: t.field({
    type: RewardRef,
    description: 'Withdraws the reward from the catalogue: it can no longer be listed or redeemed',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => setRewardActive(ctx.db, ctx.merchantId, String(args.id), false),
  }),
}));
