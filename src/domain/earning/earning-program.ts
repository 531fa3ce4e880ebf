// Loads what the calculator needs for one customer and campaign type at one moment: the
// active rules, the customer's tier, the boosters in force and the limit usage. The engine
// and the estimate both load through here, so they calculate from the same earning program
// (the admin configuration of rules, rewards and tiers is the other sense of "program").
import type { Db } from '../../db/client.js';
import type { Customer } from '../../generated/prisma/client.js';
import type { CampaignType } from '../../generated/prisma/enums.js';
import { merchantTimeZone } from '../merchants/merchants.js';
import { currentBoostersWhere } from './booster-campaigns.js';
import type { EarningProgram } from './calculator.js';
import { type LimitedRule, countUsage } from './limits.js';
import { conditionsSchema, effectiveLimit } from './rule-config.js';

type ProgramCustomer = Pick<Customer, 'id' | 'tierId' | 'status'>;

/**
 * The customer's tier: its assigned one, else the merchant's default (as tier status shows it).
 * An inactive tier is skipped, as evaluation skips it.
 */
async function tierOf(db: Db, merchantId: string, customer: ProgramCustomer) {
  const select = { id: true, name: true, earnMultiplier: true } as const;
  if (customer.tierId) {
    const tier = await db.tier.findFirst({ where: { id: customer.tierId, merchantId, isActive: true }, select });
    if (tier) return tier;
  }
  return db.tier.findFirst({
    where: { merchantId, isActive: true },
    orderBy: [{ isDefault: 'desc' }, { position: 'asc' }, { id: 'asc' }],
    select,
  });
}

/** The rules' limits (explicit or by campaign type), for usage counting and slot claims. */
export function limitedRules(rules: EarningProgram['earningRules']): LimitedRule[] {
  return rules.flatMap((rule) => {
    const conditions = rule.conditions == null ? null : conditionsSchema.safeParse(rule.conditions);
    if (conditions && !conditions.success) return [];
    const limit = effectiveLimit(rule.campaignType, conditions?.data ?? null);
    return limit ? [{ id: rule.id, limit }] : [];
  });
}

/**
 * The program as it applies to `customer` (null: an anonymous cart, no tier, no usage) for
 * `campaignType` at `at`, with limit usage counted in the periods of the merchant's calendar
 * containing `usageAt` (when the action happened). An excluded customer earns nothing.
 */
export async function loadEarningProgram(
  db: Db,
  merchantId: string,
  customer: ProgramCustomer | null,
  campaignType: CampaignType,
  at: Date,
  usageAt: Date = at,
): Promise<EarningProgram> {
  if (customer?.status === 'excluded') {
    return { earningRules: [], tierMultiplier: 1, tierId: null, boosters: [], usage: {} };
  }
  const [rules, boosters, tier] = await Promise.all([
    db.earningRule.findMany({
      where: { merchantId, isActive: true, campaignType },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select: { id: true, name: true, campaignType: true, earningRule: true, conditions: true },
    }),
    db.boosterCampaign.findMany({
      where: { ...currentBoostersWhere(merchantId, at), campaignTypes: { has: campaignType } },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    }),
    customer ? tierOf(db, merchantId, customer) : null,
  ]);
  // only limits are counted in the merchant's calendar: without one, no read of its zone
  const limited = customer ? limitedRules(rules) : [];
  const timezone = limited.length ? await merchantTimeZone(db, merchantId) : undefined;
  const usage = customer && timezone ? await countUsage(db, merchantId, customer.id, limited, usageAt, timezone) : {};
  return {
    earningRules: rules,
    tierMultiplier: tier ? Number(tier.earnMultiplier) : 1,
    tierId: tier?.id ?? null,
    tierName: tier?.name ?? null,
    boosters: boosters.map((b) => ({
      id: b.id,
      name: b.name,
      multiplier: Number(b.multiplier),
      startsAt: b.startsAt,
      endsAt: b.endsAt,
    })),
    usage,
    timezone,
  };
}
