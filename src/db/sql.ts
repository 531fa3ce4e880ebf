// Hot reads run their SQL on the pool under Prisma directly: per statement, the pg driver costs
// a third of the CPU of a Prisma model query and under half of `$queryRaw` (measured by
// bench/profile.ts), and the request path is CPU-bound. Same pool, same connections, same database;
// writes and transactions stay with Prisma. A client without a registered pool (a transaction's)
// runs the same statement through `$queryRaw`.
import pg from 'pg';
import { getDatamodel } from '../generated/pothos-types.js';
import { Prisma } from '../generated/prisma/client.js';
import { tracedQuery } from '../observability/tracing.js';
import { snakeCase } from './names.js';
import { type Pipeline, pipelineOn } from './pipeline.js';

type Queryable = { $queryRaw<T>(query: Prisma.Sql): Prisma.PrismaPromise<T> };

const pools = new WeakMap<object, { prepared: boolean; send: Pipeline }>();

/**
 * `prepared`: send each statement by name, so every connection parses it once (see nameOf);
 * `pipelined`: the statements of one turn share connections (src/db/pipeline.ts).
 */
export function registerPool(db: object, pool: pg.Pool, { prepared = false, pipelined = false } = {}) {
  pools.set(db, { prepared, send: pipelined ? pipelineOn(pool) : pool });
}

// What Prisma answers for DATE, not the driver's default: midnight UTC (the driver would take
// local midnight). Unlike Prisma, int8 and numeric come as text: statements cast counts to int,
// and readers take Number() of ordinals and decimals, which serves both paths.
const DATE_OID = 1082;
const TIMESTAMPTZ_OID = 1184;
const parseTimestamptz = pg.types.getTypeParser(TIMESTAMPTZ_OID) as (value: string) => Date;

/** The number written in `s` from `from` to `to` (ASCII digits, as PostgreSQL prints them). */
function digits(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) n = n * 10 + s.charCodeAt(i) - 48;
  return n;
}

/**
 * `2026-11-24 04:11:17.123456+00` (a session in UTC, DateStyle ISO) read digit by digit into
 * `Date.UTC`, milliseconds truncated as `Date` parses them: the driver's parser runs a regular
 * expression per value (a match array and nine strings), and rebuilding the ISO string for
 * `Date` made three strings a value, a tenth of a customers page's garbage. Anything else (years before 100, which `Date.UTC` reads as 19xx; BC; infinity)
 * goes to the driver's parser.
 */
function timestamptz(value: string): Date {
  const end = value.length - 3;
  if (end < 19 || value[4] !== '-' || value[10] !== ' ' || !value.endsWith('+00')) return parseTimestamptz(value);
  const year = digits(value, 0, 4);
  if (year < 100) return parseTimestamptz(value);
  // the fraction's first three digits, if any (".5" is 500 ms)
  let ms = 0;
  for (let i = 20; i < 23; i++) ms = ms * 10 + (i < end ? value.charCodeAt(i) - 48 : 0);
  return new Date(
    Date.UTC(year, digits(value, 5, 7) - 1, digits(value, 8, 10), digits(value, 11, 13), digits(value, 14, 16), digits(value, 17, 19), ms),
  );
}

const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === DATE_OID
      ? (value: string) => new Date(`${value}T00:00:00Z`)
      : oid === TIMESTAMPTZ_OID
        ? timestamptz
        : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * A prepared statement's name for each statement text: a connection parses and analyses a named
 * statement once and keeps it (pg remembers which it has), where an unnamed one is parsed on every
 * request; the planner still chooses custom or generic plans as it does for any prepared
 * statement. The hot paths, ours and Prisma's (src/db/client.ts), send a hundred-odd texts; the
 * first MAX_NAMED get names, so the statements a connection keeps are bounded whatever texts come
 * later (those go unnamed).
 */
const names = new Map<string, string>();
const MAX_NAMED = 250;
export function nameOf(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED) names.set(text, (name = `loyalty_${names.size}`));
  return name;
}

/** The rows of one statement, on the pool directly when `db` has one. */
export async function rowsOf<T>(db: Queryable, statement: Prisma.Sql): Promise<T[]> {
  const on = pools.get(db);
  if (!on) return db.$queryRaw<T[]>(statement);
  const text = statement.text;
  const name = on.prepared ? nameOf(text) : undefined;
  return (await tracedQuery(text, () => on.send.query({ name, text, values: statement.values, types }))).rows as T[];
}

/**
 * A model's columns under its field names (`points_cost AS "pointsCost"`), so rows read with
 * `rowsOf` have the shape Prisma gives (every column of the schema is its field in snake case).
 * Enum arrays come as text[]: the driver does not know their array types.
 */
export function columnsOf(fields: Record<string, string>, table: string, { textArrays = [] as string[] } = {}): Prisma.Sql {
  return Prisma.raw(
    Object.keys(fields)
      .map((f) => `${table}.${snakeCase(f)}${textArrays.includes(f) ? '::text[]' : ''} AS "${f}"`)
      .join(', '),
  );
}

type Models = Record<string, { fields: readonly { name: string; type: string }[] }>;
let models: Models | undefined;

/** The fields of a model that hold a time (DateTime): in a row read as JSON they come as text. */
export function timeFieldsOf(model: Prisma.ModelName): string[] {
  models ??= getDatamodel().datamodel.models as Models;
  return models[model]!.fields.filter((f) => f.type === 'DateTime').map((f) => f.name);
}

/**
 * A row read as JSON (json_agg) with its `times` as `Date`s, as `rowsOf` reads them: PostgreSQL
 * writes a timestamptz there as ISO 8601 with its offset, a date as YYYY-MM-DD (midnight UTC).
 */
export function timesFromJson(row: Record<string, unknown>, times: readonly string[]): Record<string, unknown> {
  for (const name of times) {
    const value = row[name];
    if (typeof value === 'string') row[name] = new Date(value.length === 10 ? `${value}T00:00:00Z` : value);
  }
  return row;
}
