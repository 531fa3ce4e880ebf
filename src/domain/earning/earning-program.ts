// Loads what the calculator needs for one customer and campaign type at one moment: the
// active rules, the customer's tier, the boosters in force and the limit usage. The engine
// and the estimate both load through here, so they calculate from the same earning program
// (the admin configuration of rules, rewards and tiers is the other sense of "program"). An
// event recorded after it happened is judged by the program and the tier in force then
// (program-at.ts).
import type { Db } from '../../db/client.js';
import { valuesOf } from '../../db/sql.js';
import { type Customer, Prisma, type Tier } from '../../generated/prisma/client.js';
import type { CampaignType } from '../../generated/prisma/enums.js';
import type { Program } from '../merchants/program.js';
import { notFound } from '../shared/errors.js';
import type { MaybePromise } from '../shared/maybe-promise.js';
import { defaultTier } from '../tiers/standing.js';
import { currentBoostersSql } from './booster-campaigns.js';
import type { EarningProgram } from './calculator.js';
import { countUsage, type LimitedRule } from './limits.js';
import { programTable, tierHeldAt } from './program-at.js';
import { effectiveLimit, parseConditions } from './rule-config.js';

type ProgramCustomer = Pick<Customer, 'id' | 'tierId' | 'status'>;

/** What an earning program reads of the merchant's: its currency, its calendar's zone, its tier ladder, its rules and boosters. */
export type MerchantSettings = Pick<Program, 'currency' | 'zone' | 'tiers' | 'rules' | 'boosters'>;

/** The rules' limits (explicit or by campaign type), for usage counting and slot claims. */
export function limitedRules(rules: EarningProgram['earningRules']): LimitedRule[] {
  return rules.flatMap((rule) => {
    const conditions = rule.conditions == null ? null : parseConditions(rule.conditions);
    if (conditions && !conditions.success) return [];
    const limit = effectiveLimit(rule.campaignType, conditions?.data ?? null);
    return limit ? [{ id: rule.id, limit }] : [];
  });
}

/** An excluded customer earns nothing, whatever the program. */
export const earnsNothing = (customer: Pick<Customer, 'status'> | null) => customer?.status === 'excluded';

/**
 * The program as it applies to `customer` (null: an anonymous cart, no tier, no usage) for
 * `campaignType` at `at`, with limit usage counted in the periods of the merchant's calendar
 * containing `at`. `past`: `at` is before the event was recorded, so the program and the tier
 * are the ones in force then; otherwise as they stand. An excluded customer earns nothing.
 * `settings`: the merchant's program as the caller holds it (the instance's program cache, as
 * an estimate reads it); the program is then not read, only the customer. Else it is read in
 * one round trip, with the customer when that is still on its way (as it stands).
 */
export async function loadEarningProgram(
  db: Db,
  merchantId: string,
  customer: MaybePromise<ProgramCustomer | null>,
  campaignType: CampaignType,
  at: Date,
  past = false,
  settings?: MaybePromise<MerchantSettings>,
): Promise<EarningProgram> {
  const [read, found] = await readProgram(db, merchantId, customer, campaignType, at, past, settings);
  if (earnsNothing(found)) {
    return { earningRules: [], tierMultiplier: 1, tierId: null, boosters: [], usage: {}, currency: read.currency };
  }
  const { rules, boosters } = read;
  const tier = found ? heldOrDefault(read.tiers, read.held) : null;
  // only limits are counted in the merchant's calendar
  const limited = found ? limitedRules(rules) : [];
  const timezone = limited.length ? read.timezone : undefined;
  const usage = found && timezone ? await countUsage(db, merchantId, found.id, limited, at, timezone) : {};
  return {
    earningRules: rules,
    tierMultiplier: tier ? Number(tier.earnMultiplier) : 1,
    tierId: tier?.id ?? null,
    tierName: tier?.name ?? null,
    boosters: boosters.map((b) => ({
      id: b.id,
      name: b.name,
      multiplier: Number(b.multiplier),
      // read as JSON: timestamps come as text
      startsAt: new Date(b.startsAt),
      endsAt: b.endsAt === null ? null : new Date(b.endsAt),
    })),
    usage,
    timezone,
    currency: read.currency,
  };
}

type ProgramTier = Pick<Tier, 'id' | 'name' | 'earnMultiplier' | 'isDefault'>;

/** The tier a customer earns under: the one it holds while that is active, else the merchant's default (`tiers`: active, lowest position first). */
const heldOrDefault = (tiers: readonly ProgramTier[], held: string | null) =>
  (held ? tiers.find((t) => t.id === held) : undefined) ?? defaultTier(tiers);

