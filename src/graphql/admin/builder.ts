// The Pothos builder of the merchant admin schema (/admin/graphql). A separate schema from
// the public one, never exposed as REST: the merchant's admin token grants everything, so
// there are no scopes, only the merchant every resolver is bound to.
import SchemaBuilder from '@pothos/core';
import { Kind, type ValueNode, valueFromASTUntyped } from 'graphql';
import type { Db } from '../../db/client.js';
import { dateScalar, dateTimeScalar, envelopes } from '../envelopes.js';

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

builder.scalarType('DateTime', dateTimeScalar);
builder.scalarType('Date', dateScalar);

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

export const { listOf, pageArgs } = envelopes(builder);

/** An input object's fields without the ones the client left out (GraphQL gives no key for them). */
export function provided<T extends object>(input: T): T {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as T;
}
