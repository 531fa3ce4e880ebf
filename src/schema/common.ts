// What the public and the admin schemas share: the timestamp scalars and the list and
// single-record envelopes ({ data, meta: { pagination } } and { data }, spec 2.4).
import type { ObjectRef, SchemaTypes } from '@pothos/core';
import { GraphQLError } from 'graphql';
import type { Paginated, PaginationMeta } from '../domain/shared/pagination.js';

export const dateTimeScalar = {
  description: 'An ISO 8601 UTC timestamp, e.g. 2026-11-21T08:30:00.000Z',
  serialize: (value: Date) => value.toISOString(),
  parseValue: (value: unknown) => {
    const date = new Date(String(value));
    if (typeof value !== 'string' || Number.isNaN(date.getTime())) {
      throw new GraphQLError('DateTime must be an ISO 8601 string');
    }
    return date;
  },
};

export const dateScalar = {
  description: 'A calendar date, YYYY-MM-DD',
  serialize: (value: Date) => value.toISOString().slice(0, 10),
  parseValue: (value: unknown) => {
    if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value))) {
      throw new GraphQLError('Date must be YYYY-MM-DD');
    }
    return new Date(`${value}T00:00:00.000Z`);
  },
};

/** The envelope types and `page` / `per_page` arguments, defined on `builder`. */
export function envelopes<Types extends SchemaTypes>(typed: PothosSchemaTypes.SchemaBuilder<Types>) {
  // Pothos cannot check exposed field names against a builder whose types are generic here;
  // the shapes are fixed by PaginationMeta and Paginated<T>, and the return types are typed.
  const builder = typed as unknown as PothosSchemaTypes.SchemaBuilder<SchemaTypes & { DefaultFieldNullability: false }>;
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

  return {
    /** `<Name>List`: a page of `item`. */
    listOf<T>(name: string, item: ObjectRef<Types, T>): ObjectRef<Types, Paginated<T>> {
      return builder.objectRef<Paginated<T>>(`${name}List`).implement({
        description: `A page of ${name} records`,
        fields: (t) => ({
          data: t.expose('data', { type: [item as unknown as ObjectRef<SchemaTypes, T>] } as never),
          meta: t.expose('meta', { type: PageMeta }),
        }),
      }) as never;
    },

    /** `<Name>Result`: a single record, as `{ data }`. */
    resultOf<T>(name: string, item: ObjectRef<Types, T>): ObjectRef<Types, { data: T }> {
      return builder.objectRef<{ data: T }>(`${name}Result`).implement({
        fields: (t) => ({ data: t.expose('data', { type: item as unknown as ObjectRef<SchemaTypes, T> } as never) }),
      }) as never;
    },

    /** `page` / `per_page` (defaults 1 and 20; per_page 1 to 100), validated in domain/pagination. */
    pageArgs: typed.args((t) => ({
      page: t.int({ description: 'Page number, from 1 (default 1)' }),
      per_page: t.int({ description: 'Records per page, 1 to 100 (default 20)' }),
    })),
  };
}
