// Customers. Public: GET /customers, GET /customers/{id}, GET /customers/balance. Admin: look
// up, create (a referral_code is generated when absent), update. Points never change here:
// balances move only through the ledger (events, adjustments).

import { confineToViewer, visibleCustomer } from '../../domain/access/customer-sessions.js';
import { type CustomerProfile, customerProfile, listCustomers, withTier } from '../../domain/customers/customer-records.js';
import { createCustomer, updateCustomer } from '../../domain/customers/customer-writes.js';
import { type Balance, balanceOf, balancePart } from '../../domain/ledger/balances.js';
import { lookupRule } from '../../domain/shared/fields.js';
import { builder, forShoppers } from '../builder.js';
import { cachedByCustomer } from '../cached.js';
import { customerRefArgs } from '../customer-args.js';
import { customerLink } from '../customer-links.js';
import { planLinks, programOf, withPlan } from '../customer-plan.js';
import { CustomerStatusEnum } from '../enums.js';
import { listOf, pageArgs, provided, resultOf } from '../envelopes.js';
import { ruled } from '../rules.js';

const NextExpiry = builder.objectRef<NonNullable<Balance['next_expiry']>>('PointsExpiry').implement({
  subGraphs: ['public'],
  fields: (t) => ({
    points: t.exposeInt('points'),
    expires_at: t.expose('expires_at', { type: 'DateTime' }),
  }),
});

const BalanceRef = builder.objectRef<Balance>('Balance').implement({
  subGraphs: ['public'],
  fields: (t) => ({
    customer_id: t.exposeID('customer_id', { description: 'Internal id (uuid) of the customer' }),
    points_balance: t.exposeInt('points_balance'),
    points_earned: t.exposeInt('points_earned'),
    points_spent: t.exposeInt('points_spent'),
    points_pending: t.exposeInt('points_pending'),
    next_expiry: t.expose('next_expiry', { type: NextExpiry, nullable: true }),
  }),
});

builder.queryFields((t) => ({
  customer_balance: t.field({
    subGraphs: ['public'],
    ...cachedByCustomer,
    ...forShoppers,
    type: resultOf('Balance', BalanceRef),
    description: "A customer's points balance. REST: GET /v1/customers/balance",
    authScopes: { scope: 'read:customers' },
    args: customerRefArgs,
    resolve: async (_root, args, ctx) => {
      const customer = await visibleCustomer(ctx.db, ctx, args);
      return { data: await balanceOf(ctx.db, customer, await programOf(ctx)) };
    },
  }),
}));

const CustomerTierRef = builder.objectRef<NonNullable<CustomerProfile['tier']>>('CustomerTier').implement({
  subGraphs: ['public', 'admin'],
  description: "The customer's current VIP tier",
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
  }),
});

