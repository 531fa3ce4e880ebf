// Customer rewards: GET /customers/rewards, GET /customers/rewards/redeemable,
// POST /customers/rewards/redeem.

import type { ObjectFieldBuilder } from '@pothos/core';
import { visibleCustomer } from '../../domain/access/customer-sessions.js';
import {
  type CustomerRewardRecord,
  heldRewardRows,
  listCustomerRewards,
  listRedeemableRewards,
  type Redemption,
  redeemableRows,
  redeemReward,
  redeemRules,
  statusChangesAt,
} from '../../domain/rewards/redemption.js';
import { findRewards } from '../../domain/rewards/rewards.js';
import type { Reward } from '../../generated/prisma/client.js';
import { builder, forShoppers } from '../builder.js';
import { cachedByCustomer, changesAt } from '../cached.js';
import { customerRefArgs } from '../customer-args.js';
import { connectionLink, pageLink } from '../customer-links.js';
import { CustomerRewardStatusEnum, RewardTypeEnum } from '../enums.js';
import { listOf, pageArgs, resultOf } from '../envelopes.js';
import { link } from '../links.js';
import { byIdOf } from '../loaders.js';
import { ruled } from '../rules.js';
import { CustomerRef } from './customers.js';
import { RewardRef } from './rewards.js';

const RewardSummaryRef = builder.objectRef<CustomerRewardRecord['reward']>('RewardSummary').implement({
  subGraphs: ['public'],
  description: 'The catalogue reward a customer reward was issued for',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    reward_type: t.expose('reward_type', { type: RewardTypeEnum }),
  }),
});

type FieldBuilder<T> = ObjectFieldBuilder<typeof builder.$inferSchemaTypes, T>;

/** The fields of an issued reward, shared by the list and the redemption result (resolvers, since
 * expose* cannot type a generic parent). */
function customerRewardFields<T extends CustomerRewardRecord>(t: FieldBuilder<T>) {
  return {
    id: t.id({ resolve: (r) => r.id }),
    reward: t.field({ type: RewardSummaryRef, resolve: (r) => r.reward }),
    code: t.string({ description: 'The code the customer uses at checkout', resolve: (r) => r.code }),
    status: t.field({
      type: CustomerRewardStatusEnum,
      description: 'issued, used, expired (an issued code past expires_at) or cancelled',
      resolve: (r, _args, ctx) => {
        changesAt(ctx, statusChangesAt(r));
        return r.status;
      },
    }),
    points_spent: t.int({ resolve: (r) => r.points_spent }),
    issued_at: t.field({ type: 'DateTime', resolve: (r) => r.issued_at }),
    expires_at: t.field({ type: 'DateTime', nullable: true, resolve: (r) => r.expires_at }),
    used_at: t.field({ type: 'DateTime', nullable: true, resolve: (r) => r.used_at }),
  };
}

// objectRef: an issued reward as redemption.ts computes it (its status from expires_at, the reward's summary)
const CustomerRewardRef = builder.objectRef<CustomerRewardRecord>('CustomerReward').implement({
  subGraphs: ['public'],
  description: 'A reward a customer redeemed: its code and status',
  fields: (t) => customerRewardFields(t),
});

const RedemptionRef = builder.objectRef<Redemption>('Redemption').implement({
  subGraphs: ['public'],
  description: 'The customer reward issued by a redemption, with the balance it left',
  fields: (t) => ({
    ...customerRewardFields(t),
    balance_after: t.exposeInt('balance_after', { description: 'Points balance after the redemption' }),
  }),
});

