// Program records from their input shapes (domain/inputs.ts) to database rows: one mapping
// per resource, shared by the admin API and the import.
import { Prisma } from '../generated/prisma/client.js';
import type { BoosterCampaignInput, EarningRuleInput, ReferralProgramInput, RewardInput, TierInput } from './inputs.js';

const jsonOrNull = (value: unknown) => (value == null ? Prisma.DbNull : (value as Prisma.InputJsonValue));
const dateOrNull = (iso: string | null | undefined) => (iso ? new Date(iso) : null);

export function rewardRow(input: RewardInput) {
  // points_required is derived from points_cost, never stored
  const { points_required: _derived, ...rule } = input.reward_rule;
  return {
    name: input.name,
    description: input.description ?? null,
    rewardType: input.reward_type,
    pointsCost: input.points_cost,
    rewardRule: rule as Prisma.InputJsonValue,
    isActive: input.is_active,
  };
}

export function earningRuleRow(input: EarningRuleInput) {
  return {
    name: input.name,
    description: input.description ?? null,
    campaignType: input.campaign_type,
    earningRule: jsonOrNull(input.earning_rule),
    conditions: jsonOrNull(input.conditions),
    isActive: input.is_active,
  };
}

export function tierRow(input: TierInput) {
  return {
    name: input.name,
    description: input.description ?? null,
    position: input.position,
    threshold: input.threshold,
    qualification: input.qualification,
    window: input.window,
    earnMultiplier: input.earn_multiplier,
    benefits: input.benefits,
    isDefault: input.is_default,
  };
}

export function boosterRow(input: BoosterCampaignInput) {
  return {
    name: input.name,
    description: input.description ?? null,
    multiplier: input.multiplier,
    campaignTypes: [...new Set(input.campaign_types)],
    startsAt: new Date(input.starts_at),
    endsAt: dateOrNull(input.ends_at),
    isActive: input.is_active,
  };
}

export function referralProgramRow(input: ReferralProgramInput) {
  return {
    isActive: input.is_active,
    referrerPoints: input.referrer_reward.points,
    refereeRewardType: input.referee_reward.reward_type,
    refereeRewardRule: input.referee_reward.reward_rule as Prisma.InputJsonValue,
    minOrderSubtotal: input.min_order_subtotal ?? null,
    shareUrlTemplate: input.share_url_template ?? null,
  };
}
