// What-if replay as a job, through the admin API: started (bad input refused as program_replay
// refuses it), followed, and its report the same as program_replay's; cancelled between two
// pages it stops at the next and keeps no report; a job whose process died reads as failed;
// a day later it is gone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordOrder, refundOrder } from '../../src/domain/events/orders.js';
import { pruneReplayJobs, runReplayJob } from '../../src/domain/finance/replay-jobs.js';
import type { JobsRuntime } from '../../src/jobs/queue.js';
import { adminOps } from '../admin-ops.js';
import { newCustomer, newMerchant, type TestApp, testApp } from '../harness.js';
import { eventually, workers } from '../webhooks/receiver.js';

let app: TestApp;
let jobs: JobsRuntime | undefined;
beforeAll(async () => {
  app = await testApp({ ownDatabase: true });
});
afterAll(async () => {
  await jobs?.stop({ graceful: false });
});

const REPORT = `timezone from to orders orders_read mismatched_orders
    issued { actual replayed draft difference }
    by_rule { id name replayed draft difference }
    by_tier { id name actual draft difference }
    tier_changes { customers moves { from_tier_id to_tier_id customers } }
    liability { actual draft change }
    customers_most_affected { customer_id actual draft difference tier_id draft_tier_id }`;
const REPLAY = `query ($from: Date!, $to: Date!, $draft: JSON!, $top: Int) { program_replay(from: $from, to: $to, draft: $draft, top: $top) { ${REPORT} } }`;
const JOB = `id state from to orders_read progress read_up_to report { ${REPORT} } error { code message } created_at started_at finished_at`;
const START = `mutation ($from: Date!, $to: Date!, $draft: JSON!, $top: Int) { start_program_replay(from: $from, to: $to, draft: $draft, top: $top) { ${JOB} } }`;
const STATUS = `query ($id: ID!) { program_replay_job(id: $id) { ${JOB} } }`;
const CANCEL = `mutation ($id: ID!) { cancel_program_replay(id: $id) { ${JOB} } }`;

const today = () => new Date().toISOString().slice(0, 10);
const yesterday = () => new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
const ORDERS = 40;

/** A shop with a rule, a ladder and 40 orders of three customers, one refunded. */
async function shop() {
  const merchant = await newMerchant(app, 'replay-job');
  const admin = adminOps(app, merchant.admin_token);
  const { create_earning_rule: rule } = await admin.ok(
    `mutation($input: EarningRuleInput!) { create_earning_rule(input: $input) { id } }`,
    {
      input: { name: 'A point a dollar', campaign_type: 'purchase', earning_rule: { type: 'variable', value: 1, per_amount: 1 } },
    },
  );
  for (const c of ['a', 'b', 'c']) await newCustomer(app, merchant.id, { customerId: c });
  for (let i = 0; i < ORDERS; i++) {
    await recordOrder(app.db, merchant.id, { order_id: `o${i}`, customer_id: ['a', 'b', 'c'][i % 3]!, subtotal: 10 + i });
  }
  await refundOrder(app.db, merchant.id, { order_id: 'o4' });
  const draft = {
    earning_rules: [
      { id: rule.id, name: 'Two points a dollar', campaign_type: 'purchase', earning_rule: { type: 'variable', value: 2, per_amount: 1 } },
    ],
    tiers: [
      { name: 'Member', position: 0, threshold: 0, is_default: true },
      { name: 'Big', position: 1, threshold: 300, earn_multiplier: 1.5 },
    ],
  };
  return { merchantId: merchant.id, admin, input: { from: yesterday(), to: today(), draft, top: 5 } };
}

/** A report with each tier's id replaced by its name. */
function byTierName(report: { by_tier: { id: string | null; name: string }[] }) {
  let text = JSON.stringify(report);
  for (const t of report.by_tier) if (t.id) text = text.replaceAll(t.id, `tier:${t.name}`);
  return JSON.parse(text);
}

