// How often an earning rule has paid a customer: a limit (rule-config.ts) is a number of
// awards per calendar period of the merchant's time zone (shared/calendar.ts). Each award
// takes a numbered slot, an EngineEvent row keyed `limit:<rule>:<customer>:<period>:<n>`,
// where <period> names the local period (2026-11-21, week-2026-11-16, 2026-11, 2026, all), so
// the unique index decides races: two concurrent signups can never both take the single
// lifetime slot. Slots taken before a change of zone keep their keys; the change counts from
// the periods computed after it.
import type { Db } from '../../db/client.js';
import { periodKey as calendarPeriodKey } from '../shared/calendar.js';
import type { Limit, LimitPeriod } from './rule-config.js';

/** The period containing `at` in `zone`, as a key. */
export function periodKey(period: LimitPeriod, at: Date, zone: string): string {
  return period === 'lifetime' ? 'all' : calendarPeriodKey(period, at, zone);
}

export interface LimitedRule {
  id: string;
  limit: Limit;
}

const SLOT_KIND = 'limit';
const slotPrefix = (rule: LimitedRule, customerId: string, at: Date, zone: string) =>
  `limit:${rule.id}:${customerId}:${periodKey(rule.limit.period, at, zone)}:`;

/** Awards already taken by each rule in its current period (rule id → count). */
export async function countUsage(
  db: Db,
  merchantId: string,
  customerId: string,
  rules: LimitedRule[],
  at: Date,
  zone: string,
): Promise<Record<string, number>> {
  if (rules.length === 0) return {};
  const prefixes = rules.map((r) => [r.id, slotPrefix(r, customerId, at, zone)] as const);
  const taken = await db.engineEvent.findMany({
    where: { merchantId, kind: SLOT_KIND, OR: prefixes.map(([, p]) => ({ eventId: { startsWith: p } })) },
    select: { eventId: true },
  });
  const usage: Record<string, number> = {};
  for (const [id, prefix] of prefixes) usage[id] = taken.filter((t) => t.eventId.startsWith(prefix)).length;
  return usage;
}

/**
 * Takes the next free slot of `rule` in its period, starting after `used`. False when all
 * `count` slots are taken (concurrent awards took the rest).
 */
export async function claimSlot(
  db: Db,
  merchantId: string,
  customerId: string,
  rule: LimitedRule,
  used: number,
  at: Date,
  zone: string,
): Promise<boolean> {
  const prefix = slotPrefix(rule, customerId, at, zone);
  for (let n = used + 1; n <= rule.limit.count; n++) {
    const { count } = await db.engineEvent.createMany({
      data: [{ merchantId, eventId: `${prefix}${n}`, kind: SLOT_KIND }],
      skipDuplicates: true,
    });
    if (count === 1) return true;
  }
  return false;
}
