// The admin dashboard's figures, aggregated in SQL so they stay fast at 100k customers and 1M
// ledger rows (bench/dashboard.ts measures them):
// - points issued (every credit), redeemed (redemption debits) and expired (expiry debits) per
//   day, week or month: an index-only scan of points_transactions (merchant_id, created_at)
//   INCLUDE (type, source, points) over the range;
// - members per tier: an index-only count over customers (merchant_id, tier_id);
// - top rewards: customer_rewards (merchant_id, issued_at) INCLUDE (reward_id, points_spent).
// Buckets are the merchant's local days, weeks (from Monday) and months: their bounds are
// computed in its time zone (shared/calendar.ts) and the rows are sorted into them with
// width_bucket, so a 23- or 25-hour day around a DST change is one bucket.
import type { Db } from '../../db/client.js';
import { addPeriods, periodStart, periodStarts } from '../shared/calendar.js';

export const dashboardRanges = {
  last_7_days: { days: 7, bucket: 'day' },
  last_30_days: { days: 30, bucket: 'day' },
  last_90_days: { days: 90, bucket: 'week' },
  last_12_months: { days: 365, bucket: 'month' },
} as const;
export type DashboardRange = keyof typeof dashboardRanges;
export type Bucket = (typeof dashboardRanges)[DashboardRange]['bucket'];

export interface PointsPeriod {
  period_start: Date;
  issued: number;
  redeemed: number;
  expired: number;
}

export interface Dashboard {
  range: DashboardRange;
  bucket: Bucket;
  from: Date;
  to: Date;
  series: PointsPeriod[];
  points_issued: number;
  points_redeemed: number;
  points_expired: number;
  /** Points redeemed per point issued in the range (0 when none were issued). */
  redemption_rate: number;
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
  const names = await db.reward.findMany({ where: { merchantId, id: { in: top.map((t) => t.reward_id) } }, select: { id: true, name: true } });
  return top.map((t) => ({
    reward_id: t.reward_id,
    name: names.find((n) => n.id === t.reward_id)?.name ?? 'Deleted reward',
    redemptions: Number(t.redemptions),
    points_spent: Number(t.points_spent),
  }));
}

export async function dashboard(db: Db, merchantId: string, range: DashboardRange, now = new Date()): Promise<Dashboard> {
  const { days, bucket } = dashboardRanges[range];
  const to = now;
  const merchant = await db.merchant.findUniqueOrThrow({
    where: { id: merchantId },
    select: { timezone: true, stats: { select: { customerCount: true } } },
  });
  const zone = merchant.timezone;
  // the range starts at local midnight `days - 1` local days ago
  const from = addPeriods('day', periodStart('day', now, zone), -(days - 1), zone);
  const [rows, tiers, rewards] = await Promise.all([
    pointsSeries(db, merchantId, bucket, from, to, zone),
    membersPerTier(db, merchantId),
    topRewards(db, merchantId, from, to),
  ]);
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
    range,
    bucket,
    from,
    to,
    series,
    points_issued: issued,
    points_redeemed: redeemed,
    points_expired: total('expired'),
    redemption_rate: issued > 0 ? Math.round((redeemed / issued) * 10_000) / 10_000 : 0,
    members: merchant.stats?.customerCount ?? 0,
    members_per_tier: tiers,
    top_rewards: rewards,
  };
}
