// The points calculator: the one function that says what a cart (or an action) earns. The
// engine awards exactly what it returns and `POST /points/estimate` answers with it, so an
// estimate always equals the award for the same cart, customer and moment. Pure: no database
// and no clock (the moment is an argument); earning-program.ts loads what it judges.
import { z } from 'zod';
import type { CampaignType } from '../../generated/prisma/enums.js';
import { validationError } from '../shared/errors.js';
import { maxChars } from '../shared/fields.js';
import { MAX_AMOUNT, MAX_BALANCE } from '../shared/limits.js';
import { type EarningConditions, type EarningRuleConfig, effectiveLimit, parseConditions, parseEarningRule } from './rule-config.js';

export interface EarningProgramRule {
  id: string;
  name: string;
  campaignType: CampaignType;
  /** Stored JSON: `{type, value, per_amount?}`; a rule whose JSON does not parse pays nothing. */
  earningRule: unknown;
  conditions: unknown;
}

export interface EarningProgramBooster {
  id: string;
  name: string;
  multiplier: number;
  startsAt?: Date | null;
  endsAt?: Date | null;
}

/** Everything the calculation depends on besides the cart, loaded by earning-program.ts (loadEarningProgram). */
export interface EarningProgram {
  /** Active rules of the campaign type being calculated. */
  earningRules: EarningProgramRule[];
  tierMultiplier: number;
  tierId: string | null;
  tierName?: string | null;
  /** Active boosters of the campaign type (their window is re-checked against `now`). */
  boosters: EarningProgramBooster[];
  /** Awards each limited rule already made in its current period (rule id → count). */
  usage: Record<string, number>;
  /** The merchant's time zone, whose calendar the limit periods follow (UTC when absent). */
  timezone?: string;
  /** The merchant's currency, read with the program. */
  currency?: string;
}

interface LineItem {
  product_id: string;
  quantity: number;
  price: number;
}

export interface Cart {
  subtotal: number;
  line_items?: LineItem[] | null;
}

export interface BreakdownEntry {
  source: 'earning_rule' | 'booster' | 'tier';
  id: string;
  name: string;
  points: number;
}

export interface PointsCalculation {
  points: number;
  base_points: number;
  bonus_points: number;
  breakdown: BreakdownEntry[];
}

/** An amount in whole cents: amounts are compared and summed in cents, free of float noise. */
export const cents = (amount: number) => Math.round(amount * 100);

/** Floors after trimming float noise (1.15 * 100 is 114.99999999999999, which earns 115). */
const floorPoints = (x: number) => Math.floor(Math.round(x * 1e6) / 1e6);

/** The amount a rule counts, in cents, or null when its product conditions exclude the whole cart. */
function eligibleCents(conditions: EarningConditions | null, cart: Cart): number | null {
  const include = conditions?.product_ids?.length ? new Set(conditions.product_ids) : null;
  const exclude = conditions?.excluded_product_ids?.length ? new Set(conditions.excluded_product_ids) : null;
  if (!include && !exclude) return cents(cart.subtotal);
  // without line items only an exclusion list can be honoured (nothing is known to be excluded)
  if (!cart.line_items?.length) return include ? null : cents(cart.subtotal);
  const eligible = cart.line_items.filter((i) => (!include || include.has(i.product_id)) && !exclude?.has(i.product_id));
  if (eligible.length === 0) return null;
  return eligible.reduce((sum, i) => sum + cents(i.price) * i.quantity, 0);
}

/** What one rule earns before multipliers (may be fractional for a fractional `value`), or 0. */
function rulePoints(rule: EarningProgramRule, program: EarningProgram, cart: Cart, now: Date): number {
  const config = parseEarningRule(rule.earningRule);
  if (!config.success) return 0;
  const parsedConditions = rule.conditions == null ? null : parseConditions(rule.conditions);
  if (parsedConditions && !parsedConditions.success) return 0;
  const conditions = parsedConditions?.data ?? null;

  if (conditions?.starts_at && now < new Date(conditions.starts_at)) return 0;
  if (conditions?.ends_at && now >= new Date(conditions.ends_at)) return 0;
  if (conditions?.tier_ids?.length && !(program.tierId && conditions.tier_ids.includes(program.tierId))) return 0;
  const limit = effectiveLimit(rule.campaignType, conditions);
  if (limit && (program.usage[rule.id] ?? 0) >= limit.count) return 0;
  if (conditions?.min_order_subtotal != null && cents(cart.subtotal) < cents(conditions.min_order_subtotal)) return 0;

  const eligible = eligibleCents(conditions, cart);
  if (eligible === null) return 0;
  const points = earned(config.data, eligible);
  return conditions?.max_points_per_order != null ? Math.min(points, conditions.max_points_per_order) : points;
}

