// What-if replay at size: `npx tsx bench/replay.ts [--quick]` loads one merchant with 1,000,000
// orders (--quick: 100,000) over a year, each with its ledger credit, 20,000 customers, five
// purchase rules (two limited), two boosters and a three-tier ladder, into its own PostgreSQL
// database (loyalty_bench_replay, recreated; BENCH_DATABASE_URL to use another), then times one
// replay of the whole year under a draft that changes a rule and the ladder, as `loyalty replay`
// runs it (domain/finance/replay.ts), and the process's peak memory and CPU time. `--reuse` replays
// the data a previous run loaded (same size) instead of loading again; `--trace` prints the heap
// and RSS every 100,000 orders; `--v8-defaults` leaves V8's collector at its own setting. Not
// part of the service.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { replayHeap } from '../src/cli/replay-heap.js';
import { createPrisma } from '../src/db/client.js';
import { applyMigrations } from '../src/db/schema-engine.js';
import { replayProgram } from '../src/domain/finance/replay.js';
import { parseSettings, resultsDir } from './config.js';
import { createTenant, preparePostgres, withClient } from './data.js';

const settings = parseSettings();
const ORDERS = settings.quick ? 100_000 : 1_000_000;
const CUSTOMERS = 20_000;
const DB_NAME = settings.quick ? 'loyalty_bench_replay_quick' : 'loyalty_bench_replay';

/** The merchant a previous run loaded with as many orders, if `--reuse` and there is one. */
async function loaded(): Promise<{ url: string; m: string; base: string } | null> {
  if (!process.argv.includes('--reuse')) return null;
  const url = settings.databaseUrl ?? Object.assign(new URL(settings.adminUrl), { pathname: `/${DB_NAME}` }).toString();
  try {
    await applyMigrations(url);
    return await withClient(url, async (c) => {
      const { rows } = await c.query(
        `SELECT r.merchant_id::text AS m, r.id::text AS base FROM earning_rules r
          WHERE r.name = 'A point a dollar' AND (SELECT count(*) FROM orders o WHERE o.merchant_id = r.merchant_id) = $1`,
        [ORDERS],
      );
      return rows[0] ? { url, m: rows[0].m as string, base: rows[0].base as string } : null;
    });
  } catch {
    return null;
  }
}

