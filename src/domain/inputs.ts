// Input shapes of the program's records, in the public field names (spec + DESIGN.md).
// One definition serves the import file, the admin API and seed data.
import { z } from 'zod';
import { CampaignType, CustomerStatus, RewardType, TierQualification, TierWindow } from '../generated/prisma/enums.js';
import { conditionsSchema, earningRuleSchema } from './earning/rule-config.js';
import { rewardRuleSchemas } from './rewards/rewards.js';

const name = z.string().trim().min(1, 'is required').max(200);
const description = z.string().trim().max(2000).nullish();
const timestamp = z.iso.datetime({ offset: true });
const points = z.number().int().min(0).max(1_000_000_000);
// stored as DECIMAL(14,2): twelve integer digits
const money = z.number().nonnegative().max(999_999_999_999);
const uuid = z.uuid();

export const customerInput = z
  .object({
    customer_id: z.string().trim().min(1, 'is required').max(255),
    email: z.email().max(320),
    first_name: z.string().trim().max(200).nullish(),
    last_name: z.string().trim().max(200).nullish(),
    status: z.enum(CustomerStatus).default('member'),
    birthday: z.iso.date().nullish(),
    referral_code: z.string().regex(/^[A-Z0-9]{4,32}$/, 'is 4 to 32 upper-case letters or digits').nullish(),
    created_at: timestamp.nullish(),
  })
  .strict();
export type CustomerInput = z.infer<typeof customerInput>;

/** Reports each problem of `rule` under `reward_rule.<field>`, by the shape of its reward type. */
function checkRewardRule(type: RewardType, rule: Record<string, unknown>, ctx: z.RefinementCtx) {
  const parsed = rewardRuleSchemas[type].safeParse(rule);
  for (const issue of parsed.error?.issues ?? []) {
    ctx.addIssue({ code: 'custom', path: ['reward_rule', ...issue.path.map(String)], message: issue.message });
  }
}

/** A reward: `reward_rule` is checked against its `reward_type`. */
export const rewardInput = z
  .object({
    id: uuid.optional(),
    name,
    description,
    reward_type: z.enum(RewardType),
    points_cost: points.min(1, 'must be at least 1'),
    reward_rule: z.record(z.string(), z.unknown()).default({}),
    is_active: z.boolean().default(true),
    created_at: timestamp.nullish(),
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

export const earningRuleInput = z
  .object({
    id: uuid.optional(),
    name,
    description,
    campaign_type: z.enum(CampaignType),
    earning_rule: earningRuleSchema.nullish(),
    conditions: conditionsSchema.nullish(),
    is_active: z.boolean().default(true),
    created_at: timestamp.nullish(),
  })
  .strict();
export type EarningRuleInput = z.infer<typeof earningRuleInput>;

export const tierInput = z
  .object({
    id: uuid.optional(),
    name,
    description,
    position: z.number().int().min(0).max(1000),
    threshold: z.number().int().min(0).max(2_000_000_000),
    qualification: z.enum(TierQualification).default('points_earned'),
    window: z.enum(TierWindow).default('lifetime'),
    earn_multiplier: z.number().min(0).max(100).default(1),
    benefits: z.array(z.string().trim().min(1).max(500)).max(50).default([]),
    is_default: z.boolean().default(false),
  })
  .strict();
export type TierInput = z.infer<typeof tierInput>;

export const boosterCampaignInput = z
  .object({
    id: uuid.optional(),
    name,
    description,
    multiplier: z.number().positive().max(100),
    campaign_types: z.array(z.enum(CampaignType)).min(1, 'needs at least one campaign type'),
    starts_at: timestamp,
    ends_at: timestamp.nullish(),
    is_active: z.boolean().default(true),
  })
  .strict()
  .refine((b) => !b.ends_at || Date.parse(b.ends_at) > Date.parse(b.starts_at), {
    path: ['ends_at'],
    message: 'must be after starts_at',
  });
export type BoosterCampaignInput = z.infer<typeof boosterCampaignInput>;

export const referralProgramInput = z
  .object({
    is_active: z.boolean().default(true),
    referrer_reward: z.object({ points: points }).strict(),
    referee_reward: z
      .object({ reward_type: z.enum(RewardType), reward_rule: z.record(z.string(), z.unknown()).default({}) })
      .strict()
      .superRefine((r, ctx) => checkRewardRule(r.reward_type, r.reward_rule, ctx)),
    min_order_subtotal: money.nullish(),
    share_url_template: z.string().max(2000).nullish(),
  })
  .strict();
export type ReferralProgramInput = z.infer<typeof referralProgramInput>;
