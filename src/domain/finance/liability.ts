// The points liability: what a merchant owes in points at any instant, and what moved it. Read
// from ledger_buckets (the ledger summed per 15-minute UTC bucket and category; see the
// migration ledger_buckets), so a year of a large ledger is a few hundred thousand sums, not
// millions of rows. Periods are cut at local midnights, and every time zone's offset is a whole
// number of quarter hours, so a period's edge is a bucket's; an instant inside a bucket (the
// valuation's `at`) reads that one bucket's ledger rows.
//
// Periods are the ledger's, by when it recorded each change (created_at): a period once closed
// never changes, and an order recorded late is in the period it was recorded in; the orders report
// (order-periods.ts) shows orders by when they were placed.
//
// Every ledger row falls in exactly one category (loyalty_ledger_category), so a period's
// closing is its opening plus its movements, and the closing at an instant is the sum of every
// balance then: both are the same sums, cut at the same edges.
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { rowsOf } from '../../db/sql.js';
import { Prisma } from '../../generated/prisma/client.js';
import { expiryCutoff } from '../ledger/expiry.js';
import { addPeriods, localDate, periodStart, startOfLocalDate } from '../shared/calendar.js';
import { validationError } from '../shared/errors.js';
import { field } from '../shared/fields.js';
import { parseInput } from '../shared/validation.js';

export const liabilityGroupings = ['day', 'week', 'month', 'quarter'] as const;
export type LiabilityGrouping = (typeof liabilityGroupings)[number];

/** Ledger categories that issue points, in the report's order. */
const issuedCategories = {
  orders: 'issued_order',
  engagement: 'issued_engagement',
  referrals: 'issued_referral',
  manual: 'issued_manual',
  import: 'issued_import',
} as const;
/** Ledger categories that take points away, shown as positive amounts. */
const removedCategories = {
  reversed: 'reversed',
  redeemed: 'redeemed',
  expired: 'expired',
  manual_debits: 'manual_debit',
} as const;

/** Periods a report may hold: ten years of months, two of days. */
const MAX_PERIODS = 750;
const BUCKET_MS = 15 * 60_000;

interface LiabilityIssued {
  orders: number;
  engagement: number;
  referrals: number;
  manual: number;
  import: number;
  total: number;
}

export interface LiabilityPeriod {
  /** The period's first local date. */
  label: string;
  start: Date;
  /** Exclusive. */
  end: Date;
  opening: number;
  issued: LiabilityIssued;
  reversed: number;
  redeemed: number;
  expired: number;
  manual_debits: number;
  closing: number;
}

export interface LiabilityReport {
  timezone: string;
  grouping: LiabilityGrouping;
  /** Each change falls in the period the ledger recorded it in (a closed period never changes; a late order is in the period it was recorded in). */
  grouped_by: 'recorded';
  /** The first and the last local date of the range. */
  from: string;
  to: string;
  periods: LiabilityPeriod[];
  /** The whole range as one period. */
  total: LiabilityPeriod;
  /** Points earned and still held back (an order's return window): not owed yet, shown apart. */
  pending: { points: number; customers: number };
  /** Referrals held for the merchant's review with their friend's order: not issued until approved, shown apart. */
  held_referrals: { referrals: number; points: number };
}

const reportInput = z
  .object({ from: field.date, to: field.date, grouping: z.enum(liabilityGroupings).default('month') })
  .refine((r) => r.from <= r.to, { path: ['to'], message: 'must be on or after from' });

export type LiabilityInput = z.input<typeof reportInput>;

/** Category sums per span: index 0 is everything before the first edge, i the span [edges[i-1], edges[i]). */
type SpanSums = Map<number, Map<string, number>>;

async function sumsBetween(db: Db, merchantId: string, edges: Date[]): Promise<SpanSums> {
  const bounds = edges.map((e) => e.toISOString());
  // buckets an edge cuts through (an instant that is no quarter hour): their ledger rows are read instead
  const cut = [
    ...new Set(
      edges.filter((e) => e.getTime() % BUCKET_MS !== 0).map((e) => new Date(e.getTime() - (e.getTime() % BUCKET_MS)).toISOString()),
    ),
  ];
  const last = bounds.at(-1)!;
  const rows = await rowsOf<{ span: number; category: string; points: string }>(
    db,
    Prisma.sql`
    SELECT span, category, sum(points)::text AS points FROM (
      SELECT width_bucket(bucket_start, ${bounds}::timestamptz[]) AS span, category, points
        FROM ledger_buckets
       WHERE merchant_id = ${merchantId}::uuid AND bucket_start < ${last}::timestamptz AND bucket_start <> ALL (${cut}::timestamptz[])
      UNION ALL
      SELECT width_bucket(t.created_at, ${bounds}::timestamptz[]), loyalty_ledger_category(t.type, t.source, t.reference_kind), t.points
        FROM unnest(${cut}::timestamptz[]) AS b(start)
        JOIN points_transactions t ON t.merchant_id = ${merchantId}::uuid
         AND t.created_at >= b.start AND t.created_at < b.start + interval '15 minutes' AND t.created_at < ${last}::timestamptz
    ) s GROUP BY 1, 2`,
  );
  const spans: SpanSums = new Map();
  for (const r of rows) {
    const span = Number(r.span);
    if (!spans.has(span)) spans.set(span, new Map());
    spans.get(span)!.set(r.category, Number(r.points));
  }
  return spans;
}

