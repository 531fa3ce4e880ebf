// The admin dashboard's figures, aggregated in SQL so they stay fast at 100k customers and 1M
// ledger rows (bench/dashboard.ts measures them):
// - points issued (every credit), redeemed (redemption debits) and expired (expiry debits) per
//   day, week or month: an index-only scan of points_transactions (merchant_id, created_at)
//   INCLUDE (type, source, points) over the range;
// - members per tier: an index-only count over customers (merchant_id, tier_id);
// - top rewards: customer_rewards (merchant_id, issued_at) INCLUDE (reward_id, points_spent).
// Buckets are UTC days (the merchant's time zone is not a setting yet).
import type { Db } from '../../db/client.js';

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

const DAY_MS = 86_400_000;
const TOP_REWARDS = 5;

/** The first bucket starts at the start of the day, week (Monday) or month holding `from`. */
function pointsSeries(db: Db, merchantId: string, bucket: Bucket, from: Date, to: Date) {
  return db.$queryRaw<{ period_start: Date; issued: bigint; redeemed: bigint; expired: bigint }[]>`
    WITH periods AS (
      SELECT generate_series(
               date_trunc(${bucket}, ${from}::timestamptz AT TIME ZONE 'UTC'),
               ${to}::timestamptz AT TIME ZONE 'UTC',
               ('1 ' || ${bucket})::interval) AS period
    ), sums AS (
      SELECT date_trunc(${bucket}, created_at AT TIME ZONE 'UTC') AS period,
             COALESCE(SUM(points) FILTER (WHERE type = 'credit'), 0)::bigint AS issued,
             COALESCE(-SUM(points) FILTER (WHERE type = 'debit' AND source = 'redemption'), 0)::bigint AS redeemed,
             COALESCE(-SUM(points) FILTER (WHERE type = 'debit' AND source = 'expiry'), 0)::bigint AS expired
        FROM points_transactions
       WHERE merchant_id = ${merchantId}::uuid
         AND created_at >= date_trunc(${bucket}, ${from}::timestamptz AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
         AND created_at < ${to}::timestamptz
       GROUP BY 1
    )
    SELECT periods.period AT TIME ZONE 'UTC' AS period_start,
           COALESCE(sums.issued, 0)::bigint AS issued,
           COALESCE(sums.redeemed, 0)::bigint AS redeemed,
           COALESCE(sums.expired, 0)::bigint AS expired
      FROM periods LEFT JOIN sums USING (period)
     ORDER BY periods.period`;
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
  const from = new Date(now.getTime() - (days - 1) * DAY_MS);
  from.setUTCHours(0, 0, 0, 0);
  const [rows, tiers, rewards, merchant] = await Promise.all([
    pointsSeries(db, merchantId, bucket, from, to),
    membersPerTier(db, merchantId),
    topRewards(db, merchantId, from, to),
    db.merchant.findUniqueOrThrow({ where: { id: merchantId }, select: { customerCount: true } }),
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
    members: merchant.customerCount,
    members_per_tier: tiers,
    top_rewards: rewards,
  };
}
