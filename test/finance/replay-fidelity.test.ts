// What-if replay, fidelity: a replay under the unchanged program reproduces the recorded ledger
// order by order. The history is made by the engine itself (recordOrder, refundOrder, the
// approval of pending points and the tier re-judgement at New Year), each at its moment of a
// past year and a half: the clock is faked to that moment (the embedded database reads the same
// clock; on PostgreSQL the rows it stamps with its own are stamped with the faked one), as a
// live service would have written them. So
// limit periods, boosters' and rules' dates, calendar-year tiers, the return window and refunds
// inside and after it all decide points.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { recordOrder, refundOrder } from '../../src/domain/events/orders.js';
import { type ReplayOrder, replayProgram } from '../../src/domain/finance/replay.js';
import { approvePendingPoints } from '../../src/domain/ledger/pending.js';
import { localDate } from '../../src/domain/shared/calendar.js';
import { rejudgeTiers } from '../../src/domain/tiers/rejudge.js';
import { adminOps } from '../admin-ops.js';
import { newCustomer, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
// the clock is faked before the embedded database starts: it reads the process's clock, so it
// only ever sees time move forward (back from today to 2024 in mid-run, its alarms were set
// years ahead and fired every millisecond, with a warning each)
beforeAll(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(FIRST - DAY);
  app = await testApp();
});
afterAll(() => {
  vi.useRealTimers();
});

// 2,000 orders: half of them from twenty customers, who reach the tiers and the limits (1,000
// leave a rule unused, which the test refuses below); a bigger history (REPLAY_TEST_ORDERS) adds
// minutes, not cases (bench/replay.ts measures a million)
const ORDERS = Number(process.env.REPLAY_TEST_ORDERS ?? 2_000);
const CUSTOMERS = 250;
const ZONE = 'America/New_York';
const FIRST = Date.parse('2024-10-01T04:00:00Z');
const LAST = Date.parse('2026-03-31T04:00:00Z');
const DAY = 86_400_000;

