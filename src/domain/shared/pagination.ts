// Page-number pagination shared by every list (spec 2.4 and section 8).
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { Prisma } from '../../generated/prisma/client.js';
import { parseInput } from './validation.js';

export const MAX_PER_PAGE = 100;
export const DEFAULT_PER_PAGE = 20;

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

const pageSchema = z.object({
  page: z.number().int().min(1, 'must be at least 1').max(1_000_000, 'must be at most 1000000').default(1),
  per_page: z
    .number()
    .int()
    .min(1, `must be between 1 and ${MAX_PER_PAGE}`)
    .max(MAX_PER_PAGE, `must be between 1 and ${MAX_PER_PAGE}`)
    .default(DEFAULT_PER_PAGE),
});

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

/** Lists are newest first unless said otherwise (DESIGN.md); ties go by id, so pages never overlap. */
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

/**
 * A list every owner (a customer, or a balance) has, read for many owners at once: its table,
 * which of the merchant's rows belong to one owner, and its order (ties by id, so pages never
 * overlap). Names are code, never input.
 */
export interface OwnedList<T extends { id: string }> {
  table: string;
  /** SQL type of an owner: uuid (a customer's id) or int. */
  ownerType: 'uuid' | 'int';
  /** The condition that picks one owner's rows, `owner` standing for it. */
  where: (owner: Prisma.Sql) => Prisma.Sql;
  order: string;
  /** The rows with these ids (as the list shows them, with what it includes), in any order. */
  rows: (db: Db, where: { merchantId: string; id: { in: string[] } }) => Promise<T[]>;
}

/**
 * One page of each owner's list, in two statements whatever the number of owners: the page's
 * ids and each owner's total (a LATERAL subquery per owner, the same index scan with OFFSET and
 * LIMIT as a single list), then the rows by id. Pages come back in the order of `owners`.
 */
export async function paginateEach<T extends { id: string }>(
  db: Db,
  merchantId: string,
  owners: readonly (string | number)[],
  args: PageArgs,
  list: OwnedList<T>,
): Promise<Paginated<T>[]> {
  const page = toPage(args);
  if (owners.length === 0) return [];
  const table = Prisma.raw(list.table);
  const order = Prisma.raw(list.order);
  const ownerArray = Prisma.raw(`${list.ownerType}[]`);
  const mine = (owner: Prisma.Sql) => Prisma.sql`merchant_id = ${merchantId}::uuid AND ${list.where(owner)}`;
  const found = await db.$queryRaw<{ i: bigint; id: string | null; total: number }[]>`
    SELECT o._i AS i, p.id::text AS id,
           (SELECT count(*) FROM ${table} WHERE ${mine(Prisma.sql`o._owner`)})::int AS total
      FROM unnest(${[...owners]}::${ownerArray}) WITH ORDINALITY AS o(_owner, _i)
      LEFT JOIN LATERAL (
        SELECT id, row_number() OVER (ORDER BY ${order}) AS _n
          FROM ${table}
         WHERE ${mine(Prisma.sql`o._owner`)}
         ORDER BY ${order}
        OFFSET ${page.skip} LIMIT ${page.take}
      ) p ON true
     ORDER BY o._i, p._n`;
  const ids = found.flatMap((f) => (f.id ? [f.id] : []));
  const rows = ids.length ? await list.rows(db, { merchantId, id: { in: ids } }) : [];
  const byId = new Map(rows.map((r) => [r.id, r]));
  const pages = owners.map(() => ({ data: [] as T[], total: 0 }));
  for (const f of found) {
    const p = pages[Number(f.i) - 1]!;
    p.total = f.total;
    const row = f.id ? byId.get(f.id) : undefined;
    if (row) p.data.push(row);
  }
  return pages.map((p) => paginated(page, p.data, p.total));
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
