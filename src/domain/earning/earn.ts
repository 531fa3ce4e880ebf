// The step every earning event shares: calculate with the customer's earning program, then
// take a limit slot for each limited rule that pays (a slot lost to a concurrent award means
// the rule is used up, so the calculation is redone without it), then credit the result.
// Rules, tier and boosters are judged when the event is recorded (what the estimate and
// GET /booster-campaigns show then); limits count in the period the action happened in, in
// the merchant's time zone.
import type { Db } from '../../db/client.js';
import type { Customer } from '../../generated/prisma/client.js';
import type { CampaignType } from '../../generated/prisma/enums.js';
import { applyPoints, type LedgerEntry, type LedgerResult } from '../ledger/ledger.js';
import { DEFAULT_TIMEZONE } from '../shared/calendar.js';
import { type Cart, calculatePoints, type EarningProgram, type PointsCalculation } from './calculator.js';
import { limitedRules, loadEarningProgram } from './earning-program.js';
import { claimSlot, type LimitedRule } from './limits.js';

export async function earn(
  db: Db,
  merchantId: string,
  customer: Pick<Customer, 'id' | 'tierId' | 'status'>,
  campaignType: CampaignType,
  cart: Cart,
  happenedAt: Date,
): Promise<PointsCalculation> {
  const now = new Date();
  const program = await loadEarningProgram(db, merchantId, customer, campaignType, now, happenedAt);
  const zone = program.timezone ?? DEFAULT_TIMEZONE;
  return awardWithin(program, cart, now, (rule, used) => claimSlot(db, merchantId, customer.id, rule, used, happenedAt, zone));
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

/** Credits what an earning event earned through the ledger; nothing (null) when it earned nothing. */
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
