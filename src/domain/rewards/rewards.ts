// The reward catalogue and its `reward_rule` shapes (DESIGN.md "Reward rule").
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import type { RewardType } from '../../generated/prisma/enums.js';
import { notFound } from '../shared/errors.js';
import { isUuid } from '../customers/customers.js';
import { type PageArgs, paginate } from '../shared/pagination.js';

const money = z.number().nonnegative().max(1e9);
const common = {
  min_order_subtotal: money.nullish(),
  expires_after_days: z.number().int().min(1).max(3650).nullish(),
};

/** The stored `reward_rule` per reward type; `points_required` is derived from points_cost. */
export const rewardRuleSchemas = {
  fixed_discount: z.object({ discount_value: money.positive(), ...common }).strict(),
  percentage_discount: z
    .object({ discount_value: z.number().min(1).max(100), max_discount_amount: money.nullish(), ...common })
    .strict(),
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

export function listRewards(db: Db, merchantId: string, args: PageArgs & { reward_type?: RewardType | null }) {
  const where = { merchantId, isActive: true, ...(args.reward_type ? { rewardType: args.reward_type } : {}) };
  return paginate(
    args,
    (p) => db.reward.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...p }),
    () => db.reward.count({ where }),
  );
}

/** One reward of the catalogue; an inactive one is not found, as in the list. */
export async function findReward(db: Db, merchantId: string, id: string) {
  const reward = isUuid(id) ? await db.reward.findFirst({ where: { id, merchantId, isActive: true } }) : null;
  if (!reward) throw notFound('Reward');
  return reward;
}