function earned(config: EarningRuleConfig, eligibleCents: number): number {
  if (config.type === 'fixed') return config.value;
  return floorPoints(eligibleCents / (config.per_amount * 100)) * config.value;
}

/**
 * Points for `cart` under `program` at `now`. PURE: no I/O, same answer for the same input.
 *
 * base = the sum of the matching rules. The tier multiplies the base; boosters add their
 * (multiplier − 1) parts to one factor on top of that, so two 2× boosters make 3×, not 4×:
 *   total = base × tier × (1 + Σ(booster − 1))
 * Nothing is rounded until the end: the total is floored once (bonus = total − base). The
 * breakdown's entries are the floored running sums' differences, so they add up exactly.
 */
export function calculatePoints(program: EarningProgram, cart: Cart, now: Date): PointsCalculation {
  const raw: BreakdownEntry[] = [];
  for (const rule of program.earningRules) {
    const points = rulePoints(rule, program, cart, now);
    if (points > 0) raw.push({ source: 'earning_rule', id: rule.id, name: rule.name, points });
  }
  const base = raw.reduce((sum, e) => sum + e.points, 0);
  const ruleCount = raw.length;
  if (base > 0) {
    if (program.tierId && program.tierMultiplier !== 1) {
      raw.push({
        source: 'tier',
        id: program.tierId,
        name: program.tierName ?? 'Tier',
        points: base * (program.tierMultiplier - 1),
      });
    }
    const tiered = base * (program.tierId ? program.tierMultiplier : 1);
    for (const booster of program.boosters) {
      if (booster.startsAt && now < booster.startsAt) continue;
      if (booster.endsAt && now >= booster.endsAt) continue;
      if (booster.multiplier === 1) continue;
      raw.push({ source: 'booster', id: booster.id, name: booster.name, points: tiered * (booster.multiplier - 1) });
    }
  }
  // floored running sums (never below zero) turn fractional parts into whole points
  let running = 0;
  let floored = 0;
  const breakdown = raw.map((entry) => {
    running += entry.points;
    const next = Math.max(0, floorPoints(running));
    const points = next - floored;
    floored = next;
    return { ...entry, points };
  });
  if (floored > MAX_BALANCE) {
    // a misconfigured rule or an absurd cart: refuse rather than overflow the ledger
    throw validationError({ subtotal: [`earns more than the maximum of ${MAX_BALANCE} points`] });
  }
  const basePoints = breakdown.slice(0, ruleCount).reduce((sum, e) => sum + e.points, 0);
  return { points: floored, base_points: basePoints, bonus_points: floored - basePoints, breakdown };
}

// ---- a cart's shape, as the estimate and orders accept it ----

const money = z.number().finite().nonnegative('must be at least 0').max(MAX_AMOUNT);
export const lineItemSchema = z.object({
  product_id: maxChars(z.string().trim().min(1, 'is required'), 255),
  quantity: z.number().int().min(1, 'must be at least 1').max(1_000_000),
  price: money,
});
export const cartSchema = {
  subtotal: money,
  currency: z
    .string()
    .trim()
    .regex(/^[A-Za-z]{3}$/, 'must be a 3-letter currency code')
    .transform((c) => c.toUpperCase())
    .nullish(),
  line_items: z.array(lineItemSchema).max(1000).nullish(),
};

/** Rules are written in the shop's currency; an amount in another one cannot be judged. */
export function checkCurrency(currency: string | null | undefined, shopCurrency: string): string {
  if (currency && currency !== shopCurrency) {
    throw validationError({ currency: [`must be the shop currency ${shopCurrency}`] });
  }
  return shopCurrency;
}
