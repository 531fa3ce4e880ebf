// Rewards (spec 2.2): the catalogue customers redeem from, and its configuration by the
// admin API and the import. The input uses the public field names; `reward_rule` is checked
// against the reward type (reward-rules.ts).
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { columnsOf } from '../../db/sql.js';
import { Prisma, type Reward } from '../../generated/prisma/client.js';
import { RewardType } from '../../generated/prisma/enums.js';
import { field } from '../shared/fields.js';
import { rowKey } from '../shared/keys.js';
import { fieldMapping } from '../shared/model-fields.js';
import { type PageArgs, pageRows } from '../shared/pagination.js';
import { findOwn, isUuid, mergePatch, type Patch } from '../shared/records.js';
import { parseInput } from '../shared/validation.js';
import { checkRewardRule } from './reward-rules.js';

/** A reward: `reward_rule` is checked against its `reward_type`. */
export const rewardInput = z
  .object({
    id: field.id.optional(),
    name: field.name,
    description: field.description,
    reward_type: z.enum(RewardType),
    points_cost: field.points.min(1, 'must be at least 1'),
    reward_rule: z.record(z.string(), z.unknown()).default({}),
    product_name: field.productName,
    product_image_url: field.productImageUrl,
    is_active: z.boolean().default(true),
    created_at: field.timestamp.nullish(),
  })
  .strict()
  .superRefine((reward, ctx) => {
    // points_required is derived from points_cost; accept it when it agrees
    const { points_required, ...rule } = reward.reward_rule;
    if (points_required !== undefined && points_required !== reward.points_cost) {
      ctx.addIssue({ code: 'custom', path: ['reward_rule', 'points_required'], message: 'must equal points_cost' });
    }
    checkRewardRule(reward.reward_type, rule, ctx);
  });
export type RewardInput = z.infer<typeof rewardInput>;

const rewardFields = fieldMapping(rewardInput);

export function rewardRow(input: RewardInput) {
  // points_required is derived from points_cost, never stored
  const { points_required: _derived, ...rule } = input.reward_rule;
  return { ...rewardFields.data(input), rewardRule: rule as Prisma.InputJsonValue };
}

const rewardColumns = columnsOf(Prisma.RewardScalarFieldEnum, 'r');

/**
 * Rewards, newest first, optionally of one type; never a referral program's own reward
 * (referrals.ts), which is not part of the catalogue. `activeOnly`: the catalogue (active rewards
 * only); the admin API sees them all, optionally filtered by `is_active`.
 */
export function listRewards(
  db: Db,
  merchantId: string,
  args: PageArgs & { reward_type?: RewardType | null; is_active?: boolean | null },
  { activeOnly }: { activeOnly: boolean },
) {
  const isActive = activeOnly ? true : args.is_active;
  return pageRows<Reward>(db, args, {
    columns: rewardColumns,
    from: Prisma.sql`rewards r`,
    where: Prisma.join(
      [
        Prisma.sql`r.merchant_id = ${merchantId}::uuid AND NOT r.referral_reward`,
        ...(isActive != null ? [Prisma.sql`r.is_active = ${isActive}`] : []),
        ...(args.reward_type ? [Prisma.sql`r.reward_type = ${args.reward_type}::"RewardType"`] : []),
      ],
      ' AND ',
    ),
    order: Prisma.sql`r.created_at DESC, r.id DESC`,
  });
}

/**
 * One reward of the merchant, else 404. `activeOnly`: the catalogue's view (an inactive
 * reward is not found, as in the list, and cannot be redeemed); the admin API sees them all.
 */
/** The merchant's rewards with these ids, active or not, in any order (unknown ids are absent). */
export function findRewards(db: Db, merchantId: string, ids: readonly string[]) {
  return db.reward.findMany({ where: { merchantId, id: { in: ids.filter(isUuid) } } });
}

export function findReward(db: Db, merchantId: string, id: string, { activeOnly }: { activeOnly: boolean }) {
  return findOwn('Reward', id, (id) =>
    db.reward.findFirst({ where: { id, merchantId, referralReward: false, ...(activeOnly ? { isActive: true } : {}) } }),
  );
}

export async function createReward(db: Db, merchantId: string, raw: unknown) {
  const input = parseInput(rewardInput, raw);
  return db.reward.create({ data: { merchantId, ...rewardRow(input) } });
}

export async function updateReward(db: Db, merchantId: string, id: string, patch: Patch) {
  const current = await findReward(db, merchantId, id, { activeOnly: false });
  const input = mergePatch(rewardInput, rewardFields.input(current), patch);
  return db.reward.update({ where: rowKey(merchantId, current.id), data: rewardRow(input) });
}

export async function setRewardActive(db: Db, merchantId: string, id: string, isActive: boolean) {
  const current = await findReward(db, merchantId, id, { activeOnly: false });
  return db.reward.update({ where: rowKey(merchantId, current.id), data: { isActive } });
}