// The domain loads each customer with its tier in the same query (the include's shape).
export const CustomerRef = builder.prismaObject('Customer', {
  include: withTier,
  subGraphs: ['public', 'admin'],
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Internal id (uuid)' }),
    customer_id: t.exposeString('platformId', { description: "The customer's id on the e-commerce platform" }),
    email: t.exposeString('email'),
    first_name: t.exposeString('firstName', { nullable: true }),
    last_name: t.exposeString('lastName', { nullable: true }),
    status: t.expose('status', { type: CustomerStatusEnum }),
    points_balance: t.exposeInt('pointsBalance'),
    points_earned: t.exposeInt('pointsEarned'),
    points_spent: t.exposeInt('pointsSpent'),
    amount_spent: t.float({ subGraphs: ['admin'], resolve: (c) => Number(c.amountSpent) }),
    tier: t.field({ type: CustomerTierRef, nullable: true, resolve: (c) => c.tier }),
    referral_code: t.exposeString('referralCode'),
    birthday: t.expose('birthday', { type: 'Date', nullable: true }),
    last_activity_at: t.expose('lastActivityAt', { subGraphs: ['admin'], type: 'DateTime', nullable: true }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.objectFields(CustomerRef, (t) => ({
  balance: t.field({
    ...customerLink('balance', {
      scope: 'read:customers',
      usesProgram: true,
      part: (ctx, _args, { program }) => balancePart(ctx.merchantId, program!),
    }),
    type: BalanceRef,
    description: 'The points balance, as GET /v1/customers/balance',
  }),
}));

const CustomerInput = builder.inputType('CustomerInput', {
  subGraphs: ['admin'],
  fields: (t) => ({
    customer_id: t.string({ required: true, description: "The customer's id on the e-commerce platform" }),
    email: t.string({ required: true }),
    first_name: t.string(),
    last_name: t.string(),
    status: t.field({ type: CustomerStatusEnum, description: 'Default member' }),
    birthday: t.string({ description: 'YYYY-MM-DD' }),
    referral_code: t.string({ description: '4 to 32 upper-case letters or digits; generated when absent' }),
  }),
});

const CustomerPatch = builder.inputType('CustomerPatch', {
  subGraphs: ['admin'],
  description: 'Fields to change; the result is validated as a whole',
  fields: (t) => ({
    customer_id: t.string(),
    email: t.string(),
    first_name: t.string(),
    last_name: t.string(),
    status: t.field({ type: CustomerStatusEnum }),
    birthday: t.string({ description: 'YYYY-MM-DD' }),
    referral_code: t.string(),
  }),
});

/** The customer list's filters (both faces), checked as lookups are (domain/shared/fields.ts). */
const customerFilterArgs = builder.args((t) => ({
  customer_id: t.string(ruled(lookupRule, 'Only the customer with this platform id')),
  email: t.string(ruled(lookupRule, 'Only the customers with this email, ignoring the case of A-Z')),
}));

builder.queryFields((t) => {
  const CustomerList = listOf('Customer', CustomerRef);
  return {
    customers: t.field({
      subGraphs: ['public'],
      type: CustomerList,
      description: 'Customers, newest first; filter by customer_id or email. REST: GET /v1/customers',
      authScopes: { scope: 'read:customers' },
      args: { ...pageArgs, ...customerFilterArgs },
      resolve: async (_root, args, ctx, info) => {
        const plan = await planLinks(ctx, info, ['data']);
        const page = await listCustomers(ctx.db, ctx.merchantId, args, plan.parts);
        return { ...page, data: page.data.map((c) => withPlan(c, plan)) };
      },
    }),
    customer: t.field({
      subGraphs: ['public'],
      ...cachedByCustomer,
      ...forShoppers,
      type: resultOf('Customer', CustomerRef),
      description: 'One customer, by internal id (uuid) or platform id. REST: GET /v1/customers/{id}',
      authScopes: { scope: 'read:customers' },
      args: { id: t.arg.id({ required: true, ...ruled(lookupRule, 'Internal id (uuid) or platform id') }) },
      resolve: async (_root, args, ctx, info) => {
        const plan = await planLinks(ctx, info, ['data']);
        return { data: confineToViewer(ctx, withPlan(await customerProfile(ctx.db, ctx.merchantId, String(args.id), plan.parts), plan)) };
      },
    }),
    admin_customers: t.field({
      subGraphs: ['admin'],
      type: CustomerList,
      description: 'Customers, newest first; filter by customer_id or email',
      args: { ...pageArgs, ...customerFilterArgs },
      resolve: (_root, args, ctx) => listCustomers(ctx.db, ctx.merchantId, args),
    }),
    admin_customer: t.field({
      subGraphs: ['admin'],
      type: CustomerRef,
      description: 'One customer by internal id (uuid) or platform id',
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, args, ctx) => customerProfile(ctx.db, ctx.merchantId, String(args.id)),
    }),
  };
});

builder.mutationFields((t) => ({
  create_customer: t.field({
    subGraphs: ['admin'],
    type: CustomerRef,
    description: 'A customer_id, email or referral_code already used by another customer is 409 conflict',
    args: { input: t.arg({ type: CustomerInput, required: true }) },
    resolve: (_root, args, ctx) => createCustomer(ctx.db, ctx.merchantId, provided(args.input)),
  }),
  update_customer: t.field({
    subGraphs: ['admin'],
    type: CustomerRef,
    args: {
      id: t.arg.id({ required: true, description: 'Internal id or platform id' }),
      input: t.arg({ type: CustomerPatch, required: true }),
    },
    resolve: (_root, args, ctx) => updateCustomer(ctx.db, ctx.merchantId, String(args.id), provided(args.input)),
  }),
}));
