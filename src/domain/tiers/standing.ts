// A customer's VIP tier. Status is judged on what a customer *earned* (points credited, or
// money spent) in each tier's own window, never on the spendable balance, so spending points
// never drops a tier. `tierStanding` is the one place for that rule: the live status endpoint
// and `reevaluateTier` both use it. Windows follow the merchant's calendar (shared/calendar.ts):
// a calendar year runs from local New Year to local New Year.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/client.js';
import { columnsOf, rowsOf, timeFieldsOf } from '../../db/sql.js';
import { Prisma, type Tier, type TierMembership } from '../../generated/prisma/client.js';
import type { TierQualification, TierWindow } from '../../generated/prisma/enums.js';
import { type CustomerColumns, type CustomerPart, ownRows } from '../customers/customer-parts.js';
import { insertActivity } from '../ledger/activity-log.js';
import { type Program, readProgram } from '../merchants/program.js';
import { addPeriods, nextYearStart, yearBefore, yearStart } from '../shared/calendar.js';
import { type OwnedList, type PageArgs, paginateOne } from '../shared/pagination.js';

/** Where a tier's window starts in `zone` (null = the beginning of time). */
export function windowStart(window: TierWindow, now: Date, zone: string): Date | null {
  switch (window) {
    case 'lifetime':
      return null;
    case 'calendar_year':
      return yearStart(now, zone);
    case 'rolling_12_months':
      return yearBefore(now, zone);
  }
}

/**
 * When status earned in `tier` lapses: a calendar-year tier at the end of the year (the
 * next local Jan 1, 00:00 in `zone`); a rolling window re-judges continuously and lifetime
 * never lapses, so null. A tier held without qualifying (the default) or that anyone
 * reaches (threshold 0) cannot lapse either.
 */
function tierExpiresAt(tier: Pick<Tier, 'window' | 'threshold'>, qualified: boolean, now: Date, zone: string): Date | null {
  if (!qualified || tier.window !== 'calendar_year' || tier.threshold <= 0) return null;
  return nextYearStart(now, zone);
}

const tierHistory = {
  table: 'tier_memberships',
  ownerType: 'uuid',
  where: (customer) => Prisma.sql`customer_id = ${customer}`,
  order: 'started_at DESC, id DESC',
  keyset: 'started_at, id',
  name: 'memberships',
  // the tier's name, in the same statement
  columns: Prisma.sql`${columnsOf(Prisma.TierMembershipScalarFieldEnum, 'x')}, t.name AS tier_name`,
  join: (merchant) => Prisma.sql`JOIN tiers t ON t.merchant_id = ${merchant} AND t.id = x.tier_id`,
  times: timeFieldsOf('TierMembership'),
  shape: ({ tier_name, ...membership }: TierMembership & { tier_name: string }) => ({ ...membership, tier: { name: tier_name } }),
} satisfies OwnedList<{ id: string }>;

/** `GET /customers/memberships`: the customer's tier history, newest first. */
export function listMemberships(db: Db, merchantId: string, customerId: string, args: PageArgs) {
  return paginateOne(db, merchantId, customerId, args, tierHistory);
}

/** The customer's tier history as the graph's links read it, beside the customer. */
export const membershipRows = ownRows(tierHistory);

type MetricKey = `${TierQualification}:${TierWindow}`;
/** A customer's qualifying figures: each qualification summed over each window. */
export type TierMetrics = Record<MetricKey, number>;

/**
 * A customer's qualifying figures for every window at once, as SQL of one JSON array over the
 * customer's columns `c` (expressions of the enclosing statement, whose aliases its own must not
 * hide). Points earned = every credit placed in the window (an order's when it was placed, even
 * if recorded or approved later), whatever its source (imported balances stand for history
 * earned elsewhere); debits (spending, refund claw-backs) never lower status. Over a lifetime
 * that is the customer's `points_earned`, which the ledger keeps with the balance: only a ladder
 * that counts points in a calendar or rolling window sums the customer's credits. Amount spent =
 * subtotals of unrefunded orders placed in the window (history imported without points too),
 * summed only when an active tier (of `ladder`) qualifies by it. Last, the oldest placed time a
 * rolling window counts (when the figures next drop with the clock alone).
 */
