// The step every earning event shares: calculate with the customer's earning program, then
// take a limit slot for each limited rule that pays (a slot lost to a concurrent award means
// the rule is used up, so the calculation is redone without it), then credit the result.
// Everything is judged at the moment the event happened (an order placed, an action): the
// rules, boosters and tier in force then (as they stand for an event happening now, what the
// estimate and GET /booster-campaigns show), and limits in that moment's period of the
// merchant's calendar.
import type { Db } from '../../db/client.js';
import type { Customer } from '../../generated/prisma/client.js';
import type { CampaignType } from '../../generated/prisma/enums.js';
import { applyPoints, type LedgerEntry, type LedgerResult } from '../ledger/ledger.js';
import { DEFAULT_TIMEZONE } from '../shared/calendar.js';
import { type Cart, calculatePoints, type EarningProgram, type PointsCalculation } from './calculator.js';
import { limitedRules, loadEarningProgram } from './earning-program.js';
import { claimSlot, type LimitedRule } from './limits.js';

/** When an event happened, and whether that is before it was recorded (then the program in force then judges it). */
export interface Happened {
  at: Date;
  late: boolean;
}

export async function earn(
  db: Db,
  merchantId: string,
  customer: Pick<Customer, 'id' | 'tierId' | 'status'>,
  campaignType: CampaignType,
  cart: Cart,
  happened: Happened,
): Promise<PointsCalculation> {
  const program = await loadEarningProgram(db, merchantId, customer, campaignType, happened.at, happened.late);
  const zone = program.timezone ?? DEFAULT_TIMEZONE;
  return awardWithin(program, cart, happened.at, (rule, used) => claimSlot(db, merchantId, customer.id, rule, used, happened.at, zone));
}

/**
 * The calculation under `program` once every limited rule that pays holds a slot: `claim`
 * takes the next slot of a rule after `used` (false: the rule's slots are gone, so it is
 * calculated again without it). The engine claims slots in the database; a replay of history
 * (finance/replay.ts) counts them in memory, through this same loop.
 */
export async function awardWithin(
  program: EarningProgram,
  cart: Cart,
  now: Date,
  claim: (rule: LimitedRule, used: number) => boolean | Promise<boolean>,
): Promise<PointsCalculation> {
  const limits = new Map(limitedRules(program.earningRules).map((r) => [r.id, r]));
  const claimed = new Set<string>();
  for (;;) {
    const calculation = calculatePoints(program, cart, now);
    const pending = calculation.breakdown.filter((e) => e.source === 'earning_rule' && limits.has(e.id) && !claimed.has(e.id));
    if (pending.length === 0) return calculation;
    for (const entry of pending) {
      const rule = limits.get(entry.id)!;
      const used = program.usage[rule.id] ?? 0;
      if (await claim(rule, used)) claimed.add(rule.id);
      else program.usage[rule.id] = rule.limit.count;
    }
  }
}

/** Credits what an earning event earned through the ledger (placed when it happened); nothing (null) when it earned nothing. */
export async function creditEarned(
  db: Db,
  calculation: PointsCalculation,
  entry: Omit<LedgerEntry, 'points' | 'source'>,
): Promise<LedgerResult | null> {
  if (calculation.points <= 0) return null;
  return applyPoints(db, { ...entry, points: calculation.points, source: 'earning_rule' });
}

/** The names of what paid, for the customer's activity log. */
export function describeEarning(calculation: PointsCalculation): string {
  return calculation.breakdown
    .filter((e) => e.source === 'earning_rule')
    .map((e) => e.name)
    .join(', ');
}
