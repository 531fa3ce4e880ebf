// Page-number pagination shared by every list (spec 2.4 and section 8).
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { rowsOf } from '../../db/sql.js';
import { Prisma } from '../../generated/prisma/client.js';
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

/** Records per page (or per window of a connection). */
const perPage = z
  .number()
  .int()
  .min(1, `must be between 1 and ${MAX_PER_PAGE}`)
  .max(MAX_PER_PAGE, `must be between 1 and ${MAX_PER_PAGE}`)
  .default(DEFAULT_PER_PAGE);

/** The page arguments' rules (the API's descriptions and OpenAPI document state them from here). */
export const pageRules = {
  page: z.number().int().min(1, 'must be at least 1').max(1_000_000, 'must be at most 1000000').default(1),
  per_page: perPage,
};

const pageSchema = z.object(pageRules);

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

/** A list read in one statement on the pool: its rows (`columns`, Prisma's field names), where, and order. */
export interface ListQuery {
  columns: Prisma.Sql;
  from: Prisma.Sql;
  where: Prisma.Sql;
  /** Ties by id, so pages never overlap. */
  order: Prisma.Sql;
  /** The total as a scalar subquery (default: count the rows of `from` and `where`). */
  total?: Prisma.Sql;
}

/**
 * One page and its total in one statement (one round trip, one snapshot): the total in a
 * subquery, the page in a LATERAL join, so an empty page still answers the total.
 */
export async function pageRows<T extends { id: string }>(db: Db, args: PageArgs, list: ListQuery): Promise<Paginated<T>> {
  const page = toPage(args);
  const total = list.total ?? Prisma.sql`(SELECT count(*)::int FROM ${list.from} WHERE ${list.where})`;
  const found = await rowsOf<T & { _total: number }>(
    db,
    Prisma.sql`
      SELECT t._total, p.* FROM (SELECT ${total} AS _total) t
        LEFT JOIN LATERAL (
          SELECT ${list.columns}, row_number() OVER (ORDER BY ${list.order}) AS _n
            FROM ${list.from} WHERE ${list.where}
           ORDER BY ${list.order} OFFSET ${page.skip} LIMIT ${page.take}
        ) p ON true
       ORDER BY p._n`,
  );
  return paginated(page, found[0]?.id == null ? [] : found, found[0]?._total ?? 0);
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
  /** SQL type of an owner: uuid (a customer's id) or int. */
  ownerType: 'uuid' | 'int';
  /** The condition that picks one owner's rows, `owner` standing for it. */
  where: (owner: Prisma.Sql) => Prisma.Sql;
  order: string;
  /**
   * A query whose one row holds an owner's total as `_total`, when something keeps it (default:
   * count the owner's rows); no row counts as 0. `merchant` is the merchant's id, for the
   * query's own tenancy condition.
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
}

interface Window {
  skip: number;
  take: number;
  /** Only the rows after this one (by `keyset`). */
  after?: string;
}

/**
 * The rows of each owner's window (a LATERAL subquery per owner: the same index scan with OFFSET
 * and LIMIT as a single list) and each owner's total, in one statement whatever the number of
 * owners.
 */
