// Configuring a merchant's loyalty program (the admin API): rewards, earning rules, tiers,
// booster campaigns, the referral program and the merchant's settings. Inputs use the
// public field names of domain/inputs.ts; an update merges its patch onto the stored record
// and validates the whole result, so cross-field rules (reward_rule vs reward_type, ends_at
// after starts_at) hold after every change.
import { z } from 'zod';
import type { Db } from '../db/client.js';
import { Prisma } from '../generated/prisma/client.js';
import type { BoosterCampaign, EarningRule, Merchant, Reward, Tier } from '../generated/prisma/client.js';
import type { CampaignType, RewardType } from '../generated/prisma/enums.js';
import { isUuid } from './customers/customers.js';
import { AppError, notFound } from './shared/errors.js';
import {
  type BoosterCampaignInput,
  type EarningRuleInput,
  type ReferralProgramInput,
  type RewardInput,
  type TierInput,
  boosterCampaignInput,
  earningRuleInput,
  referralProgramInput,
  rewardInput,
  tierInput,
} from './inputs.js';
import { type PageArgs, paginate } from './shared/pagination.js';
import { boosterRow, earningRuleRow, referralProgramRow, rewardRow, tierRow } from './program-rows.js';
import { parseInput } from './shared/validation.js';

type Patch = Record<string, unknown>;

/** The unique index a failed insert/update violated, or null for any other error. */
export function violatedUniqueIndex(err: unknown): string | null {
  if (!(err instanceof Prisma.PrismaClientKnownRequestError) || err.code !== 'P2002') return null;
  const cause = (err.meta as { driverAdapterError?: { cause?: { constraint?: { index?: string } } } } | undefined)
    ?.driverAdapterError?.cause;
  return cause?.constraint?.index ?? 'unique';
}

/** Runs a write; a unique violation becomes 409 conflict with `message`. */
export async function orConflict<T>(write: () => Promise<T>, message: (index: string) => string): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const index = violatedUniqueIndex(err);
    if (index) throw new AppError('conflict', message(index));
    throw err;
  }
}


async function findOwn<T>(what: string, id: string, find: (id: string) => Promise<T | null>): Promise<T> {
  const row = isUuid(id) ? await find(id) : null;
  if (!row) throw notFound(what);
  return row;
}

// ---- rewards ----


function rewardAsInput(r: Reward): Patch {
  return {
    name: r.name,
    description: r.description,
    reward_type: r.rewardType,
    points_cost: r.pointsCost,
    reward_rule: r.rewardRule,
    is_active: r.isActive,
  };
}

export async function createReward(db: Db, merchantId: string, raw: unknown) {
  const input = parseInput(rewardInput, raw);
  return db.reward.create({ data: { merchantId, ...rewardRow(input) } });
}

const findReward = (db: Db, merchantId: string, id: string) =>
  findOwn('Reward', id, (id) => db.reward.findFirst({ where: { id, merchantId } }));

export async function updateReward(db: Db, merchantId: string, id: string, patch: Patch) {
  const current = await findReward(db, merchantId, id);
  const input = parseInput(rewardInput, { ...rewardAsInput(current), ...patch });
  return db.reward.update({ where: { id: current.id }, data: rewardRow(input) });
}

export async function setRewardActive(db: Db, merchantId: string, id: string, isActive: boolean) {
  const current = await findReward(db, merchantId, id);
  return db.reward.update({ where: { id: current.id }, data: { isActive } });
}

/** Every reward, active or not, newest first. */
export function listAllRewards(
  db: Db,
  merchantId: string,
  args: PageArgs & { reward_type?: RewardType | null; is_active?: boolean | null },
) {
  const where = {
    merchantId,
    ...(args.reward_type ? { rewardType: args.reward_type } : {}),
    ...(args.is_active != null ? { isActive: args.is_active } : {}),
  };
  return paginate(
    args,
    (p) => db.reward.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...p }),
    () => db.reward.count({ where }),
  );
}

// ---- earning rules ----


function earningRuleAsInput(r: EarningRule): Patch {
  return {
    name: r.name,
    description: r.description,
    campaign_type: r.campaignType,
    earning_rule: r.earningRule,
    conditions: r.conditions,
    is_active: r.isActive,
  };
}

export async function createEarningRule(db: Db, merchantId: string, raw: unknown) {
  const input = parseInput(earningRuleInput, raw);
  return db.earningRule.create({ data: { merchantId, ...earningRuleRow(input) } });
}

const findEarningRule = (db: Db, merchantId: string, id: string) =>
  findOwn('Earning rule', id, (id) => db.earningRule.findFirst({ where: { id, merchantId } }));

export async function updateEarningRule(db: Db, merchantId: string, id: string, patch: Patch) {
  const current = await findEarningRule(db, merchantId, id);
  const input = parseInput(earningRuleInput, { ...earningRuleAsInput(current), ...patch });
  return db.earningRule.update({ where: { id: current.id }, data: earningRuleRow(input) });
}

export async function setEarningRuleActive(db: Db, merchantId: string, id: string, isActive: boolean) {
  const current = await findEarningRule(db, merchantId, id);
  return db.earningRule.update({ where: { id: current.id }, data: { isActive } });
}

/** Every earning rule, active or not, newest first. */
export function listAllEarningRules(
  db: Db,
  merchantId: string,
  args: PageArgs & { campaign_type?: CampaignType | null; is_active?: boolean | null },
) {
  const where = {
    merchantId,
    ...(args.campaign_type ? { campaignType: args.campaign_type } : {}),
    ...(args.is_active != null ? { isActive: args.is_active } : {}),
  };
  return paginate(
    args,
    (p) => db.earningRule.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...p }),
    () => db.earningRule.count({ where }),
  );
}

