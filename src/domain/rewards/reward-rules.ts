// A reward's `reward_rule`: its shape per reward type, used by the
// reward catalogue and by the referral program's referee reward.
import { z } from 'zod';
import type { RewardType } from '../../generated/prisma/enums.js';
import { MAX_AMOUNT } from '../shared/limits.js';

const money = z.number().nonnegative().max(MAX_AMOUNT);
const common = {
  min_order_subtotal: money.nullish(),
  expires_after_days: z.number().int().min(1).max(3650).nullish(),
};

/** The stored `reward_rule` per reward type; `points_required` is derived from points_cost. */
const rewardRuleSchemas = {
  fixed_discount: z.object({ discount_value: money.positive(), ...common }).strict(),
  percentage_discount: z.object({ discount_value: z.number().min(1).max(100), max_discount_amount: money.nullish(), ...common }).strict(),
  free_shipping: z.object({ max_shipping_amount: money.nullish(), ...common }).strict(),
  free_product: z.object({ product_id: z.string().min(1), variant_id: z.string().min(1).nullish(), ...common }).strict(),
  store_credit: z.object({ credit_value: money.positive(), ...common }).strict(),
} satisfies Record<RewardType, z.ZodType>;

export type RewardRule = {
  discount_value?: number | null;
  max_discount_amount?: number | null;
  max_shipping_amount?: number | null;
  product_id?: string | null;
  variant_id?: string | null;
  credit_value?: number | null;
  min_order_subtotal?: number | null;
  expires_after_days?: number | null;
};

/** Reports each problem of `rule` under `reward_rule.<field>`, by the shape of its reward type. */
export function checkRewardRule(type: RewardType, rule: Record<string, unknown>, ctx: z.RefinementCtx) {
  const parsed = rewardRuleSchemas[type].safeParse(rule);
  for (const issue of parsed.error?.issues ?? []) {
    ctx.addIssue({ code: 'custom', path: ['reward_rule', ...issue.path.map(String)], message: issue.message });
  }
}