function metricsValue(
  merchantId: string,
  c: Pick<CustomerColumns, 'id' | 'pointsEarned'>,
  now: Date,
  zone: string,
  ladder: readonly LadderTier[],
): Prisma.Sql {
  const year = windowStart('calendar_year', now, zone)!.toISOString();
  const rolling = windowStart('rolling_12_months', now, zone)!.toISOString();
  const merchant = Prisma.sql`${merchantId}::uuid`;
  const spent = !ladder.some((t) => t.qualification === 'amount_spent')
    ? Prisma.sql`SELECT 0 AS lifetime, 0 AS year, 0 AS rolling, NULL::timestamptz AS rolling_since`
    : Prisma.sql`
        SELECT COALESCE(SUM(subtotal), 0) AS lifetime,
               COALESCE(SUM(subtotal) FILTER (WHERE placed_at >= ${year}::timestamptz), 0) AS year,
               COALESCE(SUM(subtotal) FILTER (WHERE placed_at >= ${rolling}::timestamptz), 0) AS rolling,
               MIN(placed_at) FILTER (WHERE placed_at >= ${rolling}::timestamptz) AS rolling_since
          FROM orders
         WHERE merchant_id = ${merchant} AND customer_id = ${c.id} AND refunded_at IS NULL`;
  // no upper bound at `now`: a credit just written by the database's clock must count
  const windowed = ladder.some((t) => t.qualification === 'points_earned' && t.window !== 'lifetime')
    ? Prisma.sql`
        SELECT COALESCE(SUM(points) FILTER (WHERE placed_at >= ${year}::timestamptz), 0)::float8 AS year,
               COALESCE(SUM(points) FILTER (WHERE placed_at >= ${rolling}::timestamptz), 0)::float8 AS rolling,
               MIN(placed_at) FILTER (WHERE placed_at >= ${rolling}::timestamptz) AS rolling_since
          FROM points_transactions
         WHERE merchant_id = ${merchant} AND customer_id = ${c.id} AND type = 'credit'::"TransactionType"`
    : Prisma.sql`SELECT 0 AS year, 0 AS rolling, NULL::timestamptz AS rolling_since`;
  return Prisma.sql`(
    SELECT json_build_array(${c.pointsEarned}, credits.year, credits.rolling, purchases.lifetime, purchases.year, purchases.rolling,
                            LEAST(credits.rolling_since, purchases.rolling_since))
      FROM (${windowed}) credits, (${spent}) purchases)`;
}

interface Figures {
  metrics: TierMetrics;
  /** The oldest placed time a rolling window counts: 12 months after it, the figures drop. */
  rollingSince: Date | null;
}

/** The figures of a `metricsValue`. */
function metricsOf(value: unknown[]): Figures {
  const [pointsLifetime, pointsYear, pointsRolling, spentLifetime, spentYear, spentRolling, rollingSince] = value as number[];
  return {
    metrics: {
      'points_earned:lifetime': pointsLifetime!,
      'points_earned:calendar_year': pointsYear!,
      'points_earned:rolling_12_months': pointsRolling!,
      'amount_spent:lifetime': Number(spentLifetime),
      'amount_spent:calendar_year': Number(spentYear),
      'amount_spent:rolling_12_months': Number(spentRolling),
    },
    rollingSince: rollingSince ? new Date(rollingSince) : null,
  };
}

/** The qualifying figures of many customers of one merchant, in one statement. */
async function customerMetrics(db: Db, merchantId: string, customerIds: readonly string[], now: Date, program: Program) {
  const earned = Prisma.sql`(SELECT points_earned FROM customers WHERE merchant_id = ${merchantId}::uuid AND id = o.id)`;
  const rows = await rowsOf<{ metrics: unknown[] }>(
    db,
    Prisma.sql`
    SELECT ${metricsValue(merchantId, { id: Prisma.sql`o.id`, pointsEarned: earned }, now, program.zone, program.tiers)} AS metrics
      FROM unnest(${[...customerIds]}::uuid[]) WITH ORDINALITY AS o(id, i)
     ORDER BY o.i`,
  );
  return rows.map((r) => metricsOf(r.metrics));
}

/** What judging needs of a tier. */
export type LadderTier = Pick<Tier, 'position' | 'threshold' | 'qualification' | 'window' | 'isDefault'>;

