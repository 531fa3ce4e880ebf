// A customer's links to its records (the graph: balance, tier status, activities, transactions,
// codes, tiers, referrals...). Each link gives the part it reads beside its customer; the field
// that found the customer has read every selected link with it (customer-plan.ts). A link its
// customer was not read with reads, with the same link of every other such customer the request
// reaches, in one statement. By page as its REST twin answers, or as a Relay connection. Each
// resource's file declares its links on Customer with these.
import type { ObjectFieldBuilder, ObjectRef } from '@pothos/core';
import type { GraphQLResolveInfo } from 'graphql';
import type { ScopeGrant } from '../domain/access/scopes.js';
import { type CustomerList, type CustomerPart, partsOf } from '../domain/customers/customer-parts.js';
import type { CustomerProfile } from '../domain/customers/customer-records.js';
import type { AppError } from '../domain/shared/errors.js';
import { type MaybePromise, whenReady } from '../domain/shared/maybe-promise.js';
import type { Connection, CursorArgs, PageArgs, Paginated } from '../domain/shared/pagination.js';
import type { builder, Context } from './builder.js';
import { type CustomerLink, type LinkNeeds, plannedLink, programOf, registerLink, selectsTotal } from './customer-plan.js';
import { connectionOf, cursorArgs, listOf, pageArgs } from './envelopes.js';
import { link } from './links.js';
import { loaderName, loaderOf } from './loaders.js';

/** A link's definition: as the plan reads it (customer-plan.ts), typed by its arguments and value. */
type LinkDefinition<A, V> = Omit<CustomerLink, 'part'> & {
  part: (ctx: Context, args: A, needs: LinkNeeds) => CustomerPart<V | AppError>;
};

/**
 * Customer's link `name`: its options for `t.field` (sub-graph, nullability, its REST twin's
 * scope) and its resolver, which answers from what the customer was read with when it can.
 */
export function customerLink<A extends object, V>(name: string, definition: LinkDefinition<A, V>) {
  const read = definition as unknown as CustomerLink;
  registerLink(name, read);
  return {
    ...link(read.scope),
    resolve: (customer: CustomerProfile, args: A, ctx: Context, info: GraphQLResolveInfo): MaybePromise<V> => {
      const planned = plannedLink(customer, info.path.key as string);
      if (planned instanceof Error) throw planned;
      return (
        planned !== undefined ? planned : readAlone(ctx, name, read, customer, args as Record<string, unknown>, info)
      ) as MaybePromise<V>;
    },
  };
}

/** A link of a customer read without its customer: in one batch with the same link of every customer the request reaches. */
function readAlone(
  ctx: Context,
  name: string,
  read: CustomerLink,
  customer: CustomerProfile,
  args: Record<string, unknown>,
  info: GraphQLResolveInfo,
) {
  const total = selectsTotal(info, read);
  return whenReady(read.usesProgram ? programOf(ctx) : undefined, async (program) => {
    const part = read.part(ctx, args, { total, program, now: new Date() });
    return loaderOf(
      ctx,
      loaderName(name, { ...args, total }),
      async (cs: readonly CustomerProfile[]) => (await partsOf(ctx.db, cs, [part])).map(([value]) => value),
      (c) => c.id,
    ).load(customer);
  });
}

type FieldBuilder = ObjectFieldBuilder<typeof builder.$inferSchemaTypes, CustomerProfile>;

/** A list of a customer's records, as a link: its field name, its item type, its REST twin's scope and how it is read. */
interface LinkedList<T> {
  name: string;
  typeName: string;
  item: ObjectRef<typeof builder.$inferSchemaTypes, T>;
  scope: ScopeGrant;
  rows: CustomerList<T>;
}

/** A customer's list as a link with its REST twin's page arguments and page type (`<typeName>List`). */
export function pageLink<T>(t: FieldBuilder, list: LinkedList<T> & { description: string }) {
  return t.field({
    ...customerLink<PageArgs, Paginated<T>>(list.name, {
      scope: list.scope,
      totalField: 'meta',
      items: ['data'],
      part: (ctx, args, needs) => list.rows.page(ctx.merchantId, args, needs),
    }),
    type: listOf(list.typeName, list.item),
    description: list.description,
    args: pageArgs,
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
  },
) {
  return {
    [list.name]: pageLink(t, { ...list, description: `${list.what}, newest first, as ${list.twin}` }),
    [`${list.name}_connection`]: connectionLink(t, {
      ...list,
      description: `${list.what} as a Relay connection, newest first: scroll down with first/after, up with last/before`,
    }),
  };
}

/** A customer's list as a Relay connection (keyset cursors): `<typeName>Connection`. */
export function connectionLink<T>(t: FieldBuilder, list: LinkedList<T> & { description: string }) {
  return t.field({
    ...customerLink<CursorArgs, Connection<T>>(`${list.name}_connection`, {
      scope: list.scope,
      totalField: 'total_count',
      items: ['edges', 'node'],
      part: (ctx, args, needs) => list.rows.connection(ctx.merchantId, args, needs),
    }),
    type: connectionOf(list.typeName, list.item),
    description: list.description,
    args: cursorArgs,
  });
}
