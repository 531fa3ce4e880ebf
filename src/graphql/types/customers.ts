// Customers. Public: GET /customers, GET /customers/{id}, GET /customers/balance. Admin: look
// up, create (a referral_code is generated when absent), update. Points never change here:
// balances move only through the ledger (events, adjustments).

import type { ObjectFieldBuilder, ObjectRef } from '@pothos/core';
import type { Db } from '../../db/client.js';
import { confineToViewer, visibleCustomer } from '../../domain/access/customer-sessions.js';
import type { ScopeGrant } from '../../domain/access/scopes.js';
import { type CustomerProfile, customerProfile, listCustomers } from '../../domain/customers/customer-records.js';
import { createCustomer, updateCustomer } from '../../domain/customers/customer-writes.js';
import { findCustomerById } from '../../domain/customers/customers.js';
import { type Balance, balanceOf, balancesOf } from '../../domain/ledger/balances.js';
import type { Connection, CursorArgs, PageArgs, Paginated } from '../../domain/shared/pagination.js';
import { builder, type Context, forShoppers } from '../builder.js';
import { CustomerStatusEnum } from '../enums.js';
import { connectionOf, cursorArgs, listOf, pageArgs, provided, resultOf } from '../envelopes.js';
import { link } from '../links.js';
import { loaderName, loaderOf } from '../loaders.js';

/** `id`: how the admin API names one customer (its internal uuid or its platform id). */
export const customerIdArgs = builder.args((t) => ({
  id: t.id({ required: true, description: 'Internal id (uuid) or platform id' }),
}));

/** The internal id of the merchant's customer named by `id` (404 not_found otherwise). */
export async function customerUuid(ctx: Context, args: { id: string | number }): Promise<string> {
  return (await findCustomerById(ctx.db, ctx.merchantId, String(args.id))).id;
}