// ---- tiers ----


function tierAsInput(t: Tier): Patch {
  return {
    name: t.name,
    description: t.description,
    position: t.position,
    threshold: t.threshold,
    qualification: t.qualification,
    window: t.window,
    earn_multiplier: Number(t.earnMultiplier),
    benefits: t.benefits,
    is_default: t.isDefault,
  };
}

const tierConflict = () => 'Another tier already has this position';

export async function createTier(db: Db, merchantId: string, raw: unknown) {
  const input = parseInput(tierInput, raw);
  const create = db.tier.create({ data: { merchantId, ...tierRow(input) } });
  // one default tier per merchant: the new default replaces the old in the same batch
  return orConflict(async () => {
    if (!input.is_default) return create;
    const [, tier] = await db.$transaction([
      db.tier.updateMany({ where: { merchantId, isDefault: true }, data: { isDefault: false } }),
      create,
    ]);
    return tier;
  }, tierConflict);
}

const findTier = (db: Db, merchantId: string, id: string) =>
  findOwn('Tier', id, (id) => db.tier.findFirst({ where: { id, merchantId } }));

export async function updateTier(db: Db, merchantId: string, id: string, patch: Patch) {
  const current = await findTier(db, merchantId, id);
  const input = parseInput(tierInput, { ...tierAsInput(current), ...patch });
  const update = db.tier.update({ where: { id: current.id }, data: tierRow(input) });
  return orConflict(async () => {
    if (!input.is_default || current.isDefault) return update;
    const [, tier] = await db.$transaction([
      db.tier.updateMany({ where: { merchantId, isDefault: true }, data: { isDefault: false } }),
      update,
    ]);
    return tier;
  }, tierConflict);
}

/** Every tier, by position. */
export function listAllTiers(db: Db, merchantId: string, args: PageArgs) {
  const where = { merchantId };
  return paginate(
    args,
    (p) => db.tier.findMany({ where, orderBy: [{ position: 'asc' }, { id: 'asc' }], ...p }),
    () => db.tier.count({ where }),
  );
}

// ---- booster campaigns ----


function boosterAsInput(b: BoosterCampaign): Patch {
  return {
    name: b.name,
    description: b.description,
    multiplier: Number(b.multiplier),
    campaign_types: b.campaignTypes,
    starts_at: b.startsAt.toISOString(),
    ends_at: b.endsAt?.toISOString() ?? null,
    is_active: b.isActive,
  };
}

export async function createBoosterCampaign(db: Db, merchantId: string, raw: unknown) {
  const input = parseInput(boosterCampaignInput, raw);
  return db.boosterCampaign.create({ data: { merchantId, ...boosterRow(input) } });
}

const findBooster = (db: Db, merchantId: string, id: string) =>
  findOwn('Booster campaign', id, (id) => db.boosterCampaign.findFirst({ where: { id, merchantId } }));

export async function updateBoosterCampaign(db: Db, merchantId: string, id: string, patch: Patch) {
  const current = await findBooster(db, merchantId, id);
  const input = parseInput(boosterCampaignInput, { ...boosterAsInput(current), ...patch });
  return db.boosterCampaign.update({ where: { id: current.id }, data: boosterRow(input) });
}

export async function setBoosterCampaignActive(db: Db, merchantId: string, id: string, isActive: boolean) {
  const current = await findBooster(db, merchantId, id);
  return db.boosterCampaign.update({ where: { id: current.id }, data: { isActive } });
}

/** Every booster campaign, whatever its dates or state, newest start first. */
export function listAllBoosterCampaigns(db: Db, merchantId: string, args: PageArgs & { is_active?: boolean | null }) {
  const where = { merchantId, ...(args.is_active != null ? { isActive: args.is_active } : {}) };
  return paginate(
    args,
    (p) => db.boosterCampaign.findMany({ where, orderBy: [{ startsAt: 'desc' }, { id: 'desc' }], ...p }),
    () => db.boosterCampaign.count({ where }),
  );
}

// ---- referral program ----


/** Creates or replaces the merchant's one referral program. */
export async function setReferralProgram(db: Db, merchantId: string, raw: unknown) {
  const data = referralProgramRow(parseInput(referralProgramInput, raw));
  return db.referralProgram.upsert({ where: { merchantId }, create: { merchantId, ...data }, update: data });
}

export function getReferralProgram(db: Db, merchantId: string) {
  return db.referralProgram.findUnique({ where: { merchantId } });
}

// ---- merchant settings ----

const settingsInput = z
  .object({
    name: z.string().trim().min(1, 'is required').max(200),
    currency: z.string().regex(/^[A-Z]{3}$/, 'is a 3-letter ISO 4217 code, e.g. USD'),
    points_expiry_days: z.number().int().min(1).max(36_500).nullable(),
  })
  .partial()
  .strict();

/** Name, currency and points expiry (null turns expiry off); absent fields are left alone. */
export async function updateMerchantSettings(db: Db, merchantId: string, patch: Patch): Promise<Merchant> {
  const input = parseInput(settingsInput, patch);
  return db.merchant.update({
    where: { id: merchantId },
    data: {
      ...(input.name !== undefined && { name: input.name }),
      ...(input.currency !== undefined && { currency: input.currency }),
      ...(input.points_expiry_days !== undefined && { pointsExpiryDays: input.points_expiry_days }),
    },
  });
}
