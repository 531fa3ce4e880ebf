// Page-number pagination shared by every list (spec 2.4 and section 8), and the keyset windows
// of the graph's Relay connections.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { rowsOf, tableByTable, timesFromJson } from '../../db/sql.js';
import { Prisma } from '../../generated/prisma/client.js';
import { type AppError, type ErrorDetails, validationError } from './errors.js';
import { isUuid } from './records.js';
import { parseInput } from './validation.js';

export const MAX_PER_PAGE = 100;
const DEFAULT_PER_PAGE = 20;

export interface PageArgs {
  page?: number | null;
  per_page?: number | null;
}

export interface Page {
  page: number;
  perPage: number;
  skip: number;
  take: number;
}

/** Records per page, or per window of a connection (`first`, `last`). */
const windowSize = z
  .number()
  .int()
  .min(1, `must be between 1 and ${MAX_PER_PAGE}`)
  .max(MAX_PER_PAGE, `must be between 1 and ${MAX_PER_PAGE}`);
const perPage = windowSize.default(DEFAULT_PER_PAGE);

/** The page arguments' rules (the API's descriptions and OpenAPI document state them from here). */
export const pageRules = {
  page: z.number().int().min(1, 'must be at least 1').max(1_000_000, 'must be at most 1000000').default(1),
  per_page: perPage,
};

const pageSchema = z.object(pageRules);

/**
 * A page's `OFFSET … LIMIT …`, the limit written into the statement and no offset on a first
 * page. PostgreSQL plans a prepared statement once per connection (a generic plan) only when it
 * sees the row limit: with the limit or the offset a parameter it plans it afresh on every run
 * (0.3–0.8 ms a page statement). A limit is one of the few page sizes (at most MAX_PER_PAGE + 1
 * texts a list); a later page's offset stays a parameter, its statement planned each run.
 */
function offsetLimit(skip: number, take: number): Prisma.Sql {
  if (!Number.isSafeInteger(take) || take < 0) throw new Error(`a page takes a whole number of rows, not ${take}`);
  const limit = Prisma.raw(`LIMIT ${take}`);
  return skip > 0 ? Prisma.sql`OFFSET ${skip} ${limit}` : limit;
}

export function toPage(args: PageArgs): Page {
  const { page, per_page } = parseInput(pageSchema, {
    page: args.page ?? undefined,
    per_page: args.per_page ?? undefined,
  });
  return { page, perPage: per_page, skip: (page - 1) * per_page, take: per_page };
}

export interface Paginated<T> {
  data: T[];
  meta: { pagination: PaginationMeta };
}

export interface PaginationMeta {
  current_page: number;
  per_page: number;
  total: number;
  last_page: number;
  has_more: boolean;
}

export function paginated<T>(page: Page, data: T[], total: number): Paginated<T> {
  const lastPage = Math.max(1, Math.ceil(total / page.perPage));
  return {
    data,
    meta: {
      pagination: {
        current_page: page.page,
        per_page: page.perPage,
        total,
        last_page: lastPage,
        has_more: page.page < lastPage,
      },
    },
  };
}

/** Lists are newest first unless their route says otherwise; ties go by id, so pages never overlap. */
export const newestFirst = [{ createdAt: 'desc' as const }, { id: 'desc' as const }];

/** Runs the page query and the count together. */
export async function paginate<T>(
  args: PageArgs,
  find: (p: { skip: number; take: number }) => Promise<T[]>,
  count: () => Promise<number>,
): Promise<Paginated<T>> {
  const page = toPage(args);
  const [data, total] = await Promise.all([find({ skip: page.skip, take: page.take }), count()]);
  return paginated(page, data, total);
}

/** A list read on the pool: its rows (`columns`, Prisma's field names), where, and order. */
export interface ListQuery {
  columns: Prisma.Sql;
  from: Prisma.Sql;
  where: Prisma.Sql;
  /** Ties by id, so pages never overlap. */
  order: Prisma.Sql;
  /** A statement whose one row holds the total as `_total`, no row counting 0 (default: count the rows of `from` and `where`). */
  total?: Prisma.Sql;
  /** Columns read beside each row of the page, over the page's row `p` (field names). */
  beside?: Prisma.Sql;
}

