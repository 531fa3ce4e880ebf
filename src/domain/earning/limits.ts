// How often an earning rule has paid a customer: a limit (rule-config.ts) is a number of
// awards per calendar period (UTC). Each award takes a numbered slot, an EngineEvent row keyed
// `limit:<rule>:<customer>:<period>:<n>`, so the unique index decides races: two
// concurrent signups can never both take the single lifetime slot.
import type { Db } from '../../db/client.js';
import { DAY_MS } from '../shared/limits.js';
import type { Limit, LimitPeriod } from './rule-config.js';

const isoDate = (d: Date) => d.toISOString().slice(0, 10);

/** The calendar period containing `at`, as a key: 2026-11-21, week-2026-11-16 (its Monday), 2026-11, 2026, all. */
export function periodKey(period: LimitPeriod, at: Date): string {
  switch (period) {
    case 'day':
      return isoDate(at);
    case 'week': {
      const monday = new Date(at.getTime() - ((at.getUTCDay() + 6) % 7) * DAY_MS);
      return `week-${isoDate(monday)}`;
    }
    case 'month':
      return isoDate(at).slice(0, 7);
    case 'year':
      return String(at.getUTCFullYear());
    case 'lifetime':
      return 'all';
  }
}

export interface LimitedRule {
  id: string;
  limit: Limit;
}

const SLOT_KIND = 'limit';
const slotPrefix = (rule: LimitedRule, customerId: string, at: Date) =>
  `limit:${rule.id}:${customerId}:${periodKey(rule.limit.period, at)}:`;

/** Awards already taken by each rule in its current period (rule id → count). */
export async function countUsage(
  db: Db,
  merchantId: string,
  customerId: string,
  rules: LimitedRule[],
  at: Date,
): Promise<Record<string, number>> {
  if (rules.length === 0) return {};
  const prefixes = rules.map((r) => [r.id, slotPrefix(r, customerId, at)] as const);
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
): Promise<boolean> {
  const prefix = slotPrefix(rule, customerId, at);
  for (let n = used + 1; n <= rule.limit.count; n++) {
    const { count } = await db.engineEvent.createMany({
      data: [{ merchantId, eventId: `${prefix}${n}`, kind: SLOT_KIND }],
      skipDuplicates: true,
    });
    if (count === 1) return true;
  }
  return false;
}
