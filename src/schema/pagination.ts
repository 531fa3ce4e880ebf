// The list envelope of every public list: { data: [...], meta: { pagination } } (spec 2.4).
import type { ObjectRef } from '@pothos/core';
import type { Paginated, PaginationMeta } from '../domain/pagination.js';
import { builder } from './builder.js';

const Pagination = builder.objectRef<PaginationMeta>('Pagination').implement({
  fields: (t) => ({
    current_page: t.exposeInt('current_page'),
    per_page: t.exposeInt('per_page'),
    total: t.exposeInt('total'),
    last_page: t.exposeInt('last_page'),
    has_more: t.exposeBoolean('has_more'),
  }),
});

const PageMeta = builder.objectRef<{ pagination: PaginationMeta }>('PageMeta').implement({
  fields: (t) => ({ pagination: t.expose('pagination', { type: Pagination }) }),
});

/** `<Name>List`: a page of `item`. */
export function listOf<T>(name: string, item: ObjectRef<any, T>) {
  return builder.objectRef<Paginated<T>>(`${name}List`).implement({
    description: `A page of ${name} records`,
    fields: (t) => ({
      data: t.expose('data', { type: [item] }),
      meta: t.expose('meta', { type: PageMeta }),
    }),
  });
}

/** `<Name>Result`: a single record, as `{ data }`. */
export function resultOf<T>(name: string, item: ObjectRef<any, T>) {
  return builder.objectRef<{ data: T }>(`${name}Result`).implement({
    fields: (t) => ({ data: t.expose('data', { type: item }) }),
  });
}

/** `page` / `per_page` arguments (defaults 1 and 20; per_page 1 to 100), validated in domain/pagination. */
export const pageArgs = builder.args((t) => ({
  page: t.int({ description: 'Page number, from 1 (default 1)' }),
  per_page: t.int({ description: 'Records per page, 1 to 100 (default 20)' }),
}));