function period(label: string, start: Date, end: Date, opening: number, sums: Map<string, number> | undefined): LiabilityPeriod {
  const of = (category: string) => sums?.get(category) ?? 0;
  const issued = Object.fromEntries(Object.entries(issuedCategories).map(([k, c]) => [k, of(c)])) as Omit<LiabilityIssued, 'total'>;
  const removed = Object.fromEntries(Object.entries(removedCategories).map(([k, c]) => [k, -of(c)])) as Record<
    keyof typeof removedCategories,
    number
  >;
  const issuedTotal = Object.values(issued).reduce((a, b) => a + b, 0);
  const removedTotal = Object.values(removed).reduce((a, b) => a + b, 0);
  return {
    label,
    start,
    end,
    opening,
    issued: { ...issued, total: issuedTotal },
    ...removed,
    closing: opening + issuedTotal - removedTotal,
  };
}

/** The starts of the local periods from `from` (the first cut at `from` itself) to the end. */
function edgesOf(grouping: LiabilityGrouping, from: Date, end: Date, zone: string): Date[] {
  const edges = [from];
  const first = periodStart(grouping, from, zone);
  for (let n = 1; ; n++) {
    const next = periodStart(grouping, addPeriods(grouping, first, n, zone), zone);
    if (next >= end) break;
    edges.push(next);
    if (edges.length > MAX_PERIODS) {
      throw validationError({ to: [`gives more than ${MAX_PERIODS} periods: choose a shorter range or a longer grouping`] });
    }
  }
  return [...edges, end];
}

/**
 * A range of the merchant's local dates (`from`–`to`, both included) cut into its local days,
 * weeks, months or quarters: the instants of the edges, the first one the range's start and the
 * last its end. What every per-period report of finance reads.
 */
export async function localPeriods(db: Db, merchantId: string, input: LiabilityInput) {
  const { from, to, grouping } = parseInput(reportInput, input);
  const { timezone } = await db.merchant.findUniqueOrThrow({ where: { id: merchantId }, select: { timezone: true } });
  const start = startOfLocalDate(from, timezone);
  const end = addPeriods('day', startOfLocalDate(to, timezone), 1, timezone);
  return { from, to, grouping, timezone, start, end, edges: edgesOf(grouping, start, end, timezone) };
}

/** Points outstanding, opening to closing, per local day, week, month or quarter of a range, by when the ledger recorded each change. */
export async function liabilityRollForward(db: Db, merchantId: string, input: LiabilityInput): Promise<LiabilityReport> {
  const { from, to, grouping, timezone, start, end, edges } = await localPeriods(db, merchantId, input);
  const [spans, pending, held_referrals] = await Promise.all([
    sumsBetween(db, merchantId, edges),
    pendingPoints(db, merchantId),
    heldReferrals(db, merchantId),
  ]);
  const periods: LiabilityPeriod[] = [];
  let opening = period('', start, start, 0, spans.get(0)).closing;
  const openingOfRange = opening;
  const whole = new Map<string, number>();
  for (let i = 1; i < edges.length; i++) {
    const sums = spans.get(i);
    for (const [c, p] of sums ?? []) whole.set(c, (whole.get(c) ?? 0) + p);
    const p = period(localDate(edges[i - 1]!, timezone), edges[i - 1]!, edges[i]!, opening, sums);
    periods.push(p);
    opening = p.closing;
  }
  return {
    timezone,
    grouping,
    grouped_by: 'recorded',
    from,
    to,
    periods,
    total: period(from, start, end, openingOfRange, whole),
    pending,
    held_referrals,
  };
}

/** The ledger's totals before an instant: outstanding, issued (and by orders), redeemed and expired. */
export async function ledgerSumsAt(db: Db, merchantId: string, at: Date) {
  const before = period('', at, at, 0, (await sumsBetween(db, merchantId, [at])).get(0));
  return {
    outstanding: before.closing,
    issued: before.issued.total,
    issuedByOrders: before.issued.orders,
    redeemed: before.redeemed,
    expired: before.expired,
  };
}

async function pendingPoints(db: Db, merchantId: string) {
  const [row] = await rowsOf<{ points: string; customers: number }>(
    db,
    Prisma.sql`
    SELECT COALESCE(sum(points_change), 0)::text AS points, count(DISTINCT customer_id)::int AS customers
      FROM activities WHERE merchant_id = ${merchantId}::uuid AND status = 'pending'::"ActivityStatus"`,
  );
  return { points: Number(row?.points ?? 0), customers: Number(row?.customers ?? 0) };
}

