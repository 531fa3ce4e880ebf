// The one mapping between the API's field names (snake_case: inputs as validated, outputs as
// named) and the model's (Prisma's camelCase fields). A field converts by its name, so a new
// one is added to the Prisma schema, the zod input and the GraphQL type, nowhere else; a name
// that differs on purpose is an explicit rename, and a value stored in another form (a date
// string as a Date, JSON null) is an explicit override at the caller.
import type { z } from 'zod';
import { type CamelCase, camelCase, type SnakeCase, snakeCase } from '../../db/names.js';
import { Prisma } from '../../generated/prisma/client.js';
import type { Patch } from './records.js';

/** A record's identity and insertion time: a create or an import sets them, never an input's data. */
type Identity = 'id' | 'created_at';
const IDENTITY: ReadonlySet<string> = new Set<Identity>(['id', 'created_at']);

/** API name → model field, for the names that differ on purpose. */
type Renames = Readonly<Record<string, string>>;
type NoRenames = Readonly<Record<never, string>>;
type ModelName<K extends string, R extends Renames> = K extends keyof R ? R[K] : CamelCase<K>;
type DataKeys<I> = Exclude<keyof I & string, Identity>;

/** An absent optional field is its nullable column's null: a row is whole (drafts, imports). */
type Stored<V> = undefined extends V ? Exclude<V, undefined> | null : V;

/** An input's data under the model's names. */
export type ModelData<I, R extends Renames = NoRenames> = { [K in DataKeys<I> as ModelName<K, R>]-?: Stored<I[K]> };
/** The model fields an input's data comes from (what a stored row must have to be patched). */
export type ModelFields<I, R extends Renames = NoRenames> = { [K in DataKeys<I> as ModelName<K, R>]: unknown };

/** A stored value as a JSON API sends it: a time as its ISO string, a decimal as a number. */
function asSent(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Prisma.Decimal.isDecimal(value)) return Number(value);
  return value;
}

/**
 * A resource's mapping, from its zod input (the API's names) and the names it renames:
 * `data(input)` is the model's data for a validated input, `input(row)` a stored row as the
 * input it would be sent as (what an update's patch is merged onto).
 */
export function fieldMapping<S extends z.ZodObject, const R extends Renames = NoRenames>(schema: S, renames: R = {} as NoRenames as R) {
  type I = z.output<S>;
  const pairs = Object.keys(schema.shape)
    .filter((api) => !IDENTITY.has(api))
    .map((api) => [api, renames[api] ?? camelCase(api)] as const);
  return {
    data(input: I): ModelData<I, R> {
      const data: Record<string, unknown> = {};
      for (const [api, model] of pairs) data[model] = (input as Record<string, unknown>)[api] ?? null;
      return data as ModelData<I, R>;
    },
    input(row: ModelFields<I, R>): Patch {
      const input: Patch = {};
      for (const [api, model] of pairs) input[api] = asSent((row as Record<string, unknown>)[model]);
      return input;
    },
  };
}

/**
 * The listed fields of a row, in that order, under the API's names: for the views other callers
 * than GraphQL print (the CLI). A field is shown only once it is listed, so a column added later
 * (a secret, a hash) stays out until someone decides to show it.
 */
export function apiFields<T extends object, const K extends keyof T & string>(
  row: T,
  fields: readonly K[],
): { [P in K as SnakeCase<P>]: T[P] } {
  const out: Record<string, unknown> = {};
  for (const field of fields) out[snakeCase(field)] = row[field];
  return out as never;
}
