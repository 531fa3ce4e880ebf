// Finding a customer of the key's merchant. Public endpoints name a customer by its
// platform id (`customer_id`) or email; another merchant's customer is simply not found.
import type { Db } from '../../db/client.js';
import { columnsOf, rowsOf } from '../../db/sql.js';
import { type Customer, Prisma } from '../../generated/prisma/client.js';
import { notFound, validationError } from '../shared/errors.js';
import { asciiLower, lookupIdentifier } from '../shared/fields.js';
import { isUuid } from '../shared/records.js';

export interface CustomerRef {
  customer_id?: string | null;
  email?: string | null;
}

/**
 * Customers `c` of the merchant with this email, ignoring the case of ASCII letters only.
 * The first lower() uses the index on (merchant_id, lower(email)); it folds case as the
 * database's locale does, where U+212A KELVIN SIGN is k, so the second, under the "C"
 * collation (A–Z only), keeps the rows that are this email but for ASCII case
 * (src/domain/shared/fields.ts). Prisma's case-insensitive mode would be an unindexed ILIKE
 * that also treats `_` and `%` as wildcards (prisma/prisma#20318).
 */
export const emailMatches = (merchantId: string, email: string) =>
  Prisma.sql`c.merchant_id = ${merchantId}::uuid AND lower(c.email) = lower(${email})
    AND lower(c.email COLLATE "C") = lower(${email}::text COLLATE "C")`;

/** The merchant's customers with this email in any case, oldest first. */
export async function customerIdsByEmail(db: Db, merchantId: string, email: string): Promise<string[]> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT c.id FROM customers c WHERE ${emailMatches(merchantId, email)} ORDER BY c.created_at, c.id LIMIT 100`;
  return rows.map((r) => r.id);
}

/** A customer row as Prisma reads it, for statements sent on the pool. */
export const customerColumns = columnsOf(Prisma.CustomerScalarFieldEnum, 'c');

/**
 * `customer_id` and `email` as sent (an empty one is absent): 422 if neither names a customer
 * or one breaks the identifier rule (src/domain/shared/fields.ts); never trimmed.
 */
function customerRef(ref: CustomerRef) {
  const customerId = lookupIdentifier('customer_id', ref.customer_id);
  const email = lookupIdentifier('email', ref.email);
  if (!customerId && !email) {
    throw validationError({ customer_id: ['customer_id or email is required'] }, 'Name the customer with customer_id or email');
  }
  return { customerId, email };
}

/**
 * Customers `c` of the merchant with this platform id (at most one). An erased customer is a
 * tombstone the API no longer finds (domain/privacy/erasure.ts).
 */
const platformIdMatches = (merchantId: string, platformId: string) =>
  Prisma.sql`c.merchant_id = ${merchantId}::uuid AND c.platform_id = ${platformId} AND c.erased_at IS NULL`;

/**
 * The platform id of a request that names its customer by `customer_id` alone, checked as
 * findCustomer checks it, for a statement that finds the customer itself (platformIdMatches)
 * and answers 404 when it does not.
 */
export const platformIdOf = (ref: { customer_id: string }) => customerRef(ref).customerId!;

/** The customer named by `customer_id` or `email` (422 if neither, 404 if unknown). */
export async function findCustomer(db: Db, merchantId: string, ref: CustomerRef) {
  const { customerId, email } = customerRef(ref);
  // one statement on the pool (src/db/sql.ts): every customer-scoped request starts here
  const [found] = await rowsOf<Customer>(
    db,
    customerId
      ? Prisma.sql`SELECT ${customerColumns} FROM customers c WHERE ${platformIdMatches(merchantId, customerId)}`
      : Prisma.sql`SELECT ${customerColumns} FROM customers c WHERE ${emailMatches(merchantId, email!)} ORDER BY c.created_at, c.id LIMIT 1`,
  );
  // both given: they must name the same customer
  const customer = found && customerId && email && asciiLower(found.email) !== asciiLower(email) ? undefined : found;
  // by email, the oldest match may be a tombstone (erasure.ts): not found either
  if (!customer || customer.erasedAt) throw notFound('Customer');
  return customer;
}

/** `GET /customers/{id}`: the internal uuid or the platform id, exactly (422 if `id` breaks the identifier rule). */
export async function findCustomerById(db: Db, merchantId: string, id: string, { erased = false } = {}) {
  if (!lookupIdentifier('id', id)) throw validationError({ id: ['is required'] });
  const customer = await db.customer.findFirst({
    where: {
      ...(isUuid(id) ? { merchantId, OR: [{ id }, { platformId: id }] } : { merchantId, platformId: id }),
      // erased customers are found only when asked for (erasing again answers the same)
      ...(erased ? {} : { erasedAt: null }),
    },
  });
  if (!customer) throw notFound('Customer');
  return customer;
}
