// Hot reads run their SQL on the pool under Prisma directly: per statement, the pg driver costs
// a third of the CPU of a Prisma model query and under half of `$queryRaw` (measured by
// bench/profile.ts), and the request path is CPU-bound. Same pool, same connections, same database;
// writes and transactions stay with Prisma. A client without a registered pool (a transaction's)
// runs the same statement through `$queryRaw`.
import pg from 'pg';
import { isUuid } from '../domain/shared/records.js';
import { getDatamodel } from '../generated/pothos-types.js';
import { Prisma } from '../generated/prisma/client.js';
import { tracedQuery } from '../observability/tracing.js';
import { snakeCase } from './names.js';
import { type Pipeline, pipelineOn } from './pipeline.js';

type Queryable = { $queryRaw<T>(query: Prisma.Sql): Prisma.PrismaPromise<T> };

interface Sending {
  prepared: boolean;
  send: Pipeline;
  /**
   * A Citus worker's pool (`merchantConstant`): its statements name their merchant as a constant
   * (see forMerchant), under this pool's own names.
   */
  merchantNames?: Map<string, string>;
  /** The merchant whose statements this client sends (forMerchant). */
  merchantId?: string;
}

const pools = new WeakMap<object, Sending>();

/**
 * `prepared`: send each statement by name, so every connection parses it once (see nameOf);
 * `pipelined`: the statements of one turn share connections (src/db/pipeline.ts);
 * `merchantConstant`: the pool's connections are a Citus worker's (see forMerchant).
 */
export function registerPool(db: object, pool: pg.Pool, { prepared = false, pipelined = false, merchantConstant = false } = {}) {
  pools.set(db, {
    prepared,
    send: pipelined ? pipelineOn(pool) : pool,
    ...(merchantConstant && { merchantNames: new Map<string, string>() }),
  });
}

/**
 * `db` sending its hot reads for merchant `merchantId` (a uuid): on a pool registered with
 * `merchantConstant`, each statement is sent with the merchant's id written into its text where
 * it was a parameter. Citus 13.2 plans a statement on one shard whose distribution column is
 * compared with a constant straight on the worker's shard (no deparsed shard query parsed and
 * planned again), and a generic plan of it runs with no planning at all; compared with a
 * parameter, it prunes the shards at every execution, and a generic plan then grows the
 * connection's local plan cache without bound (src/db/cluster.ts, customPlans). So on such a pool
 * only statements that name their merchant as a constant are named (and kept with generic plans);
 * every other one, Prisma's included (src/db/client.ts), goes unnamed and is planned for its
 * values each time. Elsewhere the client is `db` itself.
 */
export function forMerchant<T extends object>(db: T, merchantId: string): T {
  const on = pools.get(db);
  if (!on?.merchantNames || !isUuid(merchantId)) return db;
  const view = new Proxy(db, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  pools.set(view, { ...on, merchantId });
  return view;
}

/**
 * `text` with every placeholder whose value is `constant` replaced by it as a literal and the
 * others renumbered (inside strings, quoted names and comments a `$n` is text, not a placeholder); null when no
 * value is `constant`.
 */
function withConstant(text: string, values: unknown[], constant: string): { text: string; values: unknown[] } | null {
  if (!values.includes(constant)) return null;
  const kept: unknown[] = [];
  const number = values.map((v) => (v === constant ? 0 : kept.push(v)));
  return {
    // strings, quoted names and comments are passed over whole: an apostrophe in a comment must
    // not hide the placeholders after it
    text: text.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\/\*[\s\S]*?\*\/|\$(\d+)/g, (match, n: string | undefined) => {
      if (n === undefined) return match;
      const at = number[Number(n) - 1];
      return at === 0 ? `'${constant}'` : `$${at}`;
    }),
    values: kept,
  };
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

/**
 * The same for the texts that name a merchant as a constant (forMerchant), a text per merchant,
 * per worker pool: bounded on their own, so the worker's merchants never take the names of the
 * other statements. A worker connection keeps each with its generic plan (~150 KB), so the bound
 * is the memory of a connection (~30 MB). Past it a merchant's statements go unnamed, planned
 * each time (still on the shard alone, with no shard query parsed again).
 */
const MAX_MERCHANT_NAMED = 200;
function merchantNameOf(names: Map<string, string>, text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_MERCHANT_NAMED) names.set(text, (name = `loyalty_m${names.size}`));
  return name;
}

/** A statement as a worker pool sends it: named only with its merchant written in (forMerchant). */
function withMerchant(on: Sending, names: Map<string, string>, text: string, values: unknown[]) {
  const constant = on.merchantId ? withConstant(text, values, on.merchantId) : null;
  if (!constant) return { name: undefined, text, values };
  return { ...constant, name: on.prepared ? merchantNameOf(names, constant.text) : undefined };
}

/**
 * Whether `db` sends its statements to a Citus worker (forMerchant): there a statement of one
 * table that names its merchant is planned once on the merchant's shard and keeps its plan
 * (Citus's fast path), while one with a subquery or a join has its shard's statement deparsed,
 * parsed and planned again on every run (0.1–0.3 ms of worker CPU each). So a read that is one
 * statement elsewhere goes there as statements of one table each, sent in one turn (one round
 * trip, pipelined); elsewhere several statements would cost PostgreSQL more than one (more
 * backends woken, more protocol per statement).
 */
export function tableByTable(db: object): boolean {
  return pools.get(db)?.merchantNames !== undefined;
}

/**
 * One value from each statement, in one round trip: each statement answers at most one row of
 * one column (no row, or no statement: null). Alone each where `tableByTable`; elsewhere as
 * scalar subqueries of one statement.
 */
export async function valuesOf<K extends string>(db: Queryable, reads: { [k in K]?: Prisma.Sql | null }): Promise<Record<K, unknown>> {
  const keys = (Object.keys(reads) as K[]).filter((k) => reads[k]);
  if (tableByTable(db)) {
    const rows = await Promise.all(keys.map((k) => rowsOf<Record<string, unknown>>(db, reads[k]!)));
    return Object.fromEntries(keys.map((k, i) => [k, rows[i]![0] ? Object.values(rows[i]![0])[0] : null])) as Record<K, unknown>;
  }
  const [row] = await rowsOf<Record<K, unknown>>(
    db,
    Prisma.sql`SELECT ${Prisma.join(keys.map((k) => Prisma.sql`(${reads[k]!}) AS ${Prisma.raw(`"${k}"`)}`))}`,
  );
  return row!;
}

/** The rows of one statement, on the pool directly when `db` has one. */
export async function rowsOf<T>(db: Queryable, statement: Prisma.Sql): Promise<T[]> {
  const on = pools.get(db);
  if (!on) return db.$queryRaw<T[]>(statement);
  // Prisma.Sql builds its text anew on each read of `text` (a panel's is ~5 KB): once here
  const text = statement.text;
  const sent = on.merchantNames
    ? withMerchant(on, on.merchantNames, text, statement.values)
    : { name: on.prepared ? nameOf(text) : undefined, text, values: statement.values };
  return (await tracedQuery(text, () => on.send.query({ ...sent, types }))).rows as T[];
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