async function windowEach<T extends { id: string }>(
  db: Db,
  merchantId: string,
  owners: readonly (string | number)[],
  window: Window,
  list: OwnedList<T>,
): Promise<{ rows: T[]; total: number }[]> {
  if (owners.length === 0) return [];
  const table = Prisma.raw(list.table);
  const order = Prisma.raw(list.order);
  const mine = (owner: Prisma.Sql) => Prisma.sql`merchant_id = ${merchantId}::uuid AND ${list.where(owner)}`;
  const keyset = Prisma.raw(list.keyset ?? 'id');
  const after = window.after
    ? Prisma.sql`AND (${keyset}) < (SELECT ${keyset} FROM ${table} WHERE id = ${window.after}::uuid AND merchant_id = ${merchantId}::uuid)`
    : Prisma.empty;
  const total = list.total
    ? list.total(Prisma.sql`o._owner`, Prisma.sql`${merchantId}::uuid`)
    : Prisma.sql`SELECT count(*)::int AS _total FROM ${table} WHERE ${mine(Prisma.sql`o._owner`)}`;
  const owned = Prisma.sql`${mine(Prisma.sql`o._owner`)} ${after} ORDER BY ${order} OFFSET ${window.skip} LIMIT ${window.take}`;
  let page: Prisma.Sql;
  if (list.join) {
    // joined tables may share the order's column names: the page is numbered before the join
    page = Prisma.sql`SELECT ${list.columns}, x._n
      FROM (SELECT *, row_number() OVER (ORDER BY ${order}) AS _n FROM ${table} WHERE ${owned}) x
      ${list.join(Prisma.sql`${merchantId}::uuid`)}`;
  } else {
    // a deep page (offset 4,780) fetched every skipped row from the table: 3-4x the time
    const rowsOfWindow =
      list.orderIndexed && window.skip > 0
        ? Prisma.sql`(SELECT id AS _id FROM ${table} WHERE ${owned}) w
            JOIN ${table} x ON x.merchant_id = ${merchantId}::uuid AND x.id = w._id`
        : Prisma.sql`${table} x WHERE ${owned}`;
    page = Prisma.sql`SELECT ${list.columns}, row_number() OVER (ORDER BY ${order}) AS _n FROM ${rowsOfWindow}`;
  }
  const found = await rowsOf<{ _i: bigint | string; id: string | null; _total: number }>(
    db,
    Prisma.sql`
    SELECT o._i, COALESCE(t._total, 0) AS _total, p.*
      FROM unnest(${[...owners]}::${Prisma.raw(`${list.ownerType}[]`)}) WITH ORDINALITY AS o(_owner, _i)
      -- once per owner: a scalar subquery here or in the select list ran once per row of the page
      LEFT JOIN LATERAL (${total}) t ON true
      LEFT JOIN LATERAL (${page}) p ON true
     ORDER BY o._i, p._n`,
  );
  const windows = owners.map(() => ({ rows: [] as T[], total: 0 }));
  for (const f of found) {
    const w = windows[Number(f._i) - 1]!;
    w.total = f._total;
    if (f.id !== null) w.rows.push(list.shape ? list.shape(f as never) : (f as unknown as T));
  }
  return windows;
}

/** One page of each owner's list, in one statement whatever the number of owners, in the order of `owners`. */
export async function paginateEach<T extends { id: string }>(
  db: Db,
  merchantId: string,
  owners: readonly (string | number)[],
  args: PageArgs,
  list: OwnedList<T>,
): Promise<Paginated<T>[]> {
  const page = toPage(args);
  const windows = await windowEach(db, merchantId, owners, { skip: page.skip, take: page.take }, list);
  return windows.map((w) => paginated(page, w.rows, w.total));
}

/** One owner's page of `list`. */
export async function paginateOne<T extends { id: string }>(
  db: Db,
  merchantId: string,
  owner: string | number,
  args: PageArgs,
  list: OwnedList<T>,
): Promise<Paginated<T>> {
  const [page] = await paginateEach(db, merchantId, [owner], args, list);
  return page!;
}

// ---- cursors (Relay-style connections of the GraphQL graph) ----

export interface CursorArgs {
  first?: number | null;
  after?: string | null;
}

/** A Relay connection: the rows after a cursor, each with its own cursor. */
export interface Connection<T> {
  edges: { cursor: string; node: T }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  total: number;
}

/** A cursor names the row it follows (opaque to clients). */
const cursorOf = (id: string) => Buffer.from(`cursor:${id}`).toString('base64url');

const cursorSchema = z.object({
  first: perPage,
  after: z
    .string()
    .transform((s) => /^cursor:([0-9a-f-]{36})$/.exec(Buffer.from(s, 'base64url').toString())?.[1])
    .refine((id) => id !== undefined, 'is not a cursor of this list')
    .optional(),
});

/** The `first` rows after the cursor of each owner's list, in one statement whatever the number of owners. */
export async function connectEach<T extends { id: string }>(
  db: Db,
  merchantId: string,
  owners: readonly (string | number)[],
  args: CursorArgs,
  list: OwnedList<T>,
): Promise<Connection<T>[]> {
  const { first, after } = parseInput(cursorSchema, { first: args.first ?? undefined, after: args.after ?? undefined });
  // one more row than asked says whether there is a next page
  const windows = await windowEach(db, merchantId, owners, { skip: 0, take: first + 1, after }, list);
  return windows.map((w) => {
    const edges = w.rows.slice(0, first).map((node) => ({ cursor: cursorOf(node.id), node }));
    return {
      edges,
      pageInfo: { hasNextPage: w.rows.length > first, endCursor: edges.at(-1)?.cursor ?? null },
      total: w.total,
    };
  });
}

/** A connection with no rows (an owner the list cannot have any for). */
export function noConnection<T>(): Connection<T> {
  return { edges: [], pageInfo: { hasNextPage: false, endCursor: null }, total: 0 };
}
