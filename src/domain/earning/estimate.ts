// The points estimate (POST /points/estimate): what a cart would earn now, for a customer or
// anonymously. It loads the earning program as an order would and runs the same calculator.
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { findCustomer } from '../customers/customers.js';
import { identifier } from '../shared/fields.js';
import type { MaybePromise } from '../shared/maybe-promise.js';
import { parseInput } from '../shared/validation.js';
import { calculatePoints, cartSchema, checkCurrency } from './calculator.js';
import { loadEarningProgram, type MerchantSettings } from './earning-program.js';

/** The estimate's rules (the API's descriptions and OpenAPI document state them from here). */
export const estimateRules = {
  customer_id: identifier(255).nullish(),
  ...cartSchema,
};
const estimateInput = z.object(estimateRules);
export type EstimateInput = z.input<typeof estimateInput>;

type FindCustomer = (customerId: string | null | undefined) => Promise<Awaited<ReturnType<typeof findCustomer>> | null>;

/**
 * `find`: the customer the estimate is for (default: the one `customer_id` names, if any);
 * `settings`: the merchant's currency and zone, when the caller holds them.
 */
export async function estimatePoints(
  db: Db,
  merchantId: string,
  raw: EstimateInput,
  { find, settings, now = new Date() }: { find?: FindCustomer; settings?: MaybePromise<MerchantSettings>; now?: Date } = {},
) {
  const input = parseInput(estimateInput, raw);
  const findDefault: FindCustomer = async (id) => (id ? findCustomer(db, merchantId, { customer_id: id }) : null);
  // the customer is read beside the program, in the same round trip; the merchant's currency
  // comes with the program (or from `settings`)
  const customer = (find ?? findDefault)(input.customer_id);
  const program = await loadEarningProgram(db, merchantId, customer, 'purchase', now, false, settings);
  const currency = checkCurrency(input.currency, program.currency!);
  return { ...calculatePoints(program, input, now), currency };
}
