// The merchant's one referral program: what the public API
// shows of it, and its configuration by the admin API and the import, in the public field
// names. The referee's reward has a reward's `reward_rule` (rewards/reward-rules.ts); its
// fraud checks (fraud-signals.ts) are the admin's only.
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { RewardType } from '../../generated/prisma/enums.js';
import { checkRewardRule } from '../rewards/reward-rules.js';
import { field, webAddress } from '../shared/fields.js';
import { MAX_DECIMAL_14_2 } from '../shared/limits.js';
import { urlRules } from '../shared/urls.js';
import { parseInput } from '../shared/validation.js';
import { fraudChecksInput } from './fraud-signals.js';

const money = z.number().nonnegative().max(MAX_DECIMAL_14_2);

export const referralProgramInput = z
  .object({
    is_active: z.boolean().default(true),
    referrer_reward: z.object({ points: field.points }).strict(),
    referee_reward: z
      .object({ reward_type: z.enum(RewardType), reward_rule: z.record(z.string(), z.unknown()).default({}) })
      .strict()
      .superRefine((r, ctx) => checkRewardRule(r.reward_type, r.reward_rule, ctx)),
    min_order_subtotal: money.nullish(),
    /** The link a shopper shares: an https address, `{referral_code}` standing for the sharer's code. */
    share_url_template: webAddress(urlRules.shareLink)
      .nullish()
      .transform((v) => v || null),
    /** Absent: the checks stay as they are (a new program: the defaults); given: replaced whole. */
    fraud_checks: fraudChecksInput.nullish(),
  })
  .strict();
export type ReferralProgramInput = z.infer<typeof referralProgramInput>;

export function referralProgramRow(input: ReferralProgramInput) {
  return {
    isActive: input.is_active,
    referrerPoints: input.referrer_reward.points,
    refereeRewardType: input.referee_reward.reward_type,
    refereeRewardRule: input.referee_reward.reward_rule as Prisma.InputJsonValue,
    minOrderSubtotal: input.min_order_subtotal ?? null,
    shareUrlTemplate: input.share_url_template ?? null,
    ...(input.fraud_checks && { fraudChecks: input.fraud_checks as Prisma.InputJsonValue }),
  };
}

/** Creates or replaces the merchant's one referral program. */
export async function setReferralProgram(db: Db, merchantId: string, raw: unknown) {
  const data = referralProgramRow(parseInput(referralProgramInput, raw));
  return db.referralProgram.upsert({ where: { merchantId }, create: { merchantId, ...data }, update: data });
}

export function getReferralProgram(db: Db, merchantId: string) {
  return db.referralProgram.findUnique({ where: { merchantId } });
}