/**
 * Rows and their total in one round trip: `rows(first)` the rows' statement with `first` leading
 * its columns, `total` a statement whose one row holds the total as `_total` (no row: 0). On one
 * PostgreSQL, one statement (one snapshot): the total a scalar subquery beside the rows (no row
 * answered, the total is then read on its own). `apart` (statements go table by table, on a Citus
 * worker: src/db/sql.ts): two statements of the same turn, each planned once on the shard (the
 * customers page: 0.14 + 0.06 ms of worker CPU against 0.41 with its total beside it); a write
 * that commits between them may then be counted in the total and not yet be in the rows.
 */
async function rowsWithTotal<T>(
  db: Db,
  rows: (first: Prisma.Sql) => Prisma.Sql,
  total: Prisma.Sql,
  apart: boolean,
): Promise<{ rows: T[]; total: number }> {
  const totalOf = (found: { _total: number | null }[]) => found[0]?._total ?? 0;
  if (apart) {
    const [found, counted] = await Promise.all([rowsOf<T>(db, rows(Prisma.empty)), rowsOf<{ _total: number | null }>(db, total)]);
    return { rows: found, total: totalOf(counted) };
  }
  const found = await rowsOf<T & { _total: number | null }>(db, rows(Prisma.sql`(SELECT t._total FROM (${total}) t) AS _total, `));
  if (found.length) return { rows: found, total: totalOf(found) };
  return { rows: [], total: totalOf(await rowsOf<{ _total: number | null }>(db, total)) };
}

/** One page and its total in one round trip (rowsWithTotal), two statements where statements go table by table. */
export async function pageRows<T extends { id: string }>(db: Db, args: PageArgs, list: ListQuery): Promise<Paginated<T>> {
  const page = toPage(args);
  const total = list.total ?? Prisma.sql`SELECT count(*)::int AS _total FROM ${list.from} WHERE ${list.where}`;
  const window = Prisma.sql`FROM ${list.from} WHERE ${list.where} ORDER BY ${list.order} ${offsetLimit(page.skip, page.take)}`;
  const rows = (first: Prisma.Sql) =>
    list.beside?.text
      ? Prisma.sql`
          SELECT ${first}p.* ${list.beside}
            FROM (SELECT ${list.columns}, row_number() OVER (ORDER BY ${list.order}) AS _n ${window}) p
           ORDER BY p._n`
      : Prisma.sql`SELECT ${first}${list.columns} ${window}`;
  const found = await rowsWithTotal<T>(db, rows, total, tableByTable(db));
  return paginated(page, found.rows, found.total);
}

/**
 * A list every owner (a customer, or a balance) has, read for many owners at once: its table,
 * which of the merchant's rows belong to one owner, and its order (ties by id, so pages never
 * overlap). Names are code, never input.
 */
export interface OwnedList<T extends { id: string }> extends OwnedListBase {
  /**
   * The rows' columns under their field names, of the table as `x` (src/db/sql.ts) and of what
   * `join` adds to it: ids, totals and rows come in one statement. One is `id`, never null in a
   * row (an owner with no rows answers one row whose `id` is null).
   */
  columns: Prisma.Sql;
  /**
   * Tables joined to the page's rows `x` for `columns`, each on `merchant` (the merchant's id):
   * on a Citus cluster, the statement then runs on that merchant's shard alone.
   */
  join?: (merchant: Prisma.Sql) => Prisma.Sql;
  /** The row as the list shows it, from its columns (default: as read). */
  shape?: (row: never) => T;
}

