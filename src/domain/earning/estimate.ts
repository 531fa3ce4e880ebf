// The points estimate (POST /points/estimate): what a cart would earn now, for a customer or
// anonymously. It loads the earning program as an order would and runs the same calculator.
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { findCustomer } from '../customers/customers.js';
import { parseInput } from '../shared/validation.js';
import { calculatePoints, cartSchema, checkCurrency } from './calculator.js';
import { loadEarningProgram } from './earning-program.js';

const estimateInput = z.object({
  customer_id: z.string().trim().min(1, 'must not be empty').max(255).nullish(),
  ...cartSchema,
});
export type EstimateInput = z.input<typeof estimateInput>;

export async function estimatePoints(db: Db, merchantId: string, raw: EstimateInput, now = new Date()) {
  const input = parseInput(estimateInput, raw);
  const [merchant, customer] = await Promise.all([
    db.merchant.findUniqueOrThrow({ where: { id: merchantId }, select: { currency: true } }),
    input.customer_id ? findCustomer(db, merchantId, { customer_id: input.customer_id }) : null,
  ]);
  const currency = checkCurrency(input.currency, merchant.currency);
  const program = await loadEarningProgram(db, merchantId, customer, 'purchase', now);
  return { ...calculatePoints(program, input, now), currency };
}
