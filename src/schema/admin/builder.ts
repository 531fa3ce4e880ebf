// The Pothos builder of the merchant admin schema (/admin/graphql). A separate schema from
// the public one, never exposed as REST: the merchant's admin token grants everything, so
// there are no scopes, only the merchant every resolver is bound to.
import SchemaBuilder, { type ObjectRef } from '@pothos/core';
import { GraphQLError, Kind, type ValueNode, valueFromASTUntyped } from 'graphql';
import type { Db } from '../../db/client.js';
import type { Paginated, PaginationMeta } from '../../domain/pagination.js';

export interface AdminContext {
  db: Db;
  merchantId: string;
}

type AdminTypes = {
  Context: AdminContext;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    Date: { Input: Date; Output: Date };
    JSON: { Input: unknown; Output: unknown };
  };
  DefaultFieldNullability: false;
};

// The public schema's plugins declare their (required) options on every builder's type;
// this builder loads no plugin, so it has none of those options.
export const builder = new SchemaBuilder<AdminTypes>({
  defaultFieldNullability: false,
} as ConstructorParameters<typeof SchemaBuilder<AdminTypes>>[0]);

builder.queryType({});
builder.mutationType({});

builder.scalarType('DateTime', {
  description: 'An ISO 8601 UTC timestamp, e.g. 2026-11-21T08:30:00.000Z',
  serialize: (value) => value.toISOString(),
  parseValue: (value) => {
    const date = new Date(String(value));
    if (typeof value !== 'string' || Number.isNaN(date.getTime())) {
      throw new GraphQLError('DateTime must be an ISO 8601 string');
    }
    return date;
  },
});

builder.scalarType('Date', {
  description: 'A calendar date, YYYY-MM-DD',
  serialize: (value) => value.toISOString().slice(0, 10),
  parseValue: (value) => {
    if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value))) {
      throw new GraphQLError('Date must be YYYY-MM-DD');
    }
    return new Date(`${value}T00:00:00.000Z`);
  },
});

// Nested configuration (reward_rule, earning_rule, conditions) travels as JSON and is
// validated by the shared zod shapes, which report every failing field in `details`.
builder.scalarType('JSON', {
  description: 'A JSON value; its shape is validated by the field that takes it',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (node: ValueNode, variables) => {
    if (node.kind === Kind.VARIABLE) return variables?.[node.name.value];
    return valueFromASTUntyped(node, variables);
  },
});

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

/** `<Name>List`: a page of `item`, as in the public schema. */
export function listOf<T>(name: string, item: ObjectRef<any, T>) {
  return builder.objectRef<Paginated<T>>(`${name}List`).implement({
    description: `A page of ${name} records`,
    fields: (t) => ({
      data: t.expose('data', { type: [item] }),
      meta: t.expose('meta', { type: PageMeta }),
    }),
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
