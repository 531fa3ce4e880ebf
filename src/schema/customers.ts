// Customers: GET /customers, GET /customers/{id}, GET /customers/balance.
import { type Balance, balanceOf } from '../domain/ledger/balances.js';
import { type CustomerProfile, customerProfile, listCustomers } from '../domain/customers/customer-records.js';
import { findCustomer } from '../domain/customers/customers.js';
import { builder } from './builder.js';
import { CustomerStatusEnum } from './enums.js';
import { listOf, pageArgs, resultOf } from './pagination.js';

/** `customer_id` (platform id) or `email`: how public endpoints name one customer. */
export const customerRefArgs = builder.args((t) => ({
  customer_id: t.string({ description: "The customer's id on the e-commerce platform" }),
  email: t.string({ description: "The customer's email (when customer_id is not given)" }),
}));

const NextExpiry = builder.objectRef<NonNullable<Balance['next_expiry']>>('PointsExpiry').implement({
  fields: (t) => ({
    points: t.exposeInt('points'),
    expires_at: t.expose('expires_at', { type: 'DateTime' }),
  }),
});

const BalanceRef = builder.objectRef<Balance>('Balance').implement({
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
    type: resultOf('Balance', BalanceRef),
    description: "A customer's points balance. REST: GET /v1/customers/balance",
    authScopes: { scope: 'read:customers' },
    args: customerRefArgs,
    resolve: async (_root, args, ctx) => {
      const customer = await findCustomer(ctx.db, ctx.principal.merchantId, args);
      return { data: await balanceOf(ctx.db, customer) };
    },
  }),
}));

const CustomerTierRef = builder.objectRef<NonNullable<CustomerProfile['tier']>>('CustomerTier').implement({
  description: "The customer's current VIP tier",
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
  }),
});

// A plain object type: the domain loads each customer with its tier in the same query.
const CustomerRef = builder.objectRef<CustomerProfile>('Customer').implement({
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
    tier: t.expose('tier', { type: CustomerTierRef, nullable: true }),
    referral_code: t.exposeString('referralCode'),
    birthday: t.expose('birthday', { type: 'Date', nullable: true }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  customers: t.field({
    type: listOf('Customer', CustomerRef),
    description: 'Customers, newest first; filter by customer_id or email. REST: GET /v1/customers',
    authScopes: { scope: 'read:customers' },
    args: {
      ...pageArgs,
      customer_id: t.arg.string({ description: "Only the customer with this platform id" }),
      email: t.arg.string({ description: 'Only the customer with this email (case-insensitive)' }),
    },
    resolve: (_root, args, ctx) => listCustomers(ctx.db, ctx.principal.merchantId, args),
  }),
  customer: t.field({
    type: resultOf('Customer', CustomerRef),
    description: 'One customer, by internal id (uuid) or platform id. REST: GET /v1/customers/{id}',
    authScopes: { scope: 'read:customers' },
    args: { id: t.arg.id({ required: true, description: 'Internal id (uuid) or platform id' }) },
    resolve: async (_root, args, ctx) => ({
      data: await customerProfile(ctx.db, ctx.principal.merchantId, String(args.id)),
    }),
  }),
}));