interface OwnedListBase {
  table: string;
  /**
   * The fields of its rows that hold a time (`timeFieldsOf` the model its columns read, and any
   * column of `join`'s): read inside another statement, a window comes as JSON, where they are text.
   */
  times: readonly string[];
  /**
   * Its rows' properties, when they are its columns' names (a list that shapes its rows has none):
   * a read inside another statement that needs only some of them builds only those.
   */
  fields?: readonly string[];
  /** SQL type of an owner: uuid (a customer's id) or int. */
  ownerType: 'uuid' | 'int';
  /** The condition that picks one owner's rows, `owner` standing for it. */
  where: (owner: Prisma.Sql) => Prisma.Sql;
  order: string;
  /**
   * A query whose one row holds an owner's total as `_total`, when something keeps it (default:
   * count the owner's rows); no row counts as 0. `merchant` is the merchant's id, for the
   * query's own tenancy condition, its first: on a Citus worker, where it is sent alone with the
   * merchant written in, a parameter compared before it (`id = $1 AND merchant_id = '…'`) made
   * Citus 13.2.2 grow the connection ~54 KB a run under a generic plan (test/cluster/worker-plans.test.ts).
   */
  total?: (owner: Prisma.Sql, merchant: Prisma.Sql) => Prisma.Sql;
  /**
   * An index holds `where` and `order` (ending in id): the rows a deep page skips are then read
   * from the index alone, and only the page's own rows from the table (a list without `join`).
   */
  orderIndexed?: boolean;
  /**
   * Lists read by cursor: the columns of `order` (all descending; an ascending number enters
   * negated), so that the rows after a cursor row are those whose columns compare lower.
   */
  keyset?: string;
  /** Lists read by cursor: the name their cursors carry (`<name>_connection`). */
  name?: string;
  /**
   * The condition a cursor's row meets in one owner's list (default `where`): a list whose rows
   * come and go with its owner's state (what a balance affords) takes any row of its table, so a
   * cursor stays a position while the list changes.
   */
  member?: (owner: Prisma.Sql) => Prisma.Sql;
}

interface Window {
  skip: number;
  take: number;
  /** Only the rows after this row and before that one (ids of rows of the owner's list, by `keyset`). */
  after?: string;
  before?: string;
  /** Read up from `before` (or the end): the rows come nearest it first. */
  backward?: boolean;
}

interface OwnerWindow<T> {
  rows: T[];
  total: number;
  /** With a cursor: whether its row is in the owner's list. */
  afterFound?: boolean;
  beforeFound?: boolean;
  /**
   * With a cursor: whether the list has rows at or past the cursor the read starts from, on the
   * side the read leaves behind (`after`'s when reading down, `before`'s when reading up).
   */
  behind?: boolean;
}

/**
 * One owner's window of `list`, as SQL over `owner` (an expression of the enclosing statement):
 * a query whose one row holds the owner's total as `_total`, the window's rows numbered `_n`,
 * and (with a cursor) a query of one row saying what the cursors name (`_after`, `_before`,
 * `_behind`). Every part names the merchant, so on a cluster it runs on the merchant's shard.
 */
function windowSql<T extends { id: string }>(merchantId: string, owner: Prisma.Sql, window: Window, list: OwnedList<T>) {
  const table = Prisma.raw(list.table);
  const merchant = Prisma.sql`${merchantId}::uuid`;
  const mine = Prisma.sql`merchant_id = ${merchant} AND ${list.where(owner)}`;
  const keyset = Prisma.raw(list.keyset ?? 'id');
  // reading up is the same index scan backwards: every keyset column ascending
  const order = Prisma.raw(window.backward ? `${(list.keyset ?? 'id').split(',').join(' ASC,')} ASC` : list.order);
  const member = Prisma.sql`merchant_id = ${merchant} AND ${(list.member ?? list.where)(owner)}`;
  /** The keyset of a cursor's row, when it is a row of the owner's list (else NULL: no row compares to it). */
  const at = (id: string) => Prisma.sql`(SELECT ${keyset} FROM ${table} WHERE ${member} AND id = ${id}::uuid)`;
  const bounds = Prisma.sql`${window.after ? Prisma.sql`AND (${keyset}) < ${at(window.after)}` : Prisma.empty}
    ${window.before ? Prisma.sql`AND (${keyset}) > ${at(window.before)}` : Prisma.empty}`;
  const total = list.total ? list.total(owner, merchant) : Prisma.sql`SELECT count(*)::int AS _total FROM ${table} WHERE ${mine}`;
  const owned = Prisma.sql`${mine} ${bounds} ORDER BY ${order} ${offsetLimit(window.skip, window.take)}`;
  /** The window's rows, `first` leading each one's columns (a value of the whole window); `sorted`: in the window's order. */
  let rows: (first: Prisma.Sql, sorted: boolean) => Prisma.Sql;
  const deep = !list.join && list.orderIndexed && window.skip > 0;
  if (list.join) {
    // joined tables may share the order's column names: the page is numbered before the join
    const joined = list.join(merchant);
    rows = (first, sorted) => Prisma.sql`SELECT ${first}${list.columns}, x._n
      FROM (SELECT *, row_number() OVER (ORDER BY ${order}) AS _n FROM ${table} WHERE ${owned}) x
      ${joined}${sorted ? Prisma.sql` ORDER BY x._n` : Prisma.empty}`;
  } else {
    // a deep page (offset 4,780) fetched every skipped row from the table: 3-4x the time
    const rowsOfWindow = deep
      ? Prisma.sql`(SELECT id AS _id FROM ${table} WHERE ${owned}) w
            JOIN ${table} x ON x.merchant_id = ${merchant} AND x.id = w._id`
      : Prisma.sql`${table} x WHERE ${owned}`;
    // read from the table alone, the rows come in the window's own ORDER BY
    rows = (first, sorted) =>
      Prisma.sql`SELECT ${first}${list.columns}, row_number() OVER (ORDER BY ${order}) AS _n FROM ${rowsOfWindow}${
        sorted && deep ? Prisma.sql` ORDER BY _n` : Prisma.empty
      }`;
  }
  const page = rows(Prisma.empty, false);
  const found = (id: string | undefined) =>
    id ? Prisma.sql`EXISTS (SELECT 1 FROM ${table} WHERE ${member} AND id = ${id}::uuid)` : Prisma.sql`NULL::boolean`;
  const from = window.backward ? window.before : window.after;
  const behind = from
    ? Prisma.sql`EXISTS (SELECT 1 FROM ${table} WHERE ${mine} AND (${keyset}) ${Prisma.raw(window.backward ? '<=' : '>=')} ${at(from)})`
    : Prisma.sql`NULL::boolean`;
  // the cursors' rows, looked up in the page's statement: a cursor naming no row of the list is
  // told from an empty page without a round trip of its own
  const cursors =
    window.after || window.before
      ? Prisma.sql`SELECT ${found(window.after)} AS _after, ${found(window.before)} AS _before, ${behind} AS _behind`
      : null;
  // the rows come from the list's table alone (no join, no deep page's own, no cursor's row looked up)
  const oneTable = !list.join && !deep && !window.after && !window.before;
  return { total, page, rows, cursors, oneTable };
}

