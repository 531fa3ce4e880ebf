// Vintages: the points issued in each local month (a cohort) and what became of them, month by
// month: redeemed, expired, reversed or debited by hand, or still outstanding. A debit takes a
// customer's oldest points first (first in, first out): the debit's range of the customer's
// cumulative debits is matched with the ranges of the cumulative credits it overlaps, which
// attributes every debited point to exactly one credit, in one statement over one merchant's
// ledger. The expected redemption rate is estimated from the cohorts old enough to have run
// their course.
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { rowsOf } from '../../db/sql.js';
import { Prisma } from '../../generated/prisma/client.js';
import { parseInput } from '../shared/validation.js';

/** A cohort counts towards the estimate once this many months old. */
const MATURE_MONTHS = 12;

interface VintageMonth {
  /** YYYY-MM: the local month the points were taken in. */
  month: string;
  redeemed: number;
  expired: number;
  /** Reversed (refunds, referrals taken back) and manual debits: corrections, not redemptions. */
  corrected: number;
}

export interface Vintage {
  /** YYYY-MM: the local month the points were issued in. */
  cohort: string;
  issued: number;
  redeemed: number;
  expired: number;
  corrected: number;
  outstanding: number;
  /** What became of the cohort's points, month by month (months with no change left out). */
  months: VintageMonth[];
}

export interface Vintages {
  timezone: string;
  at: Date;
  cohorts: Vintage[];
  /** Of the points of mature cohorts that reached an end (redeemed or expired), the share redeemed; null when none did. */
  estimated_redemption_rate: number | null;
  /** The cohorts the estimate was taken from: the mature ones, or every cohort while none is. */
  estimate_cohorts: string[];
}

const vintagesInput = z.object({ at: z.date().optional() });

const column = { redeemed: 'redeemed', expired: 'expired' } as const;

/** Every cohort of the merchant's ledger up to `at` (default now). */
export async function pointsVintages(db: Db, merchantId: string, input: z.input<typeof vintagesInput> = {}): Promise<Vintages> {
  const { at = new Date() } = parseInput(vintagesInput, input);
  const { timezone } = await db.merchant.findUniqueOrThrow({ where: { id: merchantId }, select: { timezone: true } });
  const rows = await rowsOf<{ cohort: string; month: string | null; category: string | null; points: string }>(
    db,
    Prisma.sql`
    WITH t AS (
      SELECT customer_id, id, created_at, points, loyalty_ledger_category(type, source, reference_kind) AS category
        FROM points_transactions
       WHERE merchant_id = ${merchantId}::uuid AND created_at < ${at.toISOString()}::timestamptz
    ), credits AS (
      SELECT customer_id, created_at, points, sum(points) OVER w - points AS lo, sum(points) OVER w AS hi
        FROM t WHERE points > 0 WINDOW w AS (PARTITION BY customer_id ORDER BY created_at, id)
    ), debits AS (
      SELECT customer_id, created_at, category, sum(-points) OVER w + points AS lo, sum(-points) OVER w AS hi
        FROM t WHERE points < 0 WINDOW w AS (PARTITION BY customer_id ORDER BY created_at, id)
    )
    SELECT to_char(c.created_at AT TIME ZONE ${timezone}, 'YYYY-MM') AS cohort, NULL AS month, NULL AS category, sum(c.points)::text AS points
      FROM credits c GROUP BY 1
    UNION ALL
    SELECT to_char(c.created_at AT TIME ZONE ${timezone}, 'YYYY-MM'), to_char(d.created_at AT TIME ZONE ${timezone}, 'YYYY-MM'), d.category,
           sum(least(c.hi, d.hi) - greatest(c.lo, d.lo))::text
      FROM credits c JOIN debits d ON d.customer_id = c.customer_id AND d.lo < c.hi AND c.lo < d.hi
     GROUP BY 1, 2, 3`,
  );
  const cohorts = new Map<string, Vintage>();
  const cohortOf = (name: string) => {
    if (!cohorts.has(name))
      cohorts.set(name, { cohort: name, issued: 0, redeemed: 0, expired: 0, corrected: 0, outstanding: 0, months: [] });
    return cohorts.get(name)!;
  };
  for (const r of rows.filter((r) => r.month === null)) cohortOf(r.cohort).issued = Number(r.points);
  for (const r of rows.filter((r) => r.month !== null)) {
    const v = cohortOf(r.cohort);
    const kind = column[r.category as keyof typeof column] ?? 'corrected';
    let m = v.months.find((x) => x.month === r.month);
    if (!m) v.months.push((m = { month: r.month!, redeemed: 0, expired: 0, corrected: 0 }));
    m[kind] += Number(r.points);
    v[kind] += Number(r.points);
  }
  const list = [...cohorts.values()].sort((a, b) => a.cohort.localeCompare(b.cohort));
  for (const v of list) {
    v.outstanding = v.issued - v.redeemed - v.expired - v.corrected;
    v.months.sort((a, b) => a.month.localeCompare(b.month));
  }
  const matureBefore = monthsBefore(at, timezone, MATURE_MONTHS);
  const mature = list.filter((v) => v.cohort <= matureBefore && v.redeemed + v.expired > 0);
  const basis = mature.length ? mature : list.filter((v) => v.redeemed + v.expired > 0);
  const redeemed = basis.reduce((s, v) => s + v.redeemed, 0);
  const ended = basis.reduce((s, v) => s + v.redeemed + v.expired, 0);
  return {
    timezone,
    at,
    cohorts: list,
    estimated_redemption_rate: ended > 0 ? redeemed / ended : null,
    estimate_cohorts: basis.map((v) => v.cohort),
  };
}

/** The local month (YYYY-MM) `n` months before the one holding `at`. */
function monthsBefore(at: Date, zone: string, n: number): string {
  const [y, m] = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit' })
    .format(at)
    .split('-')
    .map(Number) as [number, number];
  const index = y * 12 + (m - 1) - n;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
}