describe('a replay job', () => {
  it('is refused with 503 while no worker has ever started on the database', async () => {
    const { admin, input } = await shop();
    expect(await admin.fails(START, input)).toMatchObject({ code: 'service_unavailable' });
  });

  // the queue exists once workers have started on the database; until the last test none runs,
  // so each test's jobs stay queued for it to run by hand
  it('is queued once the workers have started once', async () => {
    await (await workers(app)).stop();
    const { admin, input } = await shop();
    expect((await admin.ok(START, input)).start_program_replay).toMatchObject({ state: 'queued' });
  });

  it('shows its progress between pages, and cancelled stops at the next page and keeps no report', async () => {
    const { merchantId, admin, input } = await shop();
    // started with no worker taking it: the run below is the worker's, with pages of 5 orders
    const { start_program_replay: started } = await admin.ok(START, input);
    const seen: { state: string; orders_read: number; progress: number }[] = [];
    const state = await runReplayJob(app.db, merchantId, started.id, {
      pageSize: 5,
      onPage: async () => {
        const { program_replay_job: job } = await admin.ok(STATUS, { id: started.id });
        seen.push(job);
        if (seen.length === 2) {
          const { cancel_program_replay: cancelled } = await admin.ok(CANCEL, { id: started.id });
          expect(cancelled).toMatchObject({ state: 'cancelled', report: null });
        }
      },
    });
    expect(state).toBe('cancelled');
    expect(seen.map((j) => [j.state, j.orders_read])).toEqual([
      ['running', 5],
      ['running', 10],
    ]);
    expect(seen[0]!.progress).toBeGreaterThan(0);
    expect(seen[1]!.progress).toBeGreaterThanOrEqual(seen[0]!.progress);
    expect(seen[1]!.progress).toBeLessThan(1);
    // the page after the cancel found it and stopped: nothing more was written
    const { program_replay_job: after } = await admin.ok(STATUS, { id: started.id });
    expect(after).toMatchObject({ state: 'cancelled', orders_read: 10, report: null });
    // cancelling again answers the same
    expect((await admin.ok(CANCEL, { id: started.id })).cancel_program_replay).toMatchObject({ state: 'cancelled' });
    // a worker that takes it later leaves it as it is
    expect(await runReplayJob(app.db, merchantId, started.id)).toBe('cancelled');
  });

  it('reads as failed once its worker has stopped writing (its process died), and cannot be cancelled then', async () => {
    const { merchantId, admin, input } = await shop();
    const { start_program_replay: started } = await admin.ok(START, input);
    // what a worker killed after its first page leaves behind
    await app.db.replayJob.update({
      where: { merchantId_id: { merchantId, id: started.id } },
      data: { state: 'running', startedAt: new Date(Date.now() - 600_000), heartbeatAt: new Date(Date.now() - 600_000), ordersRead: 5 },
    });
    const { program_replay_job: job } = await admin.ok(STATUS, { id: started.id });
    expect(job).toMatchObject({ state: 'failed', orders_read: 5, report: null, error: { code: 'internal_error' } });
    expect(await admin.fails(CANCEL, { id: started.id })).toMatchObject({ code: 'conflict' });
  });

  it('refuses bad input at start with the codes program_replay answers, recording nothing', async () => {
    const { merchantId, admin, input } = await shop();
    const bad = [
      {
        ...input,
        draft: {
          earning_rules: [
            { id: '00000000-0000-4000-8000-000000000000', name: 'X', campaign_type: 'purchase', earning_rule: { type: 'fixed', value: 1 } },
          ],
        },
      },
      { ...input, draft: { earning_rules: [{ name: '', campaign_type: 'purchase' }], tiers: [{ name: 'X', position: -1, threshold: 0 }] } },
      { ...input, draft: { rewards: [] } },
      { ...input, from: input.to, to: input.from },
      { ...input, from: '2020-01-01' },
      { ...input, top: 5000 },
    ];
    for (const variables of bad) {
      const refused = await admin.fails(START, variables);
      expect(refused.code).toMatch(/^(validation_error|not_found)$/);
      expect(refused).toEqual(await admin.fails(REPLAY, variables));
    }
    expect(await app.db.replayJob.count({ where: { merchantId } })).toBe(0);
    expect(await admin.fails(STATUS, { id: '00000000-0000-4000-8000-000000000000' })).toMatchObject({ code: 'not_found' });
    expect(await admin.fails(STATUS, { id: 'not-a-uuid' })).toMatchObject({ code: 'not_found' });
  });

  it("is another merchant's to see, and is forgotten a day after it started", async () => {
    const { admin, input } = await shop();
    const other = await shop();
    const { start_program_replay: started } = await admin.ok(START, input);
    expect(await other.admin.fails(STATUS, { id: started.id })).toMatchObject({ code: 'not_found' });
    expect(await other.admin.fails(CANCEL, { id: started.id })).toMatchObject({ code: 'not_found' });
    await pruneReplayJobs(app.db, new Date(Date.now() + 3_600_000));
    await admin.ok(STATUS, { id: started.id });
    expect(await pruneReplayJobs(app.db, new Date(Date.now() + 25 * 3_600_000))).toBeGreaterThan(0);
    expect(await admin.fails(STATUS, { id: started.id })).toMatchObject({ code: 'not_found' });
  });
  it("are listed newest first, paged, each with its state, times and draft's sections, a done one's report read when asked", async () => {
    const { merchantId, admin, input } = await shop();
    const other = await shop();
    const LIST = `query ($page: Int, $per_page: Int) { program_replay_jobs(page: $page, per_page: $per_page) {
      data { id state from to progress created_at finished_at draft_sections { section items } report { issued { actual draft } } }
      meta { pagination { current_page per_page total last_page has_more } } } }`;
    const start = async (variables: Record<string, unknown>) => (await admin.ok(START, variables)).start_program_replay.id as string;
    const done = await start(input);
    expect(await runReplayJob(app.db, merchantId, done)).toBe('done');
    const cancelled = await start({ ...input, draft: { booster_campaigns: [] } });
    await admin.ok(CANCEL, { id: cancelled });
    const queued = await start({ ...input, draft: {} });

    const { program_replay_jobs: first } = await admin.ok(LIST, { per_page: 2 });
    expect(first.meta.pagination).toEqual({ current_page: 1, per_page: 2, total: 3, last_page: 2, has_more: true });
    expect(first.data.map((j: { id: string }) => j.id)).toEqual([queued, cancelled]);
    expect(first.data[0]).toMatchObject({ state: 'queued', progress: 0, finished_at: null, draft_sections: [], report: null });
    expect(first.data[1]).toMatchObject({ state: 'cancelled', draft_sections: [{ section: 'booster_campaigns', items: 0 }], report: null });
    expect(first.data[1].finished_at).not.toBeNull();
    const { program_replay_jobs: second } = await admin.ok(LIST, { page: 2, per_page: 2 });
    expect(second.data).toHaveLength(1);
    expect(second.data[0]).toMatchObject({
      id: done,
      state: 'done',
      progress: 1,
      from: input.from,
      to: input.to,
      draft_sections: [
        { section: 'earning_rules', items: 1 },
        { section: 'tiers', items: 2 },
      ],
    });
    const { program_replay_job: alone } = await admin.ok(STATUS, { id: done });
    expect(second.data[0].report).toEqual({ issued: { actual: alone.report.issued.actual, draft: alone.report.issued.draft } });
    expect(second.data[0].report.issued.draft).toBeGreaterThan(0);
    // another merchant's list holds none of them; a bad page is refused
    expect((await other.admin.ok(LIST, {})).program_replay_jobs.meta.pagination.total).toBe(0);
    expect(await admin.fails(LIST, { per_page: 0 })).toMatchObject({ code: 'validation_error' });
  });

  it('runs on the workers: queued, then done with the report program_replay gives for the same input', async () => {
    jobs = await workers(app);
    const { admin, input } = await shop();
    const { start_program_replay: started } = await admin.ok(START, input);
    expect(started).toMatchObject({
      state: 'queued',
      from: input.from,
      to: input.to,
      orders_read: 0,
      progress: 0,
      report: null,
      error: null,
    });
    const done = await eventually(async () => {
      const { program_replay_job: job } = await admin.ok(STATUS, { id: started.id });
      expect(job.state).toBe('done');
      return job;
    });
    expect(done).toMatchObject({ orders_read: ORDERS, progress: 1, error: null });
    expect(done.started_at).not.toBeNull();
    expect(done.finished_at).not.toBeNull();
    const { program_replay: direct } = await admin.ok(REPLAY, input);
    // a draft's new tiers get new ids in each replay: compared by name
    expect(byTierName(done.report)).toEqual(byTierName(direct));
    // the draft changed something: the comparison is not of two empty reports
    expect(direct.issued.difference).toBeGreaterThan(0);
    expect(direct.tier_changes.customers).toBeGreaterThan(0);
    // over: it cannot be cancelled any more
    expect(await admin.fails(CANCEL, { id: started.id })).toMatchObject({ code: 'conflict' });
  });
});