interface CursorFindings {
  _after?: boolean | null;
  _before?: boolean | null;
  _behind?: boolean | null;
}

/**
 * One owner's window of `list` and the owner's total in one round trip (rowsWithTotal), the owner
 * a parameter of both (a transactions page: 0.06 ms against 0.22 for the window in a LATERAL
 * join over the owners). Where statements go table by table, two statements when the rows come
 * from one table (a first transactions page: 0.37 ms of worker CPU against 0.41); a deep page's
 * rows join their table to its index's ids, so it stays one statement there.
 */
async function windowOne<T extends { id: string }>(
  db: Db,
  merchantId: string,
  owner: string | number,
  window: Window,
  list: OwnedList<T>,
): Promise<OwnerWindow<T>> {
  const { total, rows, oneTable } = windowSql(merchantId, Prisma.sql`${owner}::${Prisma.raw(list.ownerType)}`, window, list);
  const found = await rowsWithTotal<unknown>(db, (first) => rows(first, true), total, oneTable && tableByTable(db));
  return { rows: found.rows.map((f) => (list.shape ? list.shape(f as never) : (f as T))), total: found.total };
}

/** What a read inside another statement asks of a list: its total, and which of its rows' properties (default: all). */
export interface WindowNeeds {
  total: boolean;
  fields?: readonly string[];
}

/** A row of the page `p` as JSON: every column, or `fields` (and its id) when the list's rows have them all. */
function rowJson(list: OwnedListBase, fields: readonly string[] | undefined): Prisma.Sql {
  if (!fields || !list.fields || fields.some((f) => !list.fields!.includes(f))) return Prisma.sql`p`;
  const names = [...new Set(['id', ...fields])];
  return Prisma.sql`json_build_object(${Prisma.raw(names.map((f) => `'${f}', p."${f}"`).join(', '))})`;
}

/**
 * One owner's window of `list` as one JSON value (`t` its total when asked, `r` its rows, `c`
 * what its cursors name), for a statement that reads it beside other values of the same owner.
 */
