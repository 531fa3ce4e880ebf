// Earning rules ("ways to earn", spec 2.1): how points are calculated and when they apply.
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import type { CampaignType } from '../../generated/prisma/enums.js';
import { type PageArgs, paginate } from '../shared/pagination.js';

export const earningRuleSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('fixed'), value: z.number().int().min(0).max(1_000_000) }).strict(),
  z
    .object({
      type: z.literal('variable'),
      value: z.number().positive().max(1_000_000),
      per_amount: z.number().positive().max(1e9),
    })
    .strict(),
]);
export type EarningRuleConfig = z.infer<typeof earningRuleSchema>;

export const limitPeriods = ['day', 'week', 'month', 'year', 'lifetime'] as const;

export const conditionsSchema = z
  .object({
    min_order_subtotal: z.number().nonnegative().nullish(),
    max_points_per_order: z.number().int().positive().nullish(),
    tier_ids: z.array(z.string().uuid()).nullish(),
    product_ids: z.array(z.string().min(1)).nullish(),
    excluded_product_ids: z.array(z.string().min(1)).nullish(),
    limit: z.object({ count: z.number().int().positive(), period: z.enum(limitPeriods) }).strict().nullish(),
    starts_at: z.iso.datetime({ offset: true }).nullish(),
    ends_at: z.iso.datetime({ offset: true }).nullish(),
  })
  .strict();
export type EarningConditions = z.infer<typeof conditionsSchema>;

export function listEarningRules(
  db: Db,
  merchantId: string,
  args: PageArgs & { campaign_type?: CampaignType | null },
) {
  const where = { merchantId, isActive: true, ...(args.campaign_type ? { campaignType: args.campaign_type } : {}) };
  return paginate(
    args,
    (p) => db.earningRule.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...p }),
    () => db.earningRule.count({ where }),
  );
}
