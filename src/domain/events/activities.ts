// Non-purchase actions (signup, review, daily visit, birthday, social, newsletter...). Each
// pays per the active rules of its campaign type, within their limits (a signup pays once,
// a daily visit once a day), multiplied by the tier and the boosters of that type.
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { atomically } from '../../db/transaction.js';
import { CampaignType } from '../../generated/prisma/enums.js';
import { findCustomer } from '../customers/customers.js';
import { creditEarned, describeEarning, earn } from '../earning/earn.js';
import { rowKey } from '../shared/keys.js';
import { parseInput } from '../shared/validation.js';
import { reevaluateTier } from '../tiers/standing.js';
import { claimEvent, eventIdSchema, platformIdSchema, processClaimed, stillProcessing, timestampSchema } from './events.js';

const activityInput = z.object({
  event_id: eventIdSchema,
  customer_id: platformIdSchema,
  campaign_type: z.enum(CampaignType).refine((t) => t !== 'purchase', 'purchases are recorded as orders'),
  occurred_at: timestampSchema.nullish(),
});
export type ActivityInput = z.input<typeof activityInput>;

export interface ActivityResult {
  event_id: string;
  customer_id: string;
  campaign_type: CampaignType;
  points_awarded: number;
  transaction_id: string | null;
  replayed: boolean;
}

/** Records an activity in one transaction: its claim, points and stored result commit together. */
export const recordActivity = (db: Db, merchantId: string, raw: ActivityInput) =>
  atomically(db, (tx) => recordActivityIn(tx, merchantId, raw));

async function recordActivityIn(db: Db, merchantId: string, raw: ActivityInput): Promise<ActivityResult> {
  const input = parseInput(activityInput, raw);
  const customer = await findCustomer(db, merchantId, { customer_id: input.customer_id });
  const claim = await claimEvent(db, merchantId, input.event_id, 'activity');
  if (!claim.claimed) {
    if (claim.result) return { ...(claim.result as unknown as ActivityResult), replayed: true };
    throw stillProcessing(input.event_id);
  }
  const at = input.occurred_at ?? new Date();
  const result = await processClaimed(db, merchantId, [claim.id], async (): Promise<ActivityResult> => {
    const calculation = await earn(db, merchantId, customer, input.campaign_type, { subtotal: 0 }, at);
    const tx = await creditEarned(db, calculation, {
      merchantId,
      customerId: customer.id,
      description: describeEarning(calculation),
      activityType: input.campaign_type,
      reference: { kind: 'event', id: input.event_id },
    });
    return {
      event_id: input.event_id,
      customer_id: customer.platformId,
      campaign_type: input.campaign_type,
      points_awarded: calculation.points,
      transaction_id: tx?.transactionId ?? null,
      replayed: false,
    };
  });
  if (result.points_awarded > 0) {
    await reevaluateTier(db, merchantId, customer.id);
  } else {
    // an action is activity even when it pays nothing (it keeps points from expiring)
    await db.customer.update({ where: rowKey(merchantId, customer.id), data: { lastActivityAt: new Date() } });
  }
  return result;
}