function windowValue<T extends { id: string }>(
  merchantId: string,
  owner: Prisma.Sql,
  window: Window,
  list: OwnedList<T>,
  needs: WindowNeeds,
): Prisma.Sql {
  const { total, page, cursors } = windowSql(merchantId, owner, window, list);
  return Prisma.sql`json_build_object(
    't', ${needs.total ? Prisma.sql`(SELECT t._total FROM (${total}) t)` : Prisma.sql`NULL`},
    'r', (SELECT coalesce(json_agg(${rowJson(list, needs.fields)} ORDER BY p._n), '[]') FROM (${page}) p),
    'c', ${cursors ? Prisma.sql`(SELECT row_to_json(c) FROM (${cursors}) c)` : Prisma.sql`NULL`})`;
}

/** The window a `windowValue` holds (null: an owner with no rows), its rows as `rowsOf` reads them. */
function windowOfValue<T extends { id: string }>(
  value: { t: number | null; r: Record<string, unknown>[]; c: CursorFindings | null } | null,
  list: OwnedList<T>,
): OwnerWindow<T> {
  const w: OwnerWindow<T> = { rows: [], total: value?.t ?? 0 };
  if (!value) return w;
  const c = value.c;
  if (c?._after != null) w.afterFound = c._after;
  if (c?._before != null) w.beforeFound = c._before;
  if (c?._behind != null) w.behind = c._behind;
  for (const row of value.r) {
    const read = timesFromJson(row, list.times);
    w.rows.push(list.shape ? list.shape(read as never) : (read as unknown as T));
  }
  return w;
}

/**
 * A value of one owner read inside another statement (a customer's, beside its other links):
 * `sql` over the owner's expression in that statement, `read` of what it answered for the owner
 * whose id is `owner` (null: the owner has no rows).
 */
export interface OwnerRead<V> {
  sql(owner: Prisma.Sql): Prisma.Sql;
  read(value: unknown, owner: string): V;
}

/** One page of an owner's `list` (its total only when asked: otherwise 0), read inside another statement. */
export function pageRead<T extends { id: string }>(
  merchantId: string,
  list: OwnedList<T>,
  args: PageArgs,
  needs: WindowNeeds,
): OwnerRead<Paginated<T>> {
  const page = toPage(args);
  return {
    sql: (owner) => windowValue(merchantId, owner, { skip: page.skip, take: page.take }, list, needs),
    read: (value) => {
      const w = windowOfValue(value as never, list);
      return paginated(page, w.rows, w.total);
    },
  };
}

/** One owner's page of `list`, and its total, in one statement. */
export async function paginateOne<T extends { id: string }>(
  db: Db,
  merchantId: string,
  owner: string | number,
  args: PageArgs,
  list: OwnedList<T>,
): Promise<Paginated<T>> {
  const page = toPage(args);
  const window = await windowOne(db, merchantId, owner, { skip: page.skip, take: page.take }, list);
  return paginated(page, window.rows, window.total);
}

// ---- cursors (Relay connections of the GraphQL graph) ----

export interface CursorArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

/** A Relay connection: a window of a list, each row with its own cursor. */
export interface Connection<T> {
  edges: { cursor: string; node: T }[];
  pageInfo: PageInfo;
  total: number;
}

/**
 * A cursor is base64url of `v1:<list>:<owner>:<position>`: the connection that gave it, whose
 * list it is (a digest of the merchant and the owner, a customer or the merchant itself: short,
 * and it shows no id) and where in it. List and owner are checked before any read, so a cursor
 * of another connection or owner is refused, never read as a position of this list.
 */
const CURSOR = /^v1:([a-z_]+):([\w-]{12}):(.+)$/;

/** The `owner` of the cursors of `owner`'s list (a customer's id, or the merchant's for its feed). */
export const ownerTag = (merchantId: string, owner: string) =>
  createHash('sha256').update(`${merchantId}:${owner}`).digest('base64url').slice(0, 12);

export const cursorOf = (list: string, owner: string, position: string) =>
  Buffer.from(`v1:${list}:${owner}:${position}`).toString('base64url');

/** A connection's arguments, read: how many rows, from which end, between which cursors. */
export interface CursorWindow<P> {
  /** `first`, or `last` when reading up. */
  size: number;
  /** `last`: the rows nearest `before` (or the end of the list). */
  backward: boolean;
  after?: { owner: string; position: P };
  before?: { owner: string; position: P };
}

/**
 * `first`/`after`/`last`/`before` of connection `list` (422 naming the argument): `first` with
 * `last` is refused (the spec discourages it and no client needs it); `after` with `before` is
 * the range between them. `position` reads a cursor's position (undefined: not one).
 */
