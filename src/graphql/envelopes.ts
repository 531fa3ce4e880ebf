// What the resources' root fields share: the list and single-record envelopes
// ({ data, meta: { pagination } } and { data }, spec 2.4), the page arguments, and how an
// admin input drops the fields the client left out.
import type { ObjectRef } from '@pothos/core';
import { type Connection, type Paginated, type PaginationMeta, pageRules } from '../domain/shared/pagination.js';
import { builder } from './builder.js';
import { ruled } from './rules.js';

type Ref<T> = ObjectRef<typeof builder.$inferSchemaTypes, T>;

// Envelopes belong to both faces: a face shows those its root fields return.
const Pagination = builder.objectRef<PaginationMeta>('Pagination').implement({
  subGraphs: ['public', 'admin'],
  fields: (t) => ({
    current_page: t.exposeInt('current_page'),
    per_page: t.exposeInt('per_page'),
    total: t.exposeInt('total'),
    last_page: t.exposeInt('last_page'),
    has_more: t.exposeBoolean('has_more'),
  }),
});

const PageMeta = builder.objectRef<{ pagination: PaginationMeta }>('PageMeta').implement({
  subGraphs: ['public', 'admin'],
  fields: (t) => ({ pagination: t.expose('pagination', { type: Pagination }) }),
});

const lists = new Map<string, unknown>();

/** `<Name>List`: a page of `item` (one type per name: a root field and a link share it). */
export function listOf<T>(name: string, item: Ref<T>) {
  const declared = lists.get(name) as Ref<Paginated<T>> | undefined;
  if (declared) return declared;
  const list = builder.objectRef<Paginated<T>>(`${name}List`).implement({
    subGraphs: ['public', 'admin'],
    description: `A page of ${name} records`,
    fields: (t) => ({
      data: t.expose('data', { type: [item] }),
      meta: t.expose('meta', { type: PageMeta }),
    }),
  });
  lists.set(name, list);
  return list;
}

/** `<Name>Result`: a single record, as `{ data }`. */
export function resultOf<T>(name: string, item: Ref<T>) {
  return builder.objectRef<{ data: T }>(`${name}Result`).implement({
    subGraphs: ['public', 'admin'],
    fields: (t) => ({ data: t.expose('data', { type: item }) }),
  });
}

/** `page` / `per_page`, as domain/pagination checks them. */
export const pageArgs = builder.args((t) => ({
  page: t.int(ruled(pageRules.page, 'Page number')),
  per_page: t.int(ruled(pageRules.per_page, 'Records per page')),
}));

/** An input object's fields without the ones the client left out (GraphQL gives no key for them). */
export function provided<T extends object>(input: T): T {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as T;
}

// Relay connections, for the graph's scrolling lists (Customer.activities_connection...). They
// follow the Relay Cursor Connections spec (edges, node, cursor, pageInfo with hasNextPage,
// hasPreviousPage, startCursor, endCursor; first/after and last/before) so that Relay-aware
// clients page them as they are; they are graph-only types.
const PageInfo = builder.objectRef<Connection<unknown>['pageInfo']>('PageInfo').implement({
  subGraphs: ['graph'],
  fields: (t) => ({
    hasNextPage: t.exposeBoolean('hasNextPage', {
      description: 'More rows past endCursor: with first, whether it held them back; with before, whether the list goes on there',
    }),
    hasPreviousPage: t.exposeBoolean('hasPreviousPage', {
      description: 'More rows before startCursor: with last, whether it held them back; with after, whether the list goes on there',
    }),
    startCursor: t.exposeString('startCursor', { nullable: true, description: 'Pass as `before` for the rows before these' }),
    endCursor: t.exposeString('endCursor', { nullable: true, description: 'Pass as `after` for the next rows' }),
  }),
});

/** `<Name>Connection`: a window of a list, each row an edge with its cursor. */
export function connectionOf<T>(name: string, item: Ref<T>) {
  const Edge = builder.objectRef<Connection<T>['edges'][number]>(`${name}Edge`).implement({
    subGraphs: ['graph'],
    fields: (t) => ({
      cursor: t.exposeString('cursor'),
      node: t.expose('node', { type: item }),
    }),
  });
  return builder.objectRef<Connection<T>>(`${name}Connection`).implement({
    subGraphs: ['graph'],
    description: `${name} records between cursors (Relay connection)`,
    fields: (t) => ({
      edges: t.expose('edges', { type: [Edge] }),
      pageInfo: t.expose('pageInfo', { type: PageInfo }),
      total_count: t.exposeInt('total', { description: 'All the records of the list, whatever the cursor' }),
    }),
  });
}

/** A connection's window, validated in domain/pagination: `first` or `last` (1 to 100, default first 20), `after`, `before`. */
export const cursorArgs = builder.args((t) => ({
  first: t.int({ description: 'The first rows (after `after`), 1 to 100 (default 20 when `last` is absent); not with `last`' }),
  after: t.string({ description: 'The endCursor of the previous rows: only the rows after it; absent: from the top of the list' }),
  last: t.int({ description: 'The last rows (before `before`), 1 to 100; not with `first`' }),
  before: t.string({ description: 'The startCursor of the following rows: only the rows before it; absent: up from the end of the list' }),
}));
