// Customer profiles: the list with its filters and one customer,
// each with its tier's id and name (the list loads them in the same query).
// Also used by the admin API (src/graphql/types/customers.ts, customer-writes.ts).
import type { Db } from '../../db/client.js';
import { Prisma } from '../../generated/prisma/client.js';
import { lookupIdentifier } from '../shared/fields.js';
import { rowKey } from '../shared/keys.js';
import { type PageArgs, pageRows } from '../shared/pagination.js';
import { customerColumns, emailMatches, findCustomerById } from './customers.js';

/** A customer as the API shows it: with its tier's id and name, loaded in the same query. */
export const withTier = { tier: { select: { id: true, name: true } } } as const;

export interface CustomerFilter extends PageArgs {
  customer_id?: string | null;
  email?: string | null;
}

/**
 * Customers, newest first, optionally filtered by platform id (exactly) and/or email (ASCII
 * case-insensitive); a filter that breaks the identifier rule is 422 (src/domain/shared/fields.ts).
 */
export function listCustomers(db: Db, merchantId: string, args: CustomerFilter) {
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
  return pageRows<CustomerProfile>(db, args, {
    columns: Prisma.sql`${customerColumns},
      CASE WHEN t.id IS NULL THEN NULL ELSE json_build_object('id', t.id, 'name', t.name) END AS tier`,
    from: Prisma.sql`customers c LEFT JOIN tiers t ON t.merchant_id = c.merchant_id AND t.id = c.tier_id`,
    where,
    order: Prisma.sql`c.created_at DESC, c.id DESC`,
    // unfiltered, the total is the merchant's counter (kept by a trigger): no count over every customer
    total:
      platformId || email
        ? Prisma.sql`(SELECT count(*)::int FROM customers c WHERE ${where})`
        : Prisma.sql`(SELECT coalesce((SELECT customer_count FROM merchant_stats WHERE merchant_id = ${merchantId}::uuid), 0))`,
  });
}

/** One customer by internal uuid or platform id, with its tier; another merchant's is not found. */
export async function customerProfile(db: Db, merchantId: string, id: string) {
  const customer = await findCustomerById(db, merchantId, id);
  const tier = customer.tierId
    ? await db.tier.findUnique({ where: rowKey(merchantId, customer.tierId), select: withTier.tier.select })
    : null;
  return { ...customer, tier };
}

export type CustomerProfile = Awaited<ReturnType<typeof customerProfile>>;