async function load(): Promise<{ url: string; m: string; base: string }> {
  const url = await preparePostgres(settings.adminUrl, settings.databaseUrl, DB_NAME);
  const tenant = await createTenant(url);
  const m = tenant.merchantId;
  const started = Date.now();
  const ids = await withClient(url, async (c) => {
    await c.query(`UPDATE merchants SET timezone = 'America/New_York' WHERE id = $1`, [m]);
    const rule = async (name: string, earning: object, conditions: object | null) =>
      (
        await c.query(
          `INSERT INTO earning_rules (id, merchant_id, name, campaign_type, earning_rule, conditions, updated_at)
           VALUES (gen_random_uuid(), $1, $2, 'purchase', $3, $4, now()) RETURNING id`,
          [m, name, JSON.stringify(earning), conditions && JSON.stringify(conditions)],
        )
      ).rows[0].id as string;
    const base = await rule('A point a dollar', { type: 'variable', value: 1, per_amount: 1 }, null);
    await rule('Big basket', { type: 'fixed', value: 50 }, { min_order_subtotal: 150, limit: { count: 2, period: 'week' } });
    await rule(
      'Monthly extra',
      { type: 'variable', value: 2, per_amount: 10 },
      { max_points_per_order: 40, limit: { count: 3, period: 'month' } },
    );
    await rule('Spring', { type: 'fixed', value: 25 }, { starts_at: '2025-03-01T05:00:00Z', ends_at: '2025-04-15T04:00:00Z' });
    await rule('Excluded products', { type: 'variable', value: 1, per_amount: 20 }, { excluded_product_ids: ['gift-card'] });
    await c.query(
      `INSERT INTO booster_campaigns (id, merchant_id, name, multiplier, campaign_types, starts_at, ends_at, updated_at) VALUES
         (gen_random_uuid(), $1, 'Double June', 2, '{purchase}', '2025-06-01T04:00:00Z', '2025-06-15T04:00:00Z', now()),
         (gen_random_uuid(), $1, 'Black Friday', 1.5, '{purchase}', '2025-11-20T05:00:00Z', '2025-12-02T05:00:00Z', now())`,
      [m],
    );
    await c.query(
      `INSERT INTO tiers (id, merchant_id, name, position, threshold, "window", qualification, earn_multiplier, is_default, updated_at) VALUES
         (gen_random_uuid(), $1, 'Member', 0, 0, 'lifetime', 'points_earned', 1, true, now()),
         (gen_random_uuid(), $1, 'Silver', 1, 1000, 'calendar_year', 'points_earned', 1.25, false, now()),
         (gen_random_uuid(), $1, 'Gold', 2, 5000, 'lifetime', 'amount_spent', 1.5, false, now())`,
      [m],
    );
    await c.query(
      `INSERT INTO customers (id, merchant_id, platform_id, email, referral_code, updated_at)
       SELECT gen_random_uuid(), $1, 'c' || i, 'c' || i || '@example.com', 'R' || i, now() FROM generate_series(1, $2) i`,
      [m, CUSTOMERS],
    );
    // bulk rows skip the triggers (the outbox's events, the liability's buckets): the replay reads neither
    await c.query(`SET session_replication_role = replica`);
    // orders over 2025, in recorded order, each with the credit the ledger would hold (what it earns is not checked here)
    await c.query(
      `WITH cs AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM customers WHERE merchant_id = $1),
            o AS (SELECT i, timestamptz '2025-01-01 05:00:00Z' + (i * (365 * 86400.0 / $2)) * interval '1 second' AS at,
                         round((5 + (abs(hashint4(i)) % 40000) / 100.0)::numeric, 2) AS subtotal,
                         1 + abs(hashint4(i + 7)) % $3 AS n FROM generate_series(1, $2) i),
            ins AS (INSERT INTO orders (id, merchant_id, platform_order_id, customer_id, subtotal, currency, points_awarded, placed_at, created_at)
                    SELECT gen_random_uuid(), $1, 'o' || o.i, cs.id, o.subtotal, 'USD', floor(o.subtotal)::int, o.at, o.at FROM o JOIN cs USING (n)
                    RETURNING customer_id, platform_order_id, points_awarded, created_at)
       INSERT INTO points_transactions (id, merchant_id, customer_id, points, type, description, source, balance_after, reference_kind, reference_id, created_at)
       SELECT gen_random_uuid(), $1, customer_id, points_awarded, 'credit', 'Purchase', 'earning_rule', points_awarded, 'order', platform_order_id, created_at
         FROM ins WHERE points_awarded > 0`,
      [m, ORDERS, CUSTOMERS],
    );
    await c.query('VACUUM ANALYZE orders, points_transactions, customers');
    return { base };
  });
  console.log(`loaded ${ORDERS} orders in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return { url, m, base: ids.base };
}

const { url, m, ...ids } = (await loaded()) ?? (await load());

// the collector as `loyalty replay` (and the server, where the job runs) sets it
if (!process.argv.includes('--v8-defaults')) replayHeap();
const db = createPrisma(url, 4);
await db.$queryRaw`SELECT 1`;
const rssBefore = process.memoryUsage().rss;
let peakRss = 0;
const sample = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
const t0 = performance.now();
const cpu0 = process.cpuUsage();
// --trace: the heap and RSS after every 20th page, to see what grows
const trace = process.argv.includes('--trace');
let pagesRead = 0;
const onProgress = (p: { orders_read: number }) => {
  if (!trace || ++pagesRead % 20 !== 0) return;
  const u = process.memoryUsage();
  const mb = (n: number) => Math.round(n / 2 ** 20);
  console.log(`${p.orders_read} orders: rss ${mb(u.rss)} MB, heap used ${mb(u.heapUsed)} MB, external ${mb(u.external)} MB`);
};
const report = await replayProgram(
  db,
  m,
  {
    from: '2025-01-01',
    to: '2025-12-31',
    draft: {
      earning_rules: [
        {
          id: ids.base,
          name: 'Two points a dollar',
          campaign_type: 'purchase',
          earning_rule: { type: 'variable', value: 2, per_amount: 1 },
        },
      ],
      tiers: [
        { name: 'Member', position: 0, threshold: 0, is_default: true },
        { name: 'Silver', position: 1, threshold: 2000, window: 'rolling_12_months', earn_multiplier: 1.25 },
      ],
    },
  },
  { onProgress },
);
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
clearInterval(sample);
const result = {
  orders: report.orders_read,
  seconds: Number(seconds.toFixed(1)),
  cpu_seconds: Number(((cpu.user + cpu.system) / 1e6).toFixed(1)),
  load_average: Number(os.loadavg()[0]!.toFixed(1)),
  orders_per_second: Math.round(report.orders_read / seconds),
  rss_before_mb: Math.round(rssBefore / 2 ** 20),
  peak_rss_mb: Math.round(peakRss / 2 ** 20),
  issued: report.issued,
  tier_changes: report.tier_changes.customers,
};
console.log(result);
writeFileSync(path.join(resultsDir, `replay-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(result, null, 2));
await db.$disconnect();
