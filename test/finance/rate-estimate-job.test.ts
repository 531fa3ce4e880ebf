// The redemption rate estimate kept by a job, through the admin API: a valuation with none
// stored answers no rate and queues one job (never two); the job's estimate is the vintages';
// the ledger moving does not move the valuation's rate until the job runs again; a valuation at
// a past instant uses the estimate stored by then; refresh_redemption_rate_estimate queues it
// and the workers run it; the nightly run queues every merchant's.
import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeRedemptionRateEstimate } from '../../src/domain/finance/rate-estimates.js';
import type { JobsRuntime } from '../../src/jobs/queue.js';
import { queueEstimates } from '../../src/jobs/rate-estimates.js';
import { adminOps } from '../admin-ops.js';
import { newCustomer, newMerchant, type TestApp, testApp } from '../harness.js';
import { eventually, workers } from '../webhooks/receiver.js';
import { ledgerEntryAt } from './history.js';

let app: TestApp;
let boss: PgBoss | undefined;
let jobs: JobsRuntime | undefined;
beforeAll(async () => {
  app = await testApp({ ownDatabase: true });
});
afterAll(async () => {
  await jobs?.stop({ graceful: false });
  await boss?.stop({ graceful: false });
});

const QUEUE = 'redemption-rate-estimate';
const VALUATION = `query ($at: DateTime) { points_valuation(at: $at) {
  redemption_rate redemption_rate_source redemption_rate_estimated_at points_outstanding } }`;
const ESTIMATE = `query ($at: DateTime) { redemption_rate_estimate(at: $at) {
  as_of computed_at redemption_rate points_redeemed points_ended cohorts } }`;
const VINTAGES = '{ points_vintages { estimated_redemption_rate estimate_cohorts } }';
const REFRESH = `mutation { refresh_redemption_rate_estimate {
  queued estimate { computed_at redemption_rate } } }`;

/** A shop with a mature cohort: 100 points in January 2025, 60 redeemed, 40 expired (an estimate of 0.6). */
async function shop() {
  const merchant = await newMerchant(app, 'rate-estimate');
  const [a, b] = [await newCustomer(app, merchant.id), await newCustomer(app, merchant.id)];
  await ledgerEntryAt(app, merchant.id, a.id, 100, new Date('2025-01-10T12:00:00Z'));
  await ledgerEntryAt(app, merchant.id, a.id, -60, new Date('2025-03-01T12:00:00Z'), 'redemption');
  await ledgerEntryAt(app, merchant.id, a.id, -40, new Date('2025-06-01T12:00:00Z'), 'expiry');
  return { merchantId: merchant.id, other: b.id, admin: adminOps(app, merchant.admin_token) };
}

/** The merchant's jobs waiting in the queue. */
async function waiting(merchantId: string) {
  const rows = await app.db.$queryRaw<{ data: { merchant_id: string } }[]>`
    SELECT data FROM pgboss.job WHERE name = ${QUEUE} AND singleton_key = ${merchantId} AND state = 'created'`;
  return rows.map((r) => r.data);
}

/** Takes the merchant's waiting job off the queue and runs it as the worker does. */
async function runQueued(merchantId: string) {
  const [job] = await boss!.fetch<{ merchant_id: string }>(QUEUE);
  expect(job?.data).toEqual({ merchant_id: merchantId });
  await computeRedemptionRateEstimate(app.db, job!.data.merchant_id);
  await boss!.complete(QUEUE, job!.id);
}

/** An instant strictly after everything written so far, and strictly before anything written next. */
async function instant() {
  await new Promise((r) => setTimeout(r, 5));
  const at = new Date();
  await new Promise((r) => setTimeout(r, 5));
  return at;
}

