// What the admin dashboard costs at the benchmark's full size (100k customers, 1M ledger rows,
// plus one issued reward per redemption debit): `npx tsx bench/dashboard.ts [--quick]`.
// Loads the benchmark's data set into its own PostgreSQL database (loyalty_bench_dashboard,
// recreated; BENCH_DATABASE_URL to use another), then times the dashboard query of every range
// as the admin API runs it (domain/dashboard.ts: three SQL aggregates and two small lookups in
// parallel) and prints the plan of the points-over-time aggregate. Not part of the service.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createPrisma } from '../src/db/client.js';
import { dashboard, dashboardRanges } from '../src/domain/reports/dashboard.js';
import { parseSettings, resultsDir } from './config.js';
import { analyze, counts, createTenant, loadCatalogue, loadCustomers, preparePostgres, withClient } from './data.js';

const RUNS = 15;
const settings = parseSettings();
const size = settings.full;
const url = await preparePostgres(settings.adminUrl, settings.databaseUrl, 'loyalty_bench_dashboard');
const tenant = await createTenant(url);
const started = Date.now();
const loaded = await withClient(url, async (client) => {
  await loadCatalogue(client, tenant.merchantId, size);
  await loadCustomers(client, tenant.merchantId, size, 1, size.customers);
  // every redemption debit issued a reward: the top-rewards aggregate has as many rows to read
  await client.query(
    `INSERT INTO customer_rewards (id, merchant_id, customer_id, reward_id, code, points_spent, issued_at)
     SELECT gen_random_uuid(), t.merchant_id, t.customer_id,
            (SELECT id FROM rewards r WHERE r.merchant_id = t.merchant_id ORDER BY r.created_at OFFSET (abs(hashtext(t.id::text)) % 50) LIMIT 1),
            'B' || md5(t.id::text), -t.points, t.created_at
       FROM points_transactions t WHERE t.merchant_id = $1::uuid AND t.source = 'redemption'`,
    [tenant.merchantId],
  );
  await analyze(client);
  const { rows } = await client.query(`SELECT max(created_at) AS last FROM points_transactions WHERE merchant_id = $1::uuid`, [
    tenant.merchantId,
  ]);
  return { ...(await counts(client, tenant.merchantId)), last: rows[0].last as Date };
});
console.log(`loaded in ${((Date.now() - started) / 1000).toFixed(0)} s:`, loaded);

// the data set's history ends at `last`: measure the dashboard as seen on that day
const now = loaded.last;
const db = createPrisma(url, 10);
const results: Record<string, { median_ms: number; p90_ms: number; max_ms: number; rows_in_range: number; periods: number }> = {};
for (const range of Object.keys(dashboardRanges) as (keyof typeof dashboardRanges)[]) {
  const times: number[] = [];
  let last: Awaited<ReturnType<typeof dashboard>> | undefined;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    last = await dashboard(db, tenant.merchantId, { range }, now);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))]! * 10) / 10;
  const inRange = await db.pointsTransaction.count({ where: { merchantId: tenant.merchantId, createdAt: { gte: last!.from, lt: now } } });
  results[range] = { median_ms: at(0.5), p90_ms: at(0.9), max_ms: at(1), rows_in_range: inRange, periods: last!.series.length };
  console.log(range, results[range]);
}

const plan = await withClient(url, async (client) => {
  const { rows } = await client.query(
    `EXPLAIN (ANALYZE, BUFFERS)
     SELECT date_trunc('month', created_at AT TIME ZONE 'UTC'), sum(points) FILTER (WHERE type = 'credit')
       FROM points_transactions WHERE merchant_id = $1::uuid AND created_at >= $2::timestamptz - interval '365 days' AND created_at < $2::timestamptz
      GROUP BY 1`,
    [tenant.merchantId, now],
  );
  return rows.map((r) => r['QUERY PLAN'] as string);
});
console.log(plan.join('\n'));
await db.$disconnect();
writeFileSync(path.join(resultsDir, 'dashboard-latest.json'), JSON.stringify({ size, loaded, results, plan }, null, 2));
