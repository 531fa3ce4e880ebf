// Manual credits and debits (spec 4.2): the public POST /customers/transactions and the admin
// app's adjustment with its reason. One rule for both: points a non-zero integer, a reason of
// 1 to 500 characters; a debit below zero is 422 adjustment_failed (the ledger's rule).
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { maxChars, NOT_BLANK } from '../shared/fields.js';
import { parseInput } from '../shared/validation.js';
import { applyPoints } from './ledger.js';

/** The adjustment's rules (the API's descriptions and OpenAPI document state them from here). */
export const adjustmentRules = {
  points: z
    .number()
    .int()
    .refine((n) => n !== 0, 'must not be zero')
    .meta({ not: { const: 0 } }),
  description: maxChars(z.string().trim().min(1, 'is required'), 500).meta({ pattern: NOT_BLANK }),
};
const adjustmentInput = z.object(adjustmentRules);

/** Validates the adjustment before the customer is looked up (422 before 404, as REST does). */
export const parseAdjustment = (raw: unknown) => parseInput(adjustmentInput, raw);

/** The customer by its id, or by its platform id (found by the ledger's statement itself: 404 if unknown). */
export function adjustPoints(
  db: Db,
  merchantId: string,
  customer: { customerId: string } | { platformId: string },
  input: z.infer<typeof adjustmentInput>,
) {
  return applyPoints(db, {
    ...customer,
    merchantId,
    points: input.points,
    description: input.description,
    source: 'manual',
    activityType: 'adjustment',
  });
}
