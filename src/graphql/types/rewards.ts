// Reward catalogue. Public: GET /rewards, GET /rewards/{id} (spec 2.2, 4.4). Admin: the whole
// catalogue (active or not), create, update, activate, deactivate.

import type { RewardRule } from '../../domain/rewards/reward-rules.js';
import { createReward, findReward, listRewards, setRewardActive, updateReward } from '../../domain/rewards/rewards.js';
import { builder, forGuests } from '../builder.js';
import { cachedByProgram } from '../cached.js';
import { RewardTypeEnum } from '../enums.js';
import { listOf, pageArgs, provided, resultOf } from '../envelopes.js';
import { PRODUCT_IMAGE, PRODUCT_NAME } from '../products.js';

export const RewardRuleRef = builder.objectRef<RewardRule & { points_required: number }>('RewardRule').implement({
  subGraphs: ['public', 'admin'],
  description: 'How a reward applies. Fields that do not apply to the reward type are null.',
  fields: (t) => ({
    points_required: t.exposeInt('points_required'),
    discount_value: t.exposeFloat('discount_value', {
      nullable: true,
      description: 'fixed_discount: an amount; percentage_discount: a percent, 1 to 100',
    }),
    max_discount_amount: t.exposeFloat('max_discount_amount', { nullable: true }),
    credit_value: t.exposeFloat('credit_value', { nullable: true, description: 'store_credit: the amount' }),
    product_id: t.exposeString('product_id', { nullable: true, description: 'free_product: the product' }),
    variant_id: t.exposeString('variant_id', { nullable: true }),
    max_shipping_amount: t.exposeFloat('max_shipping_amount', { nullable: true }),
    min_order_subtotal: t.exposeFloat('min_order_subtotal', { nullable: true }),
    expires_after_days: t.exposeInt('expires_after_days', {
      nullable: true,
      description: 'Days an issued code stays valid',
    }),
  }),
});

export const RewardRef = builder.prismaObject('Reward', {
  subGraphs: ['public', 'admin'],
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    reward_type: t.expose('rewardType', { type: RewardTypeEnum }),
    points_cost: t.exposeInt('pointsCost'),
    reward_rule: t.field({
      type: RewardRuleRef,
      resolve: (r) => ({ ...(r.rewardRule as RewardRule), points_required: r.pointsCost }),
    }),
    product_name: t.exposeString('productName', { subGraphs: ['admin'], nullable: true, description: PRODUCT_NAME }),
    product_image_url: t.exposeString('productImageUrl', { subGraphs: ['admin'], nullable: true, description: PRODUCT_IMAGE }),
    is_active: t.exposeBoolean('isActive'),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const RewardList = listOf('Reward', RewardRef);
const RewardResult = resultOf('Reward', RewardRef);

const rewardRuleDescription =
  'By reward_type: fixed_discount {discount_value}, percentage_discount {discount_value (1-100), max_discount_amount?}, ' +
  'free_shipping {max_shipping_amount?}, free_product {product_id, variant_id?}, store_credit {credit_value}; ' +
  'all accept min_order_subtotal? and expires_after_days?';

const RewardInput = builder.inputType('RewardInput', {
  subGraphs: ['admin'],
  fields: (t) => ({
    name: t.string({ required: true }),
    description: t.string(),
    reward_type: t.field({ type: RewardTypeEnum, required: true }),
    points_cost: t.int({ required: true }),
    reward_rule: t.field({ type: 'JSON', description: rewardRuleDescription }),
    product_name: t.string({ description: PRODUCT_NAME }),
    product_image_url: t.string({ description: PRODUCT_IMAGE }),
    is_active: t.boolean({ description: 'Default true' }),
  }),
});

const RewardPatch = builder.inputType('RewardPatch', {
  subGraphs: ['admin'],
  description: 'Fields to change; the result is validated as a whole',
  fields: (t) => ({
    name: t.string(),
    description: t.string(),
    reward_type: t.field({ type: RewardTypeEnum }),
    points_cost: t.int(),
    reward_rule: t.field({ type: 'JSON', description: rewardRuleDescription }),
    product_name: t.string({ description: PRODUCT_NAME }),
    product_image_url: t.string({ description: PRODUCT_IMAGE }),
    is_active: t.boolean(),
  }),
});

builder.queryFields((t) => ({
  rewards: t.field({
    subGraphs: ['public'],
    ...cachedByProgram,
    ...forGuests('read:rewards'),
    type: RewardList,
    description: 'Active rewards of the catalogue, newest first. REST: GET /v1/rewards',
    args: { ...pageArgs, reward_type: t.arg({ type: RewardTypeEnum, required: false }) },
    resolve: (_root, args, ctx) => listRewards(ctx.db, ctx.merchantId, args, { activeOnly: true }),
  }),
  reward: t.field({
    subGraphs: ['public'],
    ...cachedByProgram,
    ...forGuests('read:rewards'),
    type: RewardResult,
    description: 'One active reward. REST: GET /v1/rewards/{id}',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => ({ data: await findReward(ctx.db, ctx.merchantId, String(args.id), { activeOnly: true }) }),
  }),
  admin_rewards: t.field({
    subGraphs: ['admin'],
    type: RewardList,
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
    subGraphs: ['admin'],
    type: RewardRef,
    args: { input: t.arg({ type: RewardInput, required: true }) },
    resolve: (_root, args, ctx) => createReward(ctx.db, ctx.merchantId, provided(args.input)),
  }),
  update_reward: t.field({
    subGraphs: ['admin'],
    type: RewardRef,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: RewardPatch, required: true }) },
    resolve: (_root, args, ctx) => updateReward(ctx.db, ctx.merchantId, String(args.id), provided(args.input)),
  }),
  activate_reward: t.field({
    subGraphs: ['admin'],
    type: RewardRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => setRewardActive(ctx.db, ctx.merchantId, String(args.id), true),
  }),
  deactivate_reward: t.field({
    subGraphs: ['admin'],
    type: RewardRef,
    description: 'Withdraws the reward from the catalogue: it can no longer be listed or redeemed',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => setRewardActive(ctx.db, ctx.merchantId, String(args.id), false),
  }),
}));