export function readCursors<P>(args: CursorArgs, list: string, position: (text: string) => P | undefined): CursorWindow<P> {
  const cursor = z.string().transform((text, ctx) => {
    const [, name, owner, at] = CURSOR.exec(Buffer.from(text, 'base64url').toString()) ?? [];
    const found = name === list && at !== undefined ? position(at) : undefined;
    if (found !== undefined) return { owner: owner!, position: found };
    ctx.addIssue({
      code: 'custom',
      message:
        name !== undefined && name !== list ? `is a cursor of ${name}_connection, not of this connection` : 'is not a cursor of this list',
    });
    return z.NEVER;
  });
  const schema = z
    .object({ first: windowSize.optional(), last: windowSize.optional(), after: cursor.optional(), before: cursor.optional() })
    .refine((a) => a.first === undefined || a.last === undefined, {
      path: ['last'],
      message: 'cannot be given with first: read down the list with first and after, up it with last and before',
    });
  const a = parseInput(schema, {
    first: args.first ?? undefined,
    last: args.last ?? undefined,
    after: args.after ?? undefined,
    before: args.before ?? undefined,
  });
  return { size: a.last ?? a.first ?? DEFAULT_PER_PAGE, backward: a.last !== undefined, after: a.after, before: a.before };
}

/** The refusal of a window's cursors that are of another owner's list (`whose`: what owns such lists), or null. */
export function foreignCursor(window: CursorWindow<unknown>, owner: string, whose: string): AppError | null {
  const details: ErrorDetails = {};
  for (const arg of ['after', 'before'] as const) {
    if (window[arg] && window[arg].owner !== owner) details[arg] = [`is a cursor of this connection for another ${whose}`];
  }
  return Object.keys(details).length > 0 ? validationError(details) : null;
}

/**
 * A window's connection from its rows as read (at most `size` + 1, nearest the end it starts
 * from first), in the list's order. pageInfo as the Relay spec reckons it: the side read towards
 * has more when the extra row came; the side started from, when `behind` (a cursor given there,
 * and the list has rows at or past it).
 */
export function connectionFrom<R, T>(
  window: CursorWindow<unknown>,
  rows: readonly R[],
  behind: boolean,
  edge: (row: R) => { cursor: string; node: T },
  total: number,
): Connection<T> {
  const more = rows.length > window.size;
  const kept = rows.slice(0, window.size);
  if (window.backward) kept.reverse();
  const edges = kept.map(edge);
  return {
    edges,
    pageInfo: {
      hasNextPage: window.backward ? behind : more,
      hasPreviousPage: window.backward ? more : behind,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    total,
  };
}

/** A list read by cursor as well as by page. */
export type ConnectedList<T extends { id: string }> = OwnedList<T> & { name: string; keyset: string };

/**
 * An owner's connection of `list` (customers' lists), read inside another statement (its total
 * only when asked: otherwise 0): a cursor of another owner's list is refused whatever was
 * read. `owner` in `sql` may be another value than the owner's id when the list reads its rows by
 * it (what a balance affords); cursors name the owner by id.
 */
export function connectionRead<T extends { id: string }>(
  merchantId: string,
  list: ConnectedList<T>,
  args: CursorArgs,
  needs: WindowNeeds,
): OwnerRead<Connection<T> | AppError> {
  const window = readCursors(args, list.name, (id) => (isUuid(id) ? id : undefined));
  // one more row than asked says whether there is more on the side read towards
  const read: Window = {
    skip: 0,
    take: window.size + 1,
    after: window.after?.position,
    before: window.before?.position,
    backward: window.backward,
  };
  return {
    sql: (owner) => windowValue(merchantId, owner, read, list, needs),
    read: (value, owner) => {
      const tag = ownerTag(merchantId, owner);
      const refused = foreignCursor(window, tag, 'customer');
      if (refused) return refused;
      const w = windowOfValue(value as never, list);
      const gone: ErrorDetails = {};
      if (w.afterFound === false) gone.after = ['names no row of this list'];
      if (w.beforeFound === false) gone.before = ['names no row of this list'];
      if (Object.keys(gone).length > 0) return validationError(gone);
      return connectionFrom(window, w.rows, w.behind ?? false, (node) => ({ cursor: cursorOf(list.name, tag, node.id), node }), w.total);
    },
  };
}
