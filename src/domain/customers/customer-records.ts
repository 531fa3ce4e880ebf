// Customer profiles: the list with its filters and one customer,
// each with its tier's id and name, loaded in the same statement.
// Also used by the admin API (src/graphql/types/customers.ts, customer-writes.ts).
import type { Db } from '../../db/client.js';
import { rowsOf, tableByTable } from '../../db/sql.js';
import { type Customer, Prisma } from '../../generated/prisma/client.js';
import { notFound, validationError } from '../shared/errors.js';
import { lookupIdentifier } from '../shared/fields.js';
import { type PageArgs, pageRows } from '../shared/pagination.js';
import { isUuid } from '../shared/records.js';
import { type CustomerPart, partColumns, profileColumns, withParts } from './customer-parts.js';
import { customerColumns, emailMatches } from './customers.js';

/** What a Prisma read of a customer includes to make a CustomerProfile of it (the writes' answers). */
export const withTier = { tier: { select: { id: true, name: true } } } as const;

export interface CustomerFilter extends PageArgs {
  customer_id?: string | null;
  email?: string | null;
}

/**
 * Customers, newest first, optionally filtered by platform id (exactly) and/or email (ASCII
 * case-insensitive); a filter that breaks the identifier rule is 422 (src/domain/shared/fields.ts).
 * `parts` are read beside each customer, in the page's statement.
 */
export async function listCustomers(db: Db, merchantId: string, args: CustomerFilter, parts: readonly CustomerPart[] = []) {
  const platformId = lookupIdentifier('customer_id', args.customer_id);
  const email = lookupIdentifier('email', args.email);
  const where = Prisma.join(
    [
      Prisma.sql`c.merchant_id = ${merchantId}::uuid AND c.erased_at IS NULL`,
      ...(platformId ? [Prisma.sql`c.platform_id = ${platformId}`] : []),
      ...(email ? [emailMatches(merchantId, email)] : []),
    ],
    ' AND ',
  );
  // where statements go table by table, the tiers come in their own statement of the same turn
  const apart = tableByTable(db);
  const [page, tiers] = await Promise.all([
    pageRows<CustomerProfile & Record<string, unknown>>(db, args, {
      columns: apart ? customerColumns : Prisma.sql`${customerColumns}, ${tierColumn}`,
      beside: partColumns(parts, profileColumns('p')),
      from: apart ? Prisma.sql`customers c` : Prisma.sql`customers c ${tierJoin}`,
      where,
      order: Prisma.sql`c.created_at DESC, c.id DESC`,
      // unfiltered, the total is the merchant's counter (kept by a trigger): no count over every customer
      total:
        platformId || email
          ? Prisma.sql`SELECT count(*)::int AS _total FROM customers c WHERE ${where}`
          : Prisma.sql`SELECT customer_count AS _total FROM merchant_stats WHERE merchant_id = ${merchantId}::uuid`,
    }),
    apart ? rowsOf<{ id: string; name: string }>(db, Prisma.sql`SELECT id, name FROM tiers WHERE merchant_id = ${merchantId}::uuid`) : null,
  ]);
  if (tiers) {
    const tierOf = new Map(tiers.map((t) => [t.id, t]));
    for (const row of page.data) row.tier = (row.tierId && tierOf.get(row.tierId)) || null;
  }
  return { ...page, data: page.data.map((row) => withParts(row, parts)) };
}

/** The tier `t` of each customer `c` of a statement. */
const tierJoin = Prisma.sql`LEFT JOIN tiers t ON t.merchant_id = c.merchant_id AND t.id = c.tier_id`;

/** The tier's id and name beside each customer `c` of a statement (`t` joined on c.tier_id). */
const tierColumn = Prisma.sql`CASE WHEN t.id IS NULL THEN NULL ELSE json_build_object('id', t.id, 'name', t.name) END AS tier`;

/**
 * One customer by internal uuid or platform id, with its tier and `parts` read beside it, in one
 * statement (an id that is both one customer's uuid and another's platform id names the first);
 * another merchant's, or an erased one, is not found. 422 if `id` breaks the identifier rule.
 */
export async function customerProfile(
  db: Db,
  merchantId: string,
  id: string,
  parts: readonly CustomerPart[] = [],
): Promise<CustomerProfile> {
  if (!lookupIdentifier('id', id)) throw validationError({ id: ['is required'] });
  const byId = isUuid(id);
  const found = Prisma.sql`
    SELECT ${customerColumns}, ${tierColumn}
      FROM customers c ${tierJoin}
     WHERE c.merchant_id = ${merchantId}::uuid AND c.erased_at IS NULL
       AND ${byId ? Prisma.sql`(c.id = ${id}::uuid OR c.platform_id = ${id})` : Prisma.sql`c.platform_id = ${id}`}
     ${byId ? Prisma.sql`ORDER BY c.id = ${id}::uuid DESC` : Prisma.empty} LIMIT 1`;
  // the parts over the one customer found, not over each candidate
  const [customer] = await rowsOf<CustomerProfile & Record<string, unknown>>(
    db,
    parts.length === 0 ? found : Prisma.sql`SELECT f.* ${partColumns(parts, profileColumns('f'))} FROM (${found}) f`,
  );
  if (!customer) throw notFound('Customer');
  return withParts(customer, parts);
}

/** A customer as the API shows it: with its tier's id and name. */
export type CustomerProfile = Customer & {
  tier: { id: string; name: string } | null;
  /** Read with it: the values of the parts its statement was given, in their order (customer-parts.ts). */
  linked?: unknown[];
};