/** A seeded generator: the same history every run. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// minutes of history, on the embedded database only: it shares the faked clock (a shared
// database stamps rows with its own, and the files running beside it write meanwhile)
describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))('a replay under the unchanged program', () => {
  it(`reproduces every recorded order of ${ORDERS.toLocaleString('en-US')}, with boosters, limits, tiers, a return window and refunds`, {
    timeout: 900_000,
  }, async () => {
    const merchant = await newMerchant(app, 'replay-fidelity');
    const merchantId = merchant.id;
    await app.db.merchant.update({ where: { id: merchantId }, data: { timezone: ZONE, pointsPendingDays: 7 } });
    const admin = adminOps(app, merchant.admin_token);
    const tier = async (input: Record<string, unknown>) =>
      (await admin.ok(`mutation($input: TierInput!) { create_tier(input: $input) { id } }`, { input })).create_tier.id as string;
    await tier({ name: 'Member', position: 0, threshold: 0, is_default: true });
    const silver = await tier({ name: 'Silver', position: 1, threshold: 600, window: 'calendar_year', earn_multiplier: 1.25 });
    const gold = await tier({ name: 'Gold', position: 2, threshold: 4000, qualification: 'amount_spent', earn_multiplier: 1.5 });
    const rule = (input: Record<string, unknown>) =>
      admin.ok(`mutation($input: EarningRuleInput!) { create_earning_rule(input: $input) { id } }`, {
        input: { campaign_type: 'purchase', ...input },
      });
    await rule({ name: 'A point a dollar', earning_rule: { type: 'variable', value: 1, per_amount: 1 } });
    await rule({
      name: 'Big basket',
      earning_rule: { type: 'fixed', value: 50 },
      conditions: { min_order_subtotal: 150, limit: { count: 2, period: 'week' } },
    });
    await rule({
      name: 'Silver and Gold extra',
      earning_rule: { type: 'variable', value: 3, per_amount: 10 },
      conditions: { tier_ids: [silver, gold], max_points_per_order: 40, limit: { count: 3, period: 'month' } },
    });
    await rule({
      name: 'Spring',
      earning_rule: { type: 'fixed', value: 25 },
      conditions: { starts_at: '2025-03-01', ends_at: '2025-04-15' },
    });
    await rule({
      name: 'First of the year',
      earning_rule: { type: 'fixed', value: 100 },
      conditions: { limit: { count: 1, period: 'year' } },
    });
    const booster = (input: Record<string, unknown>) =>
      admin.ok(`mutation($input: BoosterCampaignInput!) { create_booster_campaign(input: $input) { id } }`, {
        input: { campaign_types: ['purchase'], ...input },
      });
    await booster({ name: 'Double June', multiplier: 2, starts_at: '2025-06-01T04:00:00Z', ends_at: '2025-06-15T04:00:00Z' });
    await booster({ name: 'Black Friday', multiplier: 1.5, starts_at: '2025-11-20T05:00:00Z', ends_at: '2025-12-02T05:00:00Z' });
    await booster({ name: 'Black Friday weekend', multiplier: 1.25, starts_at: '2025-11-28T05:00:00Z', ends_at: '2025-11-30T05:00:00Z' });

    const rnd = random(35);
    const customers = [];
    for (let i = 0; i < CUSTOMERS; i++) customers.push(await newCustomer(app, merchantId, { customerId: `c${i}` }));
    await app.db.customer.update({ where: { merchantId_platformId: { merchantId, platformId: 'c7' } }, data: { status: 'excluded' } });

    // the history: orders at distinct past instants, a refund of some of them days later
    type Step =
      | { at: number; kind: 'order'; id: string; customer: string; subtotal: number }
      | { at: number; kind: 'refund'; id: string; amount: number | null };
    const steps: Step[] = [];
    const instants = new Set<number>();
    for (let i = 0; i < ORDERS; i++) {
      let at = FIRST + Math.floor((rnd() * (LAST - FIRST)) / 1000) * 1000;
      while (instants.has(at)) at += 1000;
      instants.add(at);
      // a few customers buy often: they reach the tiers and the limits
      const c = rnd() < 0.5 ? Math.floor(rnd() * 20) : Math.floor(rnd() * CUSTOMERS);
      const subtotal = Math.round((5 + rnd() * rnd() * 400) * 100) / 100;
      steps.push({ at, kind: 'order', id: `o${i}`, customer: `c${c}`, subtotal });
      if (rnd() < 0.1) {
        let refundAt = at + Math.floor((rnd() * 20 * DAY) / 1000) * 1000 + 500;
        while (instants.has(refundAt)) refundAt += 1000;
        instants.add(refundAt);
        if (refundAt < LAST)
          steps.push({ at: refundAt, kind: 'refund', id: `o${i}`, amount: rnd() < 0.5 ? null : Math.round(subtotal * 40) / 100 });
      }
    }
    steps.sort((a, b) => a.at - b.at);

    // the embedded database's clock is the faked one; PostgreSQL's is its own: what it stamps
    // with it is stamped with the faked one, after the day's jobs every row they wrote (any
    // customer's), after an order or a refund only its customer's rows and its order, through
    // their indexes, so a step costs the same late in the history as early
    const [{ now: databaseNow } = { now: new Date() }] = await app.db.$queryRaw<{ now: Date }[]>`SELECT now()`;
    const ownClock = Math.abs(databaseNow.getTime() - Date.now()) > DAY;
    const since = new Date(databaseNow.getTime() - 60_000).toISOString();
    const stampDay = async (at: number) =>
      ownClock &&
      app.db.$executeRaw`
      WITH t AS (UPDATE points_transactions SET created_at = ${new Date(at).toISOString()}::timestamptz
                  WHERE merchant_id = ${merchantId}::uuid AND created_at > ${since}::timestamptz RETURNING 1),
           a AS (UPDATE activities SET created_at = ${new Date(at).toISOString()}::timestamptz, occurred_at = ${new Date(at).toISOString()}::timestamptz
                  WHERE merchant_id = ${merchantId}::uuid AND created_at > ${since}::timestamptz RETURNING 1)
      SELECT (SELECT count(*) FROM t) + (SELECT count(*) FROM a)`;
    const stampStep = async (at: number, customerId: string, orderId: string) =>
      ownClock &&
      app.db.$executeRaw`
      WITH t AS (UPDATE points_transactions SET created_at = ${new Date(at).toISOString()}::timestamptz
                  WHERE merchant_id = ${merchantId}::uuid AND customer_id = ${customerId}::uuid AND created_at > ${since}::timestamptz RETURNING 1),
           a AS (UPDATE activities SET created_at = ${new Date(at).toISOString()}::timestamptz, occurred_at = ${new Date(at).toISOString()}::timestamptz
                  WHERE merchant_id = ${merchantId}::uuid AND customer_id = ${customerId}::uuid AND created_at > ${since}::timestamptz RETURNING 1),
           o AS (UPDATE orders SET created_at = LEAST(created_at, ${new Date(at).toISOString()}::timestamptz),
                                   refunded_at = CASE WHEN refunded_at > ${since}::timestamptz THEN ${new Date(at).toISOString()}::timestamptz ELSE refunded_at END
                  WHERE merchant_id = ${merchantId}::uuid AND platform_order_id = ${orderId} RETURNING 1)
      SELECT (SELECT count(*) FROM t) + (SELECT count(*) FROM a) + (SELECT count(*) FROM o)`;
    const customerIds = new Map(customers.map((c) => [c.platformId, c.id]));
    const customerOf = new Map(steps.flatMap((s) => (s.kind === 'order' ? [[s.id, customerIds.get(s.customer)!] as const] : [])));

    let day = '';
    let year = '';
    for (const step of steps) {
      const today = localDate(new Date(step.at), ZONE);
      if (today !== day) {
        // the day's jobs, just before its first event: approve what left the return window, and at New Year re-judge tiers
        day = today;
        const jobs = step.at - 500;
        vi.setSystemTime(jobs);
        await approvePendingPoints(app.db, new Date(jobs));
        if (today.slice(0, 4) !== year) {
          if (year) await rejudgeTiers(app.db, new Date(jobs), { merchantId });
          year = today.slice(0, 4);
        }
        await stampDay(jobs);
      }
      vi.setSystemTime(step.at);
      if (step.kind === 'order') {
        await recordOrder(app.db, merchantId, {
          order_id: step.id,
          customer_id: step.customer,
          subtotal: step.subtotal,
          created_at: new Date(step.at).toISOString(),
        });
      } else {
        await refundOrder(app.db, merchantId, { order_id: step.id, amount: step.amount });
      }
      await stampStep(step.at, customerOf.get(step.id)!, step.id);
    }

    const recorded = new Map(
      (await app.db.order.findMany({ where: { merchantId }, select: { platformOrderId: true, pointsAwarded: true } })).map((o) => [
        o.platformOrderId,
        o.pointsAwarded,
      ]),
    );
    expect(recorded.size).toBe(ORDERS);
    // the history exercises what it should: boosters, tier multipliers, limits, pending and refunds
    const replayedOrders: ReplayOrder[] = [];
    const report = await replayProgram(
      app.db,
      merchantId,
      { from: '2024-10-01', to: '2026-03-31', draft: {} },
      { onOrder: (o) => replayedOrders.push(o) },
    );
    expect(replayedOrders).toHaveLength(ORDERS);
    const mismatches = replayedOrders.filter((o) => o.replayed.points !== recorded.get(o.order_id));
    expect(mismatches.slice(0, 5)).toEqual([]);
    const sources = new Set(replayedOrders.flatMap((o) => o.replayed.breakdown.map((e) => `${e.source}:${e.name}`)));
    expect([...sources].sort()).toEqual(
      [
        'booster:Black Friday',
        'booster:Black Friday weekend',
        'booster:Double June',
        'earning_rule:A point a dollar',
        'earning_rule:Big basket',
        'earning_rule:First of the year',
        'earning_rule:Silver and Gold extra',
        'earning_rule:Spring',
        'tier:Gold',
        'tier:Silver',
      ].sort(),
    );
    expect(report.mismatched_orders).toBe(0);
    // the unchanged draft changes nothing
    expect(report.issued.replayed).toBe(report.issued.actual);
    expect(report.issued.draft).toBe(report.issued.actual);
    expect(report.tier_changes.customers).toBe(0);
    expect(report.customers_most_affected).toEqual([]);
    // and what was recorded is what the ledger credited, for every order no refund touched
    const credits = await app.db.$queryRaw<{ ref: string; points: number }[]>`
      SELECT t.reference_id AS ref, sum(t.points)::int AS points FROM points_transactions t
        JOIN orders o ON o.merchant_id = t.merchant_id AND o.platform_order_id = t.reference_id
       WHERE t.merchant_id = ${merchantId}::uuid AND t.reference_kind = 'order' AND t.type = 'credit'::"TransactionType"
         AND o.refunded_amount = 0
       GROUP BY t.reference_id`;
    expect(credits.length).toBeGreaterThan(ORDERS / 2);
    const byOrder = new Map(replayedOrders.map((o) => [o.order_id, o.replayed.points]));
    expect(credits.filter((c) => byOrder.get(c.ref) !== c.points)).toEqual([]);
    const voided = await app.db.activity.count({ where: { merchantId, status: 'voided' } });
    const clawedBack = await app.db.order.count({ where: { merchantId, pointsClawedBack: { gt: 0 } } });
    expect(voided).toBeGreaterThan(50);
    expect(clawedBack).toBeGreaterThan(50);
    expect(replayedOrders.filter((o) => o.tier_id === gold).length).toBeGreaterThan(100);
  });
});
