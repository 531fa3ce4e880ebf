// How a GraphQL field names one customer: the admin API by `id` (internal uuid or platform
// id), the public endpoints by `customer_id` or `email`. Every resource's file that takes a
// customer uses these arguments.
import { findCustomerById } from '../domain/customers/customers.js';
import { lookupRule } from '../domain/shared/fields.js';
import { builder, type Context } from './builder.js';
import { ruled } from './rules.js';

/** `id`: how the admin API names one customer (its internal uuid or its platform id). */
export const customerIdArgs = builder.args((t) => ({
  id: t.id({ required: true, ...ruled(lookupRule, 'Internal id (uuid) or platform id') }),
}));

/** The internal id of the merchant's customer named by `id` (404 not_found otherwise). */
export async function customerUuid(ctx: Context, args: { id: string | number }): Promise<string> {
  return (await findCustomerById(ctx.db, ctx.merchantId, String(args.id))).id;
}

/** `customer_id` (platform id) or `email`: how public endpoints name one customer (domain/customers checks them). */
export const customerRefArgs = builder.args((t) => ({
  customer_id: t.string(ruled(lookupRule, "The customer's id on the e-commerce platform; this or `email` is required")),
  email: t.string(ruled(lookupRule, "The customer's email, ignoring the case of A-Z; with `customer_id` too, both must name the customer")),
}));