export interface TierStanding<T extends LadderTier = Tier> {
  /** The tier the customer qualifies for now (null only when the merchant has no tiers). */
  current: T | null;
  /** The tier after `current` by position (null at the top). */
  next: T | null;
  /** When `current` lapses unless re-earned (null: it does not). */
  expiresAt: Date | null;
  /** The figure of `tier` in its own qualification and window. */
  metricOf: (tier: Pick<Tier, 'qualification' | 'window'>) => number;
  /** Lifetime points earned, the figure shown when there are no tiers. */
  lifetimePoints: number;
  /**
   * When the standing next changes with the clock alone, within the merchant's day (null: not
   * before it ends; calendar windows move at local midnights only): the oldest credit or order
   * counted in a rolling window leaves it.
   */
  changesAt?: Date | null;
}

/**
 * The tier a customer qualifies for: the highest-position tier whose threshold its own
 * metric reaches; else the default tier (is_default, or the lowest position).
 */
async function tierStanding(db: Db, merchantId: string, customerId: string, now = new Date()): Promise<TierStanding> {
  const [standing] = await tierStandings(db, merchantId, [customerId], now);
  return standing!;
}

/** The standings of many customers of one merchant, judged on its program as stored now: two statements. */
async function tierStandings(db: Db, merchantId: string, customerIds: readonly string[], now = new Date()): Promise<TierStanding[]> {
  const program = await readProgram(db, merchantId);
  const figures = await customerMetrics(db, merchantId, customerIds, now, program);
  return figures.map((f) => standingOf(program, f, now));
}

/** A standing judged on `program`, with when it next changes with the clock alone. */
function standingOf(program: Program, { metrics, rollingSince }: Figures, now: Date): TierStanding {
  // a rolling window drops what it counted 12 months after it happened (addPeriods moves no later than the window does)
  const rolling = program.tiers.some((t) => t.window === 'rolling_12_months');
  return Object.assign(judgeStanding(program.tiers, metrics, now, program.zone), {
    changesAt: rolling && rollingSince ? addPeriods('month', rollingSince, 12, program.zone) : null,
  });
}

/** The tier of a customer who has reached none: the merchant's default, else the lowest (`tiers`: active, lowest position first). */
export const defaultTier = <T extends Pick<Tier, 'isDefault'>>(tiers: readonly T[]): T | null =>
  tiers.find((t) => t.isDefault) ?? tiers[0] ?? null;

/**
 * The judgement itself, pure: the standing that `metrics` give on the ladder `tiers` (active,
 * lowest position first) at `now`. A replay of history (finance/replay.ts) judges with it
 * from figures it keeps in memory.
 */
export function judgeStanding<T extends LadderTier>(tiers: readonly T[], metrics: TierMetrics, now: Date, zone: string): TierStanding<T> {
  const metricOf = (tier: Pick<Tier, 'qualification' | 'window'>) => metrics[`${tier.qualification}:${tier.window}`];
  const qualified = tiers.findLast((t) => metricOf(t) >= t.threshold) ?? null;
  const current = qualified ?? defaultTier(tiers);
  const next = current ? (tiers.find((t) => t.position > current.position) ?? null) : null;
  return {
    current,
    next,
    // computed when read: a replay judges a million times and never reads it
    get expiresAt() {
      return current && tierExpiresAt(current, current === qualified, now, zone);
    },
    metricOf,
    lifetimePoints: metrics['points_earned:lifetime'],
  };
}

/**
 * Re-judges a customer's tier and records a change: the customer's tier, the end of the
 * active membership, a new earned membership and a `tier_change` activity. `from`/`to`
 * are tier ids. Safe to run concurrently and repeatedly: the writes are one statement
 * that only applies while the customer still has the tier this evaluation started from.
 */