describe('the redemption rate estimate', () => {
  it('is not asked for while no worker has ever started on the database: refresh is 503, a valuation answers no rate', async () => {
    const { admin } = await shop();
    expect(await admin.fails(REFRESH)).toMatchObject({ code: 'service_unavailable' });
    expect((await admin.ok(VALUATION)).points_valuation).toMatchObject({
      redemption_rate: null,
      redemption_rate_source: null,
      redemption_rate_estimated_at: null,
    });
  });

  // the queue exists once workers have started once; until the last test none runs, so each
  // test's jobs stay queued for it to take
  it('is queued by a valuation that finds none, once; the valuation answers no rate meanwhile', async () => {
    await (await workers(app)).stop();
    boss = new PgBoss({ connectionString: app.url, schema: 'pgboss', supervise: false, schedule: false, migrate: false });
    await boss.start();
    const { merchantId, admin } = await shop();
    expect(await waiting(merchantId)).toEqual([]);
    const none = { redemption_rate: null, redemption_rate_source: null, redemption_rate_estimated_at: null };
    expect((await admin.ok(VALUATION)).points_valuation).toMatchObject(none);
    expect(await waiting(merchantId)).toEqual([{ merchant_id: merchantId }]);
    // asked again while it waits: still one job
    expect((await admin.ok(VALUATION)).points_valuation).toMatchObject(none);
    expect(await waiting(merchantId)).toHaveLength(1);

    await runQueued(merchantId);
    const { points_vintages: vintages } = await admin.ok(VINTAGES);
    expect(vintages).toEqual({ estimated_redemption_rate: 0.6, estimate_cohorts: ['2025-01'] });
    const { redemption_rate_estimate: estimate } = await admin.ok(ESTIMATE);
    expect(estimate).toMatchObject({ redemption_rate: 0.6, points_redeemed: 60, points_ended: 100, cohorts: ['2025-01'] });
    expect((await admin.ok(VALUATION)).points_valuation).toEqual({
      redemption_rate: vintages.estimated_redemption_rate,
      redemption_rate_source: 'estimated',
      redemption_rate_estimated_at: estimate.computed_at,
      points_outstanding: 0,
    });
  });

  it('stays as the job left it while the ledger moves, and a valuation at a past instant uses the estimate of then', async () => {
    const { merchantId, other, admin } = await shop();
    const beforeAny = await instant();
    await computeRedemptionRateEstimate(app.db, merchantId);
    const first = (await admin.ok(ESTIMATE)).redemption_rate_estimate;
    expect(first.redemption_rate).toBe(0.6);

    // February 2025: 100 more points, all redeemed: the cohorts now say 160 of 200
    await ledgerEntryAt(app, merchantId, other, 100, new Date('2025-02-05T12:00:00Z'));
    await ledgerEntryAt(app, merchantId, other, -100, new Date('2025-04-01T12:00:00Z'), 'redemption');
    expect((await admin.ok(VINTAGES)).points_vintages.estimated_redemption_rate).toBe(0.8);
    expect((await admin.ok(VALUATION)).points_valuation).toMatchObject({
      redemption_rate: 0.6,
      redemption_rate_estimated_at: first.computed_at,
    });
    const betweenRuns = await instant();

    await computeRedemptionRateEstimate(app.db, merchantId);
    const second = (await admin.ok(ESTIMATE)).redemption_rate_estimate;
    expect(second).toMatchObject({ redemption_rate: 0.8, points_redeemed: 160, points_ended: 200, cohorts: ['2025-01', '2025-02'] });
    expect((await admin.ok(VALUATION)).points_valuation).toMatchObject({
      redemption_rate: 0.8,
      redemption_rate_estimated_at: second.computed_at,
    });

    // at an instant between the two runs: the first; before any run: none, and nothing queued (estimates exist)
    const at = async (t: Date) => (await admin.ok(VALUATION, { at: t.toISOString() })).points_valuation;
    expect(await at(betweenRuns)).toMatchObject({ redemption_rate: 0.6, redemption_rate_estimated_at: first.computed_at });
    expect((await admin.ok(ESTIMATE, { at: betweenRuns.toISOString() })).redemption_rate_estimate).toEqual(first);
    expect(await at(beforeAny)).toMatchObject({ redemption_rate: null, redemption_rate_source: null, redemption_rate_estimated_at: null });
    expect((await admin.ok(ESTIMATE, { at: beforeAny.toISOString() })).redemption_rate_estimate).toBeNull();
    expect(await waiting(merchantId)).toEqual([]);
  });

  it('is not read when the rate is set', async () => {
    const { merchantId, admin } = await shop();
    await admin.ok('mutation { set_points_valuation(redemption_rate: 0.9) { redemption_rate } }');
    expect((await admin.ok(VALUATION)).points_valuation).toMatchObject({
      redemption_rate: 0.9,
      redemption_rate_source: 'set',
      redemption_rate_estimated_at: null,
    });
    expect(await waiting(merchantId)).toEqual([]);
  });

  it('is queued each night for every merchant, one job each however often it runs', async () => {
    const { merchantId } = await shop();
    const merchants = await app.db.merchant.count();
    const first = await queueEstimates(app.db);
    expect(first.merchants).toBe(merchants);
    expect(await waiting(merchantId)).toEqual([{ merchant_id: merchantId }]);
    expect(await queueEstimates(app.db)).toEqual({ merchants, queued: 0 });
    expect(await waiting(merchantId)).toHaveLength(1);
  });

  it('is refreshed on request: queued at once, once, and run by the workers', async () => {
    const { merchantId, other, admin } = await shop();
    await computeRedemptionRateEstimate(app.db, merchantId);
    const { redemption_rate_estimate: old } = await admin.ok(ESTIMATE);
    await ledgerEntryAt(app, merchantId, other, 100, new Date('2025-02-05T12:00:00Z'));
    await ledgerEntryAt(app, merchantId, other, -100, new Date('2025-04-01T12:00:00Z'), 'redemption');

    // answered with the estimate in effect until the job has run
    const asked = { estimate: { computed_at: old.computed_at, redemption_rate: 0.6 } };
    expect((await admin.ok(REFRESH)).refresh_redemption_rate_estimate).toEqual({ queued: true, ...asked });
    expect((await admin.ok(REFRESH)).refresh_redemption_rate_estimate).toEqual({ queued: false, ...asked });
    expect(await waiting(merchantId)).toHaveLength(1);

    jobs = await workers(app);
    const valued = await eventually(async () => {
      const { points_valuation: v } = await admin.ok(VALUATION);
      expect(v.redemption_rate).toBe(0.8);
      return v;
    });
    expect(valued.redemption_rate_estimated_at > old.computed_at).toBe(true);
    expect(await waiting(merchantId)).toEqual([]);
  });
});
