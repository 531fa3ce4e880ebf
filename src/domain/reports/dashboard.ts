// The admin dashboard's figures, aggregated in SQL so they stay fast at 100k customers and 1M
// ledger rows (bench/dashboard.ts measures them):
// - points issued (every credit), redeemed (redemption debits) and expired (expiry debits) per
//   day, week or month: an index-only scan of points_transactions (merchant_id, created_at)
//   INCLUDE (type, source, points) over the range;
// - members per tier: an index-only count over customers (merchant_id, tier_id);
// - top rewards: customer_rewards (merchant_id, issued_at) INCLUDE (reward_id, points_spent).
// - active members (customers with a points transaction in the range) and redemptions (rewards
//   issued), over the same index ranges.
// Every figure is also given for the previous period: the same number of local days just before.
// Buckets are the merchant's local days, weeks (from Monday) and months: their bounds are
// computed in its time zone (shared/calendar.ts) and the rows are sorted into them with
// width_bucket, so a 23- or 25-hour day around a DST change is one bucket.
import type { Db } from '../../db/client.js';
import { addPeriods, periodStart, periodStarts, startOfLocalDate } from '../shared/calendar.js';
import { isCalendarDate } from '../shared/dates.js';
import { validationError } from '../shared/errors.js';
import { messages } from '../shared/messages.js';

export const dashboardRanges = {
  last_7_days: { days: 7, bucket: 'day' },
  last_30_days: { days: 30, bucket: 'day' },
  last_90_days: { days: 90, bucket: 'week' },
  last_12_months: { days: 365, bucket: 'month' },
} as const;
/** A preset, or `custom`: the local dates the caller gives (`from_date` to `to_date`, both included). */
type DashboardRange = keyof typeof dashboardRanges | 'custom';
type Bucket = (typeof dashboardRanges)[keyof typeof dashboardRanges]['bucket'];
/** The longest custom range, in local days (two years and a leap day). */
export const MAX_CUSTOM_DAYS = 731;

interface PointsPeriod {
  period_start: Date;
  issued: number;
  redeemed: number;
  expired: number;
}

/** The figures of one period, the range or the one before it. */
export interface PeriodFigures {
  from: Date;
  to: Date;
  series: PointsPeriod[];
  points_issued: number;
  points_redeemed: number;
  points_expired: number;
  /** Points redeemed per point issued in the range (0 when none were issued). */
  redemption_rate: number;
  /** Customers with at least one points transaction in the period. */
  active_members: number;
  /** Rewards redeemed (codes issued) in the period. */
  redemptions: number;
}

export interface Dashboard extends PeriodFigures {
  range: DashboardRange;
  bucket: Bucket;
  /** The same number of local days just before `from`. */
  previous: PeriodFigures;
  members: number;
  members_per_tier: { tier_id: string | null; tier_name: string; customers: number }[];
  top_rewards: { reward_id: string; name: string; redemptions: number; points_spent: number }[];
}

const TOP_REWARDS = 5;

/** One bucket per local day, week (Monday) or month from the one holding `from` to `to`. */
async function pointsSeries(db: Db, merchantId: string, bucket: Bucket, from: Date, to: Date, zone: string) {
  const starts = periodStarts(bucket, from, to, zone);
  const bounds = starts.map((d) => d.toISOString());
  // width_bucket gives 1 for the first period, 2 for the second... (bounds are ascending)
  const sums = await db.$queryRaw<{ bucket: number; issued: bigint; redeemed: bigint; expired: bigint }[]>`
    SELECT width_bucket(created_at, ${bounds}::timestamptz[]) AS bucket,
           COALESCE(SUM(points) FILTER (WHERE type = 'credit'), 0)::bigint AS issued,
           COALESCE(-SUM(points) FILTER (WHERE type = 'debit' AND source = 'redemption'), 0)::bigint AS redeemed,
           COALESCE(-SUM(points) FILTER (WHERE type = 'debit' AND source = 'expiry'), 0)::bigint AS expired
      FROM points_transactions
     WHERE merchant_id = ${merchantId}::uuid
       AND created_at >= ${bounds[0]}::timestamptz
       AND created_at < ${to}::timestamptz
     GROUP BY 1`;
  return starts.map((period_start, i) => {
    const row = sums.find((s) => Number(s.bucket) === i + 1);
    return { period_start, issued: row?.issued ?? 0n, redeemed: row?.redeemed ?? 0n, expired: row?.expired ?? 0n };
  });
}

/** Active members and redemptions in [from, to). */
async function activity(db: Db, merchantId: string, from: Date, to: Date) {
  const [[members], [rewards]] = await Promise.all([
    db.$queryRaw<{ n: bigint }[]>`
      SELECT count(DISTINCT customer_id)::bigint AS n FROM points_transactions
       WHERE merchant_id = ${merchantId}::uuid AND created_at >= ${from}::timestamptz AND created_at < ${to}::timestamptz`,
    db.$queryRaw<{ n: bigint }[]>`
      SELECT count(*)::bigint AS n FROM customer_rewards
       WHERE merchant_id = ${merchantId}::uuid AND issued_at >= ${from}::timestamptz AND issued_at < ${to}::timestamptz`,
  ]);
  return { active_members: Number(members?.n ?? 0), redemptions: Number(rewards?.n ?? 0) };
}