/** Held referrals whose approval would issue the referrer's points now (the program's), as of now. */
async function heldReferrals(db: Db, merchantId: string) {
  const [row] = await rowsOf<{ referrals: number; points: string }>(
    db,
    Prisma.sql`
    SELECT count(*)::int AS referrals, COALESCE(sum(p.referrer_points), 0)::text AS points
      FROM referrals r JOIN referral_programs p ON p.merchant_id = r.merchant_id
     WHERE r.merchant_id = ${merchantId}::uuid AND p.merchant_id = ${merchantId}::uuid
       AND r.status = 'held'::"ReferralStatus" AND r.order_id IS NOT NULL`,
  );
  return { referrals: Number(row?.referrals ?? 0), points: Number(row?.points ?? 0) };
}

export interface CustomerBalance {
  /** The customer's platform id; null once erased (the balance stays in the ledger). */
  customer_id: string | null;
  id: string;
  points: number;
}

/**
 * Every customer's balance at an instant (default: now), a page at a time in id order, zero
 * balances left out: the pages together sum to the closing at that instant.
 */
const balancesInput = z.object({
  at: z.date().optional(),
  after: z.uuid({ message: 'must be the next_after of a previous page' }).optional(),
  per_page: z.number().int().min(1).max(1000).default(100),
});

export async function balancesAt(
  db: Db,
  merchantId: string,
  input: z.input<typeof balancesInput>,
): Promise<{ balances: CustomerBalance[]; next: string | null }> {
  const { at, after, per_page: take } = parseInput(balancesInput, input);
  const past = at && at.getTime() < Date.now();
  const rows = await rowsOf<{ id: string; platform_id: string; erased: boolean; points: string }>(
    db,
    Prisma.sql`
    SELECT c.id::text, c.platform_id, c.erased_at IS NOT NULL AS erased, b.points::text
      FROM customers c
      ${
        past
          ? Prisma.sql`CROSS JOIN LATERAL (
              SELECT COALESCE(sum(t.points), 0) AS points FROM points_transactions t
               WHERE t.merchant_id = c.merchant_id AND t.customer_id = c.id AND t.created_at < ${at.toISOString()}::timestamptz) b`
          : Prisma.sql`CROSS JOIN LATERAL (SELECT c.points_balance AS points) b`
      }
     WHERE c.merchant_id = ${merchantId}::uuid ${after ? Prisma.sql`AND c.id > ${after}::uuid` : Prisma.empty} AND b.points <> 0
     ORDER BY c.id
     LIMIT ${take + 1}`,
  );
  const page = rows.slice(0, take);
  return {
    balances: page.map((r) => ({ id: r.id, customer_id: r.erased ? null : r.platform_id, points: Number(r.points) })),
    next: rows.length > take ? page.at(-1)!.id : null,
  };
}

const expiryWindows = [30, 60, 90] as const;

export interface ExpiryWindow {
  days: number;
  /** Points whose balance lapses before this instant unless its customer is active again. */
  until: Date;
  points: number;
  customers: number;
}

/**
 * The points that will lapse within 30, 60 and 90 days at today's activity (each window holds the
 * shorter ones): the balances the expiry job (ledger/expiry.ts) would take if it ran at the end of
 * each window and nobody was active meanwhile.
 */
export async function expirySchedule(
  db: Db,
  merchantId: string,
  now = new Date(),
): Promise<{ expiry_days: number | null; windows: ExpiryWindow[] }> {
  const { pointsExpiryDays: days, timezone } = await db.merchant.findUniqueOrThrow({
    where: { id: merchantId },
    select: { pointsExpiryDays: true, timezone: true },
  });
  const untils = expiryWindows.map((n) => addPeriods('day', now, n, timezone));
  if (days === null)
    return { expiry_days: null, windows: untils.map((until, i) => ({ days: expiryWindows[i]!, until, points: 0, customers: 0 })) };
  const activeBefore = untils.map((until) => expiryCutoff(until, days, timezone));
  const [row] = await rowsOf<Record<string, string>>(
    db,
    Prisma.sql`
    SELECT ${Prisma.join(
      activeBefore.map(
        (cutoff, i) => Prisma.sql`
        COALESCE(sum(points_balance) FILTER (WHERE COALESCE(last_activity_at, created_at) < ${cutoff.toISOString()}::timestamptz), 0)::text AS ${Prisma.raw(`p${i}`)},
        count(*) FILTER (WHERE COALESCE(last_activity_at, created_at) < ${cutoff.toISOString()}::timestamptz)::text AS ${Prisma.raw(`c${i}`)}`,
      ),
    )}
      FROM customers WHERE merchant_id = ${merchantId}::uuid AND points_balance > 0`,
  );
  return {
    expiry_days: days,
    windows: untils.map((until, i) => ({
      days: expiryWindows[i]!,
      until,
      points: Number(row?.[`p${i}`] ?? 0),
      customers: Number(row?.[`c${i}`] ?? 0),
    })),
  };
}
