// The revisions a cached storefront answer is kept under (migration answer_revisions): the
// merchant's row, its program, and every customer row a request's identifiers match. Each
// changes in the transaction of every write that can change an answer, and they live in the
// database, so an answer kept under the revisions read before it was computed is exact on every
// instance for as long as they read the same. One statement, by the merchant's id (on a cluster,
// one worker's).
import type { Db } from '../../db/client.js';
import { rowsOf } from '../../db/sql.js';
import { Prisma } from '../../generated/prisma/client.js';
import { isUuid } from '../shared/records.js';

/** How a request names customers: internal ids (a session's own, `customer(id:)`), platform ids, emails. */
export interface NamedCustomers {
  ids: string[];
  platformIds: string[];
  emails: string[];
}

export interface Revisions {
  /** The merchant row's, its program's, and `id:revision` of each customer matched, as one string. */
  key: string;
  /** The merchant's time zone: its calendar decides when an answer's day ends. */
  zone: string;
  /** The revisions of the merchant's row and its program: a cached Program read under others is read again. */
  program: string;
}

/**
 * `column = value` for one value, `= ANY(values)` for more. A statement with an array parameter
 * is planned afresh on every run (its generic plan, costed for an array of unknown length, never
 * wins), where one naming a single customer, the usual request, is planned once per connection.
 */
function oneOrAny(column: Prisma.Sql, values: string[], type: Prisma.Sql): Prisma.Sql {
  return values.length === 1 ? Prisma.sql`${column} = ${values[0]}::${type}` : Prisma.sql`${column} = ANY(${values}::${type}[])`;
}

/**
 * The rows any lookup by these identifiers could find (by id, by platform id, by email in any
 * case; erased ones too), so a change to which rows match, or to any of them, changes the key.
 */
function matching(merchantId: string, named: NamedCustomers): Prisma.Sql | null {
  const terms: Prisma.Sql[] = [];
  const ids = named.ids.filter(isUuid);
  if (ids.length) terms.push(oneOrAny(Prisma.raw('c.id'), ids, Prisma.raw('uuid')));
  if (named.platformIds.length) terms.push(oneOrAny(Prisma.raw('c.platform_id'), named.platformIds, Prisma.raw('text')));
  if (named.emails.length === 1) terms.push(Prisma.sql`lower(c.email) = lower(${named.emails[0]}::text)`);
  else if (named.emails.length) terms.push(Prisma.sql`lower(c.email) IN (SELECT lower(e) FROM unnest(${named.emails}::text[]) e)`);
  if (!terms.length) return null;
  return Prisma.sql`
    (SELECT string_agg(c.id || ':' || c.revision, ',' ORDER BY c.id) FROM customers c
      WHERE c.merchant_id = ${merchantId}::uuid AND (${Prisma.join(terms, ' OR ')}))`;
}

/**
 * The revisions a merchant's Program answers to, over its row `m`: its row's and its program's,
 * as one text (`program_revision`). Every statement that reads them reads this column, so a
 * program read at the revisions an answer is kept under says the same text.
 */
export const programRevisionColumn = (merchantId: string) => Prisma.sql`
  m.revision || '/' || COALESCE((SELECT p.revision FROM program_revisions p WHERE p.merchant_id = ${merchantId}::uuid), 0)
    AS program_revision`;

/** The revisions of the merchant's row, its program and the customers named (null: no such merchant). */
export async function readRevisions(db: Db, merchantId: string, named: NamedCustomers): Promise<Revisions | null> {
  const customers = matching(merchantId, named) ?? Prisma.sql`''`;
  const [row] = await rowsOf<{ program_revision: string; customers: string | null; zone: string }>(
    db,
    Prisma.sql`
    SELECT ${programRevisionColumn(merchantId)}, m.timezone AS zone, ${customers} AS customers
      FROM merchants m WHERE m.id = ${merchantId}::uuid`,
  );
  if (!row) return null;
  return { key: `${row.program_revision}/${row.customers ?? ''}`, zone: row.zone, program: row.program_revision };
}
