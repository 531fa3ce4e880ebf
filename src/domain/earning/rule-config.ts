// What an earning rule stores (GET /earning-rules shows it): its
// `earning_rule` ({type, value, per_amount}), its `conditions`, and the limit they imply.
// Pure shapes and rules, no database: the calculator judges a rule with them alone.
import { z } from 'zod';
import type { CampaignType } from '../../generated/prisma/enums.js';
import { addPeriods, startOfLocalDate } from '../shared/calendar.js';
import { isCalendarDate } from '../shared/dates.js';
import { field } from '../shared/fields.js';
import { MAX_AMOUNT } from '../shared/limits.js';

export const earningRuleSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('fixed'), value: z.number().int().min(0).max(1_000_000) }).strict(),
  z
    .object({
      type: z.literal('variable'),
      value: z.number().positive().max(1_000_000),
      per_amount: z.number().positive().max(MAX_AMOUNT),
    })
    .strict(),
]);
export type EarningRuleConfig = z.infer<typeof earningRuleSchema>;

const limitPeriods = ['day', 'week', 'month', 'year', 'lifetime'] as const;
export type LimitPeriod = (typeof limitPeriods)[number];
export interface Limit {
  count: number;
  period: LimitPeriod;
}

const conditionsSchema = z
  .object({
    min_order_subtotal: z.number().nonnegative().nullish(),
    max_points_per_order: z.number().int().positive().nullish(),
    tier_ids: z.array(z.string().uuid()).nullish(),
    product_ids: z.array(z.string().min(1)).nullish(),
    excluded_product_ids: z.array(z.string().min(1)).nullish(),
    limit: z
      .object({ count: z.number().int().positive(), period: z.enum(limitPeriods) })
      .strict()
      .nullish(),
    starts_at: field.timestamp.nullish(),
    ends_at: field.timestamp.nullish(),
  })
  .strict();
export type EarningConditions = z.infer<typeof conditionsSchema>;

/**
 * Conditions as the admin API and the import take them: `starts_at` / `ends_at` may also be a
 * local date (YYYY-MM-DD) of the merchant's calendar, stored as the instant it resolves to
 * (resolveRuleDates), so a stored rule only ever holds UTC instants.
 */
export const conditionsInputSchema = conditionsSchema.extend({
  starts_at: field.dateOrTimestamp.nullish(),
  ends_at: field.dateOrTimestamp.nullish(),
});
export type EarningConditionsInput = z.infer<typeof conditionsInputSchema>;

/**
 * A date-only `starts_at` is the start of that local day; a date-only `ends_at` is the last
 * local day the rule pays, so it ends at the start of the next one. Both in `zone`.
 */
export function resolveRuleDates(conditions: EarningConditionsInput, zone: string): EarningConditions {
  const isDate = (v: string | null | undefined): v is string => v != null && isCalendarDate(v);
  return {
    ...conditions,
    ...(isDate(conditions.starts_at) && { starts_at: startOfLocalDate(conditions.starts_at, zone).toISOString() }),
    ...(isDate(conditions.ends_at) && {
      ends_at: addPeriods('day', startOfLocalDate(conditions.ends_at, zone), 1, zone).toISOString(),
    }),
  };
}

/**
 * A stored rule's JSON parsed, remembered per object: parsing is pure, and a caller that holds
 * one program for many calculations (a replay of history) parses each rule once. The engine
 * loads fresh objects per event, so for it this is a plain parse.
 */
function remembered<T>(schema: z.ZodType<T>) {
  const seen = new WeakMap<object, z.ZodSafeParseResult<T>>();
  return (raw: unknown): z.ZodSafeParseResult<T> => {
    if (typeof raw !== 'object' || raw === null) return schema.safeParse(raw);
    let parsed = seen.get(raw);
    if (!parsed) seen.set(raw, (parsed = schema.safeParse(raw)));
    return parsed;
  };
}
export const parseEarningRule = remembered(earningRuleSchema);
export const parseConditions = remembered(conditionsSchema);

/** Limits that hold when a rule names none: some actions can only happen so often. */
const defaultLimits: Partial<Record<CampaignType, Limit>> = {
  signup: { count: 1, period: 'lifetime' },
  daily_visit: { count: 1, period: 'day' },
  birthday: { count: 1, period: 'year' },
  anniversary: { count: 1, period: 'year' },
};

/** The rule's own `limit` condition, else its campaign type's default, else none. */
export function effectiveLimit(campaignType: CampaignType, conditions: EarningConditions | null): Limit | null {
  return conditions?.limit ?? defaultLimits[campaignType] ?? null;
}