/** `customer_id` (platform id) or `email`: how public endpoints name one customer. */
export const customerRefArgs = builder.args((t) => ({
  customer_id: t.string({ description: "The customer's id on the e-commerce platform" }),
  email: t.string({ description: "The customer's email (when customer_id is not given)" }),
}));

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
    ...forShoppers,
    type: resultOf('Balance', BalanceRef),
    description: "A customer's points balance. REST: GET /v1/customers/balance",
    authScopes: { scope: 'read:customers' },
    args: customerRefArgs,
    resolve: async (_root, args, ctx) => {
      const customer = await visibleCustomer(ctx.db, ctx, args);
      return { data: await balanceOf(ctx.db, customer) };
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

// A plain object type: the domain loads each customer with its tier in the same query.
export const CustomerRef = builder.objectRef<CustomerProfile>('Customer').implement({
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
    tier: t.expose('tier', { type: CustomerTierRef, nullable: true }),
    referral_code: t.exposeString('referralCode'),
    birthday: t.expose('birthday', { type: 'Date', nullable: true }),
    last_activity_at: t.expose('lastActivityAt', { subGraphs: ['admin'], type: 'DateTime', nullable: true }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

/**
 * The resolver of a customer's link `name`: `read` answers for every customer the request
 * reaches at once (one batch per link and arguments), in their order.
 */
export function perCustomer<A extends object, V>(
  name: string,
  read: (ctx: Context, customers: readonly CustomerProfile[], args: A) => Promise<V[]>,
) {
  return (customer: CustomerProfile, args: A, ctx: Context) =>
    loaderOf(
      ctx,
      loaderName(name, args),
      (cs: readonly CustomerProfile[]) => read(ctx, cs, args),
      (c) => c.id,
    ).load(customer);
}

/** The internal ids of customers, for the domain's batch reads. */
export const idsOf = (customers: readonly CustomerProfile[]) => customers.map((c) => c.id);

type BatchRead<A, V> = (db: Db, merchantId: string, customerIds: readonly string[], args: A) => Promise<V[]>;
type FieldBuilder = ObjectFieldBuilder<typeof builder.$inferSchemaTypes, CustomerProfile>;

/** A list of a customer's records, as a link: its field name, its item type and its REST twin's scope. */
interface LinkedList<T> {
  name: string;
  typeName: string;
  item: ObjectRef<typeof builder.$inferSchemaTypes, T>;
  scope: ScopeGrant;
}

/** A customer's list as a link with its REST twin's page arguments and page type (`<typeName>List`). */
export function pageLink<T>(
  t: FieldBuilder,
  list: LinkedList<T> & {
    description: string;
    pages: (ctx: Context, customers: readonly CustomerProfile[], args: PageArgs) => Promise<Paginated<T>[]>;
  },
) {
  return t.field({
    ...link(list.scope),
    type: listOf(list.typeName, list.item),
    description: list.description,
    args: pageArgs,
    resolve: perCustomer(list.name, list.pages),
  });
}

/**
 * A list a storefront scrolls (activities, transactions) as two links: `name` by page, as its
 * REST twin answers it, and `<name>_connection` by cursor (Relay `first`/`after`).
 */
export function scrollableLinks<T>(
  t: FieldBuilder,
  list: LinkedList<T> & {
    /** What the list is, and its REST twin. */
    what: string;
    twin: string;
    pages: BatchRead<PageArgs, Paginated<T>>;
    connections: BatchRead<CursorArgs, Connection<T>>;
  },
) {
  return {
    [list.name]: pageLink(t, {
      ...list,
      description: `${list.what}, newest first, as ${list.twin}`,
      pages: (ctx, cs, args) => list.pages(ctx.db, ctx.merchantId, idsOf(cs), args),
    }),
    [`${list.name}_connection`]: connectionLink(t, {
      ...list,
      description: `${list.what} as a Relay connection, newest first: scroll with first/after`,
      connections: (ctx, cs, args) => list.connections(ctx.db, ctx.merchantId, idsOf(cs), args),
    }),
  };
}

/** A customer's list as a Relay connection (`first`/`after`, keyset cursors): `<typeName>Connection`. */
export function connectionLink<T>(
  t: FieldBuilder,
  list: LinkedList<T> & {
    description: string;
    connections: (ctx: Context, customers: readonly CustomerProfile[], args: CursorArgs) => Promise<Connection<T>[]>;
  },
) {
  return t.field({
    ...link(list.scope),
    type: connectionOf(list.typeName, list.item),
    description: list.description,
    args: cursorArgs,
    resolve: perCustomer(`${list.name}_connection`, list.connections),
  });
}

builder.objectFields(CustomerRef, (t) => ({
  balance: t.field({
    ...link('read:customers'),
    type: BalanceRef,
    description: 'The points balance, as GET /v1/customers/balance',
    resolve: perCustomer('balance', (ctx, cs) => balancesOf(ctx.db, cs)),
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

builder.queryFields((t) => {
  const CustomerList = listOf('Customer', CustomerRef);
  return {
    customers: t.field({
      subGraphs: ['public'],
      type: CustomerList,
      description: 'Customers, newest first; filter by customer_id or email. REST: GET /v1/customers',
      authScopes: { scope: 'read:customers' },
      args: {
        ...pageArgs,
        customer_id: t.arg.string({ description: 'Only the customer with this platform id' }),
        email: t.arg.string({ description: 'Only the customer with this email (case-insensitive)' }),
      },
      resolve: (_root, args, ctx) => listCustomers(ctx.db, ctx.merchantId, args),
    }),
    customer: t.field({
      subGraphs: ['public'],
      ...forShoppers,
      type: resultOf('Customer', CustomerRef),
      description: 'One customer, by internal id (uuid) or platform id. REST: GET /v1/customers/{id}',
      authScopes: { scope: 'read:customers' },
      args: { id: t.arg.id({ required: true, description: 'Internal id (uuid) or platform id' }) },
      resolve: async (_root, args, ctx) => ({
        data: confineToViewer(ctx, await customerProfile(ctx.db, ctx.merchantId, String(args.id))),
      }),
    }),
    admin_customers: t.field({
      subGraphs: ['admin'],
      type: CustomerList,
      description: 'Customers, newest first; filter by customer_id or email',
      args: { ...pageArgs, customer_id: t.arg.string(), email: t.arg.string() },
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