async function figures(db: Db, merchantId: string, bucket: Bucket, from: Date, to: Date, zone: string): Promise<PeriodFigures> {
  const [rows, counts] = await Promise.all([pointsSeries(db, merchantId, bucket, from, to, zone), activity(db, merchantId, from, to)]);
  const series = rows.map((r) => ({
    period_start: r.period_start,
    issued: Number(r.issued),
    redeemed: Number(r.redeemed),
    expired: Number(r.expired),
  }));
  const total = (key: 'issued' | 'redeemed' | 'expired') => series.reduce((sum, p) => sum + p[key], 0);
  const issued = total('issued');
  const redeemed = total('redeemed');
  return {
    from,
    to,
    series,
    points_issued: issued,
    points_redeemed: redeemed,
    points_expired: total('expired'),
    redemption_rate: issued > 0 ? Math.round((redeemed / issued) * 10_000) / 10_000 : 0,
    ...counts,
  };
}

/** A custom range's days: both local dates given, in order, at most MAX_CUSTOM_DAYS long. */
function customDays(fromDate: string | null | undefined, toDate: string | null | undefined, zone: string) {
  const details: Record<string, string[]> = {};
  if (!fromDate) details.from_date = [messages.required];
  else if (!isCalendarDate(fromDate)) details.from_date = [messages.date];
  if (!toDate) details.to_date = [messages.required];
  else if (!isCalendarDate(toDate)) details.to_date = [messages.date];
  if (Object.keys(details).length) throw validationError(details);
  const from = startOfLocalDate(fromDate!, zone);
  const to = addPeriods('day', startOfLocalDate(toDate!, zone), 1, zone);
  const days = Math.round((to.getTime() - from.getTime()) / 86_400_000);
  if (days < 1) throw validationError({ to_date: [messages.after('From')] });
  if (days > MAX_CUSTOM_DAYS) throw validationError({ to_date: [`This range is too long: choose at most ${MAX_CUSTOM_DAYS} days.`] });
  return { from, to, days };
}

const bucketFor = (days: number): Bucket => (days <= 31 ? 'day' : days <= 120 ? 'week' : 'month');

async function membersPerTier(db: Db, merchantId: string) {
  const [counts, tiers] = await Promise.all([
    db.$queryRaw<{ tier_id: string | null; customers: bigint }[]>`
      SELECT tier_id, count(*)::bigint AS customers FROM customers WHERE merchant_id = ${merchantId}::uuid GROUP BY tier_id`,
    db.tier.findMany({ where: { merchantId }, select: { id: true, name: true }, orderBy: [{ position: 'asc' }, { id: 'asc' }] }),
  ]);
  const count = (id: string | null) => Number(counts.find((c) => c.tier_id === id)?.customers ?? 0);
  const rows = tiers.map((t) => ({ tier_id: t.id, tier_name: t.name, customers: count(t.id) }));
  const untiered = count(null);
  return untiered || rows.length === 0 ? [{ tier_id: null, tier_name: 'No tier', customers: untiered }, ...rows] : rows;
}

async function topRewards(db: Db, merchantId: string, from: Date, to: Date) {
  const top = await db.$queryRaw<{ reward_id: string; redemptions: bigint; points_spent: bigint }[]>`
    SELECT reward_id, count(*)::bigint AS redemptions, COALESCE(SUM(points_spent), 0)::bigint AS points_spent
      FROM customer_rewards
     WHERE merchant_id = ${merchantId}::uuid AND issued_at >= ${from}::timestamptz AND issued_at < ${to}::timestamptz
     GROUP BY reward_id
     ORDER BY redemptions DESC, points_spent DESC, reward_id
     LIMIT ${TOP_REWARDS}`;
  const names = await db.reward.findMany({
    where: { merchantId, id: { in: top.map((t) => t.reward_id) } },
    select: { id: true, name: true },
  });
  return top.map((t) => ({
    reward_id: t.reward_id,
    name: names.find((n) => n.id === t.reward_id)?.name ?? 'Deleted reward',
    redemptions: Number(t.redemptions),
    points_spent: Number(t.points_spent),
  }));
}

export interface DashboardArgs {
  range: DashboardRange;
  /** Local dates (YYYY-MM-DD) of a custom range, both included. */
  from_date?: string | null;
  to_date?: string | null;
}

export async function dashboard(db: Db, merchantId: string, args: DashboardArgs, now = new Date()): Promise<Dashboard> {
  const { range } = args;
  const merchant = await db.merchant.findUniqueOrThrow({
    where: { id: merchantId },
    select: { timezone: true, stats: { select: { customerCount: true } } },
  });
  const zone = merchant.timezone;
  // a preset starts at local midnight `days - 1` local days ago and ends now; a custom range
  // runs over its local days, never past now
  const preset = range === 'custom' ? null : dashboardRanges[range];
  const span = preset
    ? { from: addPeriods('day', periodStart('day', now, zone), -(preset.days - 1), zone), to: now, days: preset.days }
    : customDays(args.from_date, args.to_date, zone);
  const { from, days } = span;
  const to = span.to > now ? now : span.to;
  const bucket = preset?.bucket ?? bucketFor(days);
  const previousFrom = addPeriods('day', from, -days, zone);
  // a preset compares with the same stretch of time before (now, `days` days ago); a custom range with the days before it
  const previousTo = preset ? addPeriods('day', to, -days, zone) : from;
  const [current, previous, tiers, rewards] = await Promise.all([
    // biome-ignore lint/complexity/useMathMinMax: Dates (Math.max would give a number)
    figures(db, merchantId, bucket, from, to > from ? to : from, zone),
    figures(db, merchantId, bucket, previousFrom, previousTo, zone),
    membersPerTier(db, merchantId),
    topRewards(db, merchantId, from, to),
  ]);
  return {
    range,
    bucket,
    ...current,
    previous,
    members: merchant.stats?.customerCount ?? 0,
    members_per_tier: tiers,
    top_rewards: rewards,
  };
}
