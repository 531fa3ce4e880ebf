// A customer's links to its records (the graph: activities, transactions, rewards, tiers,
// referrals...): one batched read per link for every customer a request reaches, by page as
// its REST twin answers, or as a Relay connection. Each resource's file declares its links on
// Customer with these.
import type { ObjectFieldBuilder, ObjectRef } from '@pothos/core';
import type { Db } from '../db/client.js';
import type { ScopeGrant } from '../domain/access/scopes.js';
import type { CustomerProfile } from '../domain/customers/customer-records.js';
import type { Connection, CursorArgs, PageArgs, Paginated } from '../domain/shared/pagination.js';
import type { builder, Context } from './builder.js';
import { connectionOf, cursorArgs, listOf, pageArgs } from './envelopes.js';
import { link } from './links.js';
import { loaderName, loaderOf } from './loaders.js';

/**
 * The resolver of a customer's link `name`: `read` answers for every customer the request
 * reaches at once (one batch per link and arguments), in their order; an Error in its answer
 * fails that customer's link alone.
 */
export function perCustomer<A extends object, V>(
  name: string,
  read: (ctx: Context, customers: readonly CustomerProfile[], args: A) => Promise<(V | Error)[]>,
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
 * REST twin answers it, and `<name>_connection` by cursor (Relay `first`/`after`, `last`/`before`).
 */
export function scrollableLinks<T>(
  t: FieldBuilder,
  list: LinkedList<T> & {
    /** What the list is, and its REST twin. */
    what: string;
    twin: string;
    pages: BatchRead<PageArgs, Paginated<T>>;
    connections: BatchRead<CursorArgs, Connection<T> | Error>;
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
      description: `${list.what} as a Relay connection, newest first: scroll down with first/after, up with last/before`,
      connections: (ctx, cs, args) => list.connections(ctx.db, ctx.merchantId, idsOf(cs), args),
    }),
  };
}

/** A customer's list as a Relay connection (keyset cursors): `<typeName>Connection`. */
export function connectionLink<T>(
  t: FieldBuilder,
  list: LinkedList<T> & {
    description: string;
    connections: (ctx: Context, customers: readonly CustomerProfile[], args: CursorArgs) => Promise<(Connection<T> | Error)[]>;
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
