// Non-purchase actions (signup, review, daily visit, birthday, social, newsletter...). Each
// pays per the active rules of its campaign type, within their limits (a signup pays once,
// a daily visit once a day), multiplied by the tier and the boosters of that type, all as in
// force when it occurred (occurred_at: an action recorded late, within the merchant's
// late_earning_days, is judged as it would have been then, as an order is).
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { atomically } from '../../db/transaction.js';
import { CampaignType } from '../../generated/prisma/enums.js';
import { findCustomer } from '../customers/customers.js';
import { creditEarned, describeEarning, earn } from '../earning/earn.js';
import { rowKey } from '../shared/keys.js';
import { parseInput } from '../shared/validation.js';
import { reevaluateTier } from '../tiers/standing.js';
import { claimEvent, eventIdSchema, placedTime, platformIdSchema, processClaimed, stillProcessing, timestampSchema } from './events.js';

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

/**
 * Records an activity in one transaction: its claim, points and stored result commit together.
 * `now`: the moment it is recorded at (the calendar job's own clock), what occurred_at is judged against.
 */
export const recordActivity = (db: Db, merchantId: string, raw: ActivityInput, now = new Date()) =>
  atomically(db, (tx) => recordActivityIn(tx, merchantId, raw, now));

async function recordActivityIn(db: Db, merchantId: string, raw: ActivityInput, now: Date): Promise<ActivityResult> {
  const input = parseInput(activityInput, raw);
  const customer = await findCustomer(db, merchantId, { customer_id: input.customer_id });
  const claim = await claimEvent(db, merchantId, input.event_id, 'activity');
  if (!claim.claimed) {
    if (claim.result) return { ...(claim.result as unknown as ActivityResult), replayed: true };
    throw stillProcessing(input.event_id);
  }
  const result = await processClaimed(db, merchantId, [claim.id], async (): Promise<ActivityResult> => {
    const { lateEarningDays } = await db.merchant.findUniqueOrThrow({ where: { id: merchantId }, select: { lateEarningDays: true } });
    const at = placedTime(input.occurred_at, now, lateEarningDays, 'occurred_at');
    const late = at.getTime() < now.getTime();
    const calculation = await earn(db, merchantId, customer, input.campaign_type, { subtotal: 0 }, { at, late });
    const tx = await creditEarned(db, calculation, {
      merchantId,
      customerId: customer.id,
      description: describeEarning(calculation),
      activityType: input.campaign_type,
      reference: { kind: 'event', id: input.event_id },
      ...(late && { placedAt: at }),
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