export async function reevaluateTier(
  db: Db,
  merchantId: string,
  customerId: string,
  now = new Date(),
): Promise<{ changed: boolean; from: string | null; to: string | null }> {
  const [customer, standing] = await Promise.all([
    db.customer.findFirst({
      where: { id: customerId, merchantId },
      select: { tierId: true, tier: { select: { name: true } } },
    }),
    tierStanding(db, merchantId, customerId, now),
  ]);
  const from = customer?.tierId ?? null;
  const target = standing.current;
  if (!customer || !target || target.id === from) return { changed: false, from, to: from };

  const description = customer.tier ? `Moved from ${customer.tier.name} to ${target.name}` : `Joined ${target.name}`;
  const expiresAt = standing.expiresAt;
  // ISO strings with an offset: a bare timestamp parameter would be read in the session's zone
  const at = now.toISOString();
  // One statement rather than a batch: the membership and activity rows must exist only
  // if the conditional tier update matched, and a batch cannot make later writes depend
  // on an earlier row count. No interactive transaction (prisma/prisma#30374).
  const rows = await db.$queryRaw<{ id: string }[]>`
    WITH updated AS (
      UPDATE customers
         SET tier_id = ${target.id}::uuid, updated_at = now()
       WHERE id = ${customerId}::uuid AND merchant_id = ${merchantId}::uuid
         AND tier_id IS NOT DISTINCT FROM ${from}::uuid
      RETURNING id, points_balance
    ), ended AS (
      UPDATE tier_memberships
         SET status = 'ended'::"MembershipStatus", ended_at = ${at}::timestamptz
       WHERE merchant_id = ${merchantId}::uuid AND customer_id = ${customerId}::uuid
         AND status = 'active'::"MembershipStatus" AND EXISTS (SELECT 1 FROM updated)
      RETURNING id
    ), started AS (
      INSERT INTO tier_memberships (id, merchant_id, customer_id, tier_id, status, source, started_at, expires_at)
      SELECT ${randomUUID()}::uuid, ${merchantId}::uuid, ${customerId}::uuid, ${target.id}::uuid,
             'active'::"MembershipStatus", 'earned'::"MembershipSource", ${at}::timestamptz, ${expiresAt?.toISOString() ?? null}::timestamptz
        FROM updated
      RETURNING id
    ), act AS (${insertActivity(
      {
        id: randomUUID(),
        merchantId,
        customerId,
        type: 'tier_change',
        description,
        pointsChange: 0,
        balanceAfter: Prisma.sql`points_balance`,
        reference: { kind: 'tier', id: target.id },
        at,
      },
      Prisma.sql`updated`,
    )}
      RETURNING id
    )
    SELECT started.id FROM started, act`;
  if (rows.length === 0) return { changed: false, from, to: from };
  return { changed: true, from, to: target.id };
}

export interface CustomerTierStatus {
  current_tier: Tier | null;
  next_tier: Tier | null;
  progress: {
    metric: TierQualification;
    value: number;
    next_threshold: number | null;
    remaining: number | null;
  };
  window: TierWindow;
  tier_expires_at: Date | null;
  /** When this status next changes with the clock alone (TierStanding.changesAt); not a field of the API. */
  changes_at: Date | null;
}

/**
 * `GET /customers/tiers`, judged live. Progress is measured in the next tier's own
 * qualification and window (at the top, the current tier's; with no tiers, lifetime points).
 */
export async function customerTierStatus(db: Db, merchantId: string, customerId: string, now = new Date()): Promise<CustomerTierStatus> {
  const [standing] = await tierStandings(db, merchantId, [customerId], now);
  return tierStatus(standing!);
}

/**
 * A customer's tier status judged at `now` on `program` (the merchant's, as cached), read beside
 * the customer in its own statement: its figures are one value of that statement.
 */
export function tierStatusPart(merchantId: string, program: Program, now: Date): CustomerPart<CustomerTierStatus> {
  return {
    sql: (c) => metricsValue(merchantId, c, now, program.zone, program.tiers),
    read: (metrics) => tierStatus(standingOf(program, metricsOf(metrics as unknown[]), now)),
  };
}

function tierStatus(standing: TierStanding): CustomerTierStatus {
  const { current, next } = standing;
  const measured = next ?? current;
  const value = measured ? standing.metricOf(measured) : standing.lifetimePoints;
  return {
    current_tier: current,
    next_tier: next,
    progress: {
      metric: measured?.qualification ?? 'points_earned',
      value,
      next_threshold: next?.threshold ?? null,
      // money sums are rounded to cents so the difference carries no float noise
      remaining: next ? Math.max(0, Math.round((next.threshold - value) * 100) / 100) : null,
    },
    window: measured?.window ?? 'lifetime',
    tier_expires_at: standing.expiresAt,
    changes_at: standing.changesAt ?? null,
  };
}
