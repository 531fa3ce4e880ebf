// What the points liability report costs on a large ledger: `npx tsx bench/liability.ts [--quick]`.
// Loads 100k customers and 10 million ledger rows spread over a year (--quick: 10k and 1
// million) into its own PostgreSQL database (loyalty_bench_liability, recreated;
// BENCH_DATABASE_URL to use another), fills ledger_buckets as the migration does for an existing
// ledger, then times the roll-forward as the admin API runs it (domain/finance/liability.ts):
// twelve monthly periods, ninety daily ones, the expiry schedule, and the valuation at the end
// (which reads the vintages). Not part of the service.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createPrisma } from '../src/db/client.js';
import { expirySchedule, liabilityRollForward } from '../src/domain/finance/liability.js';
import { pointsValuation, setPointsValuation } from '../src/domain/finance/valuation.js';
import { parseSettings, resultsDir } from './config.js';
import { analyze, createTenant, loadCatalogue, loadCustomers, preparePostgres, withClient, withoutTriggers } from './data.js';

const RUNS = 10;
const settings = parseSettings();
const size = { ...settings.full, transactions: settings.full.transactions * 10 };
const url = await preparePostgres(settings.adminUrl, settings.databaseUrl, 'loyalty_bench_liability');
const tenant = await createTenant(url);
const started = Date.now();
const loaded = await withClient(url, async (client) => {
  await withoutTriggers(client, async () => {
    await loadCatalogue(client, tenant.merchantId, size);
    await loadCustomers(client, tenant.merchantId, size, 1, size.customers);
  });
  // the load skips triggers: the buckets as the migration's backfill writes them for a ledger
  await client.query(
    `INSERT INTO ledger_buckets (id, merchant_id, bucket_start, category, points, entries)
     SELECT gen_random_uuid(), merchant_id, loyalty_ledger_bucket(created_at),
            loyalty_ledger_category(type, source, reference_kind), sum(points), count(*)
       FROM points_transactions WHERE merchant_id = $1::uuid GROUP BY merchant_id, 3, 4`,
    [tenant.merchantId],
  );
  await analyze(client);
  await client.query('VACUUM ANALYZE ledger_buckets');
  const { rows } = await client.query(
    `SELECT (SELECT count(*) FROM points_transactions WHERE merchant_id = $1)::int AS ledger_rows,
            (SELECT count(*) FROM ledger_buckets WHERE merchant_id = $1)::int AS bucket_rows,
            (SELECT max(created_at) FROM points_transactions WHERE merchant_id = $1) AS last`,
    [tenant.merchantId],
  );
  return rows[0] as { ledger_rows: number; bucket_rows: number; last: Date };
});
console.log(`loaded in ${((Date.now() - started) / 1000).toFixed(0)} s:`, loaded);

const db = createPrisma(url, 10);
const day = (d: Date) => d.toISOString().slice(0, 10);
const last = new Date(loaded.last);
const yearAgo = new Date(last.getTime() - 364 * 86_400_000);
const quarterAgo = new Date(last.getTime() - 89 * 86_400_000);

async function time(name: string, run: () => Promise<unknown>, runs = RUNS) {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await run();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))]! * 10) / 10;
  const result = { median_ms: at(0.5), p90_ms: at(0.9), max_ms: at(1) };
  console.log(name, result);
  return result;
}

const results = {
  twelve_months: await time('twelve monthly periods', () =>
    liabilityRollForward(db, tenant.merchantId, { from: day(yearAgo), to: day(last), grouping: 'month' }),
  ),
  ninety_days: await time('ninety daily periods', () =>
    liabilityRollForward(db, tenant.merchantId, { from: day(quarterAgo), to: day(last), grouping: 'day' }),
  ),
  expiry_schedule: await time('expiry schedule', () => expirySchedule(db, tenant.merchantId, last)),
  // the vintages read every ledger row: three runs
  valuation_estimated: await time('valuation, rate estimated from the vintages', () => pointsValuation(db, tenant.merchantId, last), 3),
};
await setPointsValuation(db, tenant.merchantId, { point_value: 0.01, redemption_rate: 0.8 });
const valuationSet = await time('valuation, rate set', () => pointsValuation(db, tenant.merchantId));
await db.$disconnect();
writeFileSync(
  path.join(resultsDir, 'liability-latest.json'),
  JSON.stringify(
    { size: { customers: size.customers, transactions: size.transactions }, loaded, results: { ...results, valuation_set: valuationSet } },
    null,
    2,
  ),
);
