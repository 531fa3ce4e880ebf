// Customers: look up, create (a referral_code is generated when absent), update. Points
// never change here: balances move only through the ledger (events, adjustments).
import { type CustomerProfile, customerProfile, listCustomers } from '../../domain/customers/customer-records.js';
import { createCustomer, updateCustomer } from '../../domain/customers/customer-writes.js';
import { builder, listOf, pageArgs, provided } from './builder.js';
import { CustomerStatusEnum } from './enums.js';

const CustomerTierRef = builder.objectRef<NonNullable<CustomerProfile['tier']>>('CustomerTier').implement({
  fields: (t) => ({ id: t.exposeID('id'), name: t.exposeString('name') }),
});

export const CustomerRef = builder.objectRef<CustomerProfile>('Customer').implement({
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
    amount_spent: t.float({ resolve: (c) => Number(c.amountSpent) }),
    tier: t.expose('tier', { type: CustomerTierRef, nullable: true }),
    referral_code: t.exposeString('referralCode'),
    birthday: t.expose('birthday', { type: 'Date', nullable: true }),
    last_activity_at: t.expose('lastActivityAt', { type: 'DateTime', nullable: true }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const CustomerInput = builder.inputType('CustomerInput', {
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

builder.queryFields((t) => ({
  customers: t.field({
    type: listOf('Customer', CustomerRef),
    description: 'Customers, newest first; filter by customer_id or email',
    args: { ...pageArgs, customer_id: t.arg.string(), email: t.arg.string() },
    resolve: (_root, args, ctx) => listCustomers(ctx.db, ctx.merchantId, args),
  }),
  customer: t.field({
    type: CustomerRef,
    description: 'One customer by internal id (uuid) or platform id',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => customerProfile(ctx.db, ctx.merchantId, String(args.id)),
  }),
}));

builder.mutationFields((t) => ({
  create_customer: t.field({
    type: CustomerRef,
    description: 'A customer_id, email or referral_code already used by another customer is 409 conflict',
    args: { input: t.arg({ type: CustomerInput, required: true }) },
    resolve: (_root, args, ctx) => createCustomer(ctx.db, ctx.merchantId, provided(args.input)),
  }),
  update_customer: t.field({
    type: CustomerRef,
    args: { id: t.arg.id({ required: true, description: 'Internal id or platform id' }), input: t.arg({ type: CustomerPatch, required: true }) },
    resolve: (_root, args, ctx) => updateCustomer(ctx.db, ctx.merchantId, String(args.id), provided(args.input)),
  }),
}));
