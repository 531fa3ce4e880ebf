// Finding a customer of the key's merchant. Public endpoints name a customer by its
// platform id (`customer_id`) or email; another merchant's customer is simply not found.
import type { Db } from '../db/client.js';
import { notFound, validationError } from './errors.js';

export interface CustomerRef {
  customer_id?: string | null;
  email?: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string) => UUID.test(s);

/**
 * Case-insensitive email equality. Prisma turns `equals` + `mode: 'insensitive'` into ILIKE
 * without escaping (prisma/prisma#20318), so `_` and `%` would match other customers.
 */
export function emailIs(email: string) {
  return { equals: email.replace(/[\\%_]/g, (c) => `\\${c}`), mode: 'insensitive' as const };
}

/** PostgreSQL text cannot hold NUL: such an id names no customer (and must not reach SQL). */
const storable = (s: string | undefined) => !s?.includes('\u0000');

/** The customer named by `customer_id` or `email` (422 if neither, 404 if unknown). */
export async function findCustomer(db: Db, merchantId: string, ref: CustomerRef) {
  const customerId = ref.customer_id?.trim();
  const email = ref.email?.trim();
  if (!customerId && !email) {
    throw validationError(
      { customer_id: ['customer_id or email is required'] },
      'Name the customer with customer_id or email',
    );
  }
  if (!storable(customerId) || !storable(email)) throw notFound('Customer');
  const customer = await db.customer.findFirst({
    where: customerId
      ? { merchantId, platformId: customerId, ...(email ? { email: emailIs(email) } : {}) }
      : { merchantId, email: emailIs(email!) },
  });
  if (!customer) throw notFound('Customer');
  return customer;
}

/** `GET /customers/{id}`: the internal uuid or the platform id. */
export async function findCustomerById(db: Db, merchantId: string, id: string) {
  if (!storable(id)) throw notFound('Customer');
  const customer = await db.customer.findFirst({
    where: isUuid(id) ? { merchantId, OR: [{ id }, { platformId: id }] } : { merchantId, platformId: id },
  });
  if (!customer) throw notFound('Customer');
  return customer;
}