builder.queryFields((t) => ({
  customer_rewards: t.field({
    subGraphs: ['public'],
    ...cachedByCustomer,
    ...forShoppers,
    type: listOf('CustomerReward', CustomerRewardRef),
    description: 'The rewards a customer has redeemed, newest first. REST: GET /v1/customers/rewards',
    authScopes: { scope: 'read:rewards' },
    args: { ...customerRefArgs, ...pageArgs },
    resolve: async (_root, args, ctx) => {
      const customer = await visibleCustomer(ctx.db, ctx, args);
      return listCustomerRewards(ctx.db, customer, args);
    },
  }),
  redeemable_rewards: t.field({
    subGraphs: ['public'],
    ...cachedByCustomer,
    ...forShoppers,
    type: listOf('RedeemableReward', RewardRef),
    description:
      'Active rewards the customer can afford now (points_cost <= balance), cheapest first, then newest. ' +
      'A customer with status excluded can redeem nothing and gets an empty list. ' +
      'REST: GET /v1/customers/rewards/redeemable',
    authScopes: { scope: 'read:rewards' },
    args: { ...customerRefArgs, ...pageArgs },
    resolve: async (_root, args, ctx) => {
      const customer = await visibleCustomer(ctx.db, ctx, args);
      return listRedeemableRewards(ctx.db, customer, args);
    },
  }),
}));

builder.objectFields(CustomerRef, (t) => ({
  rewards: pageLink(t, {
    name: 'rewards',
    typeName: 'CustomerReward',
    item: CustomerRewardRef,
    scope: 'read:rewards',
    description: 'The rewards the customer holds (redeemed codes), newest first, as GET /v1/customers/rewards',
    rows: heldRewardRows,
  }),
  redeemable_rewards: pageLink(t, {
    name: 'redeemable_rewards',
    typeName: 'RedeemableReward',
    item: RewardRef,
    scope: 'read:rewards',
    description: 'Active rewards the customer can afford now, cheapest first, as GET /v1/customers/rewards/redeemable',
    rows: redeemableRows,
  }),
  rewards_connection: connectionLink(t, {
    name: 'rewards',
    typeName: 'CustomerReward',
    item: CustomerRewardRef,
    scope: 'read:rewards',
    description: 'The rewards the customer holds as a Relay connection, newest first: scroll down with first/after, up with last/before',
    rows: heldRewardRows,
  }),
  redeemable_rewards_connection: connectionLink(t, {
    name: 'redeemable_rewards',
    typeName: 'RedeemableReward',
    item: RewardRef,
    scope: 'read:rewards',
    description:
      'Active rewards the customer can afford now as a Relay connection, cheapest first: scroll down with first/after, up with last/before',
    rows: redeemableRows,
  }),
}));

builder.objectFields(CustomerRewardRef, (t) => ({
  catalogue_reward: t.field({
    ...link('read:rewards'),
    type: RewardRef,
    description: 'The catalogue reward this code was issued for (active or not), as GET /v1/rewards/{id} shows one',
    // codes read through the customer's link come with their catalogue rewards; others take one batched read
    resolve: (held: CustomerRewardRecord & { catalogue?: Reward }, _args, ctx) =>
      held.catalogue ?? byIdOf(ctx, 'catalogue_reward', (ids) => findRewards(ctx.db, ctx.merchantId, ids)).load(held.reward.id),
  }),
}));

builder.mutationFields((t) => ({
  redeem_reward: t.field({
    subGraphs: ['public'],
    ...forShoppers,
    type: resultOf('Redemption', RedemptionRef),
    description:
      "Spends the customer's points on a reward and issues its code. Not enough points: insufficient_points; " +
      'an excluded customer: reward_unavailable; an unknown or inactive reward: not_found. ' +
      'REST: POST /v1/customers/rewards/redeem?customer_id=',
    authScopes: { scope: 'write:rewards' },
    args: { ...customerRefArgs, reward_id: t.arg.id({ required: true, ...ruled(redeemRules.reward_id, 'The reward to redeem') }) },
    resolve: async (_root, args, ctx) => {
      const customer = await visibleCustomer(ctx.db, ctx, args);
      return { data: await redeemReward(ctx.db, customer, { reward_id: String(args.reward_id) }) };
    },
  }),
}));
