// Reward catalogue: GET /rewards, GET /rewards/{id} (spec 2.2, 4.4).
import type { RewardRule } from '../domain/rewards/reward-rules.js';
import { findReward, listRewards } from '../domain/rewards/rewards.js';
import { builder } from './builder.js';
import { RewardTypeEnum } from './enums.js';
import { listOf, pageArgs, resultOf } from './pagination.js';

export const RewardRuleRef = builder
  .objectRef<RewardRule & { points_required: number }>('RewardRule')
  .implement({
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
    is_active: t.exposeBoolean('isActive'),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const RewardList = listOf('Reward', RewardRef);
const RewardResult = resultOf('Reward', RewardRef);

builder.queryFields((t) => ({
  rewards: t.field({
    type: RewardList,
    description: 'Active rewards of the catalogue, newest first. REST: GET /v1/rewards',
    authScopes: { scope: 'read:rewards' },
    args: { ...pageArgs, reward_type: t.arg({ type: RewardTypeEnum, required: false }) },
    resolve: (_root, args, ctx) => listRewards(ctx.db, ctx.principal.merchantId, args, { activeOnly: true }),
  }),
  reward: t.field({
    type: RewardResult,
    description: 'One active reward. REST: GET /v1/rewards/{id}',
    authScopes: { scope: 'read:rewards' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => ({ data: await findReward(ctx.db, ctx.principal.merchantId, String(args.id), { activeOnly: true }) }),
  }),
}));