/** A booster campaign as read (JSON: its timestamps as text). */
export interface BoosterRead {
  id: string;
  name: string;
  multiplier: number;
  startsAt: string;
  endsAt: string | null;
  campaignTypes: CampaignType[];
}

interface ProgramRead {
  currency: string;
  timezone: string;
  rules: EarningProgram['earningRules'];
  boosters: BoosterRead[];
  /** The active tiers, lowest position first, and the one the customer held. */
  tiers: ProgramTier[];
  held: string | null;
}

/**
 * The merchant's currency, zone and tiers, the active rules of the campaign type (oldest first)
 * and the boosters in force for it: from `settings` when given (as they stand), else in one
 * round trip (valuesOf), with the customer when it is still being read. `past`: each as it was
 * at `at`, with the tier the customer then held.
 */
async function readProgram(
  db: Db,
  merchantId: string,
  customer: MaybePromise<ProgramCustomer | null>,
  campaignType: CampaignType,
  at: Date,
  past: boolean,
  settings: MaybePromise<MerchantSettings> | undefined,
): Promise<[ProgramRead, ProgramCustomer | null]> {
  const asOf = past ? at : null;
  if (settings && !past) {
    // all of it from the instance's program cache: only the customer is read
    const [known, found] = await Promise.all([settings, customer]);
    const program: ProgramRead = {
      currency: known.currency,
      timezone: known.zone,
      rules: known.rules.filter((r) => r.campaignType === campaignType),
      boosters: known.boosters.filter((b) => b.campaignTypes.includes(campaignType)),
      tiers: known.tiers,
      held: found?.tierId ?? null,
    };
    return [program, found];
  }
  // the ladder as it was then needs the customer first (the tier held then is the customer's)
  const first = past ? await customer : null;
  const reading = valuesOf(db, {
    merchant: Prisma.sql`SELECT json_build_object('currency', m.currency, 'zone', m.timezone) FROM merchants m WHERE m.id = ${merchantId}::uuid`,
    rules: rulesJsonSql(
      programTable('earning_rules', merchantId, asOf),
      Prisma.sql`r.merchant_id = ${merchantId}::uuid AND r.is_active AND r.campaign_type = ${campaignType}::"CampaignType"`,
    ),
    boosters: boostersJsonSql(
      programTable('booster_campaigns', merchantId, asOf),
      Prisma.sql`b.merchant_id = ${merchantId}::uuid AND ${currentBoostersSql(at)} AND ${campaignType}::"CampaignType" = ANY(b.campaign_types)`,
    ),
    tiers: Prisma.sql`
        SELECT coalesce(json_agg(json_build_object('id', t.id, 'name', t.name, 'earnMultiplier', t.earn_multiplier,
                                                   'isDefault', t.is_default)
                                 ORDER BY t.position, t.id), '[]')
          FROM ${programTable('tiers', merchantId, asOf)} t
         WHERE t.merchant_id = ${merchantId}::uuid AND t.is_active`,
    held: past && first ? tierHeldAt(merchantId, first.id, at) : null,
  });
  const [read, found] = await Promise.all([reading, customer]);
  const merchant = read.merchant as Pick<MerchantSettings, 'currency' | 'zone'> | null;
  if (!merchant) throw notFound('Merchant');
  const program: ProgramRead = {
    currency: merchant.currency,
    timezone: merchant.zone,
    rules: read.rules as ProgramRead['rules'],
    boosters: read.boosters as ProgramRead['boosters'],
    tiers: (read.tiers ?? []) as ProgramTier[],
    held: past ? ((read.held ?? null) as string | null) : (found?.tierId ?? null),
  };
  return [program, found];
}

/** Earning rules as the calculator reads them, oldest first: over `from` as `r`, those `where` says. */
export const rulesJsonSql = (from: Prisma.Sql, where: Prisma.Sql) => Prisma.sql`
  SELECT coalesce(json_agg(json_build_object('id', r.id, 'name', r.name, 'campaignType', r.campaign_type,
                                             'earningRule', r.earning_rule, 'conditions', r.conditions)
                           ORDER BY r.created_at, r.id), '[]')
    FROM ${from} r WHERE ${where}`;

/** Booster campaigns as the calculator reads them (BoosterRead), oldest first: over `from` as `b`, those `where` says. */
export const boostersJsonSql = (from: Prisma.Sql, where: Prisma.Sql) => Prisma.sql`
  SELECT coalesce(json_agg(json_build_object('id', b.id, 'name', b.name, 'multiplier', b.multiplier,
                                             'startsAt', b.starts_at, 'endsAt', b.ends_at, 'campaignTypes', b.campaign_types)
                           ORDER BY b.created_at, b.id), '[]')
    FROM ${from} b WHERE ${where}`;
