// What the resources' root fields share: the list and single-record envelopes
// ({ data, meta: { pagination } } and { data }, spec 2.4), the page arguments, and how an
// admin input drops the fields the client left out.
import type { ObjectRef } from '@pothos/core';
import type { Paginated, PaginationMeta } from '../domain/shared/pagination.js';
import { builder } from './builder.js';

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

/** `page` / `per_page` (defaults 1 and 20; per_page 1 to 100), validated in domain/pagination. */
export const pageArgs = builder.args((t) => ({
  page: t.int({ description: 'Page number, from 1 (default 1)' }),
  per_page: t.int({ description: 'Records per page, 1 to 100 (default 20)' }),
}));

/** An input object's fields without the ones the client left out (GraphQL gives no key for them). */
export function provided<T extends object>(input: T): T {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as T;
}
