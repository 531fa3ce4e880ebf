// The points liability report (admin API): every movement in its category, periods cut at the
// merchant's local midnights (daylight-saving days and quarter-hour offsets included), each
// period's closing equal to the sum of every balance at its end, and the expiry schedule equal to
// what the expiry job then takes.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordActivity } from '../../src/domain/events/activities.js';
import { recordOrder, refundOrder } from '../../src/domain/events/orders.js';
import { foldLedgerBuckets } from '../../src/domain/finance/ledger-buckets.js';
import { expirePoints } from '../../src/domain/ledger/expiry.js';
import { adminOps } from '../admin-ops.js';
import { client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';
import { ledgerEntryAt } from './history.js';

let app: TestApp;
beforeAll(async () => {
  app = await testApp();
});

const DAY = 86_400_000;

const PERIOD = `label start end opening closing reversed redeemed expired manual_debits
  issued { orders engagement referrals manual import total }`;
const LIABILITY = `query ($from: Date!, $to: Date!, $grouping: LiabilityGrouping) {
  points_liability(from: $from, to: $to, grouping: $grouping) {
    timezone grouping from to periods { ${PERIOD} } total { ${PERIOD} } pending { points customers } } }`;
const BALANCES = `query ($at: DateTime, $after: ID, $per_page: Int) {
  points_liability_balances(at: $at, after: $after, per_page: $per_page) { at data { id customer_id points } next_after } }`;

interface Period {
  label: string;
  start: string;
  end: string;
  opening: number;
  closing: number;
  reversed: number;
  redeemed: number;
  expired: number;
  manual_debits: number;
  issued: Record<'orders' | 'engagement' | 'referrals' | 'manual' | 'import' | 'total', number>;
}

async function shop(label: string, timezone = 'UTC') {
  const merchant = await newMerchant(app, label);
  await app.db.merchant.update({ where: { id: merchant.id }, data: { timezone } });
  return { merchantId: merchant.id, admin: adminOps(app, merchant.admin_token), api: client(app, await newKey(app, merchant.id)) };
}

/** The sum of every balance at an instant, from the ledger's own rows. */
async function ledgerAt(merchantId: string, at: Date) {
  const [row] = await app.db.$queryRaw<{ points: bigint | null }[]>`
    SELECT sum(points) AS points FROM points_transactions WHERE merchant_id = ${merchantId}::uuid AND created_at < ${at}::timestamptz`;
  return Number(row?.points ?? 0);
}

async function balancesNow(merchantId: string) {
  const rows = await app.db.customer.aggregate({ where: { merchantId }, _sum: { pointsBalance: true } });
  return rows._sum.pointsBalance ?? 0;
}

/** Every page of the per-customer detail at an instant, summed. */
async function detailSum(admin: ReturnType<typeof adminOps>, at?: Date) {
  let total = 0;
  let after: string | null = null;
  do {
    const data = await admin.ok(BALANCES, { at: at?.toISOString(), after, per_page: 2 });
    const page = data.points_liability_balances;
    for (const b of page.data) total += b.points;
    after = page.next_after;
  } while (after);
  return total;
}

function expectChained(periods: Period[]) {
  for (const [i, p] of periods.entries()) {
    const removed = p.reversed + p.redeemed + p.expired + p.manual_debits;
    expect(p.closing, p.label).toBe(p.opening + p.issued.total - removed);
    expect(p.issued.total).toBe(p.issued.orders + p.issued.engagement + p.issued.referrals + p.issued.manual + p.issued.import);
    if (i > 0) {
      expect(p.opening, p.label).toBe(periods[i - 1]!.closing);
      expect(p.start).toBe(periods[i - 1]!.end);
    }
  }
}

describe('every movement in its category', () => {
  it('sorts what the engine writes, and closes on the sum of the balances', async () => {
    const { merchantId, admin, api } = await shop('liability');
    await app.db.earningRule.create({
      data: { merchantId, name: '1 per $1', campaignType: 'purchase', earningRule: { type: 'variable', value: 1, per_amount: 1 } },
    });
    await app.db.earningRule.create({
      data: { merchantId, name: 'Sign-up', campaignType: 'signup', earningRule: { type: 'fixed', value: 50 } },
    });
    const reward = await app.db.reward.create({
      data: { merchantId, name: '$5 off', rewardType: 'fixed_discount', pointsCost: 100, rewardRule: { discount_value: 5 } },
    });
    const ann = await newCustomer(app, merchantId, { points: 1000 }); // an import's opening balance
    const bob = await newCustomer(app, merchantId);

    await recordOrder(app.db, merchantId, { order_id: 'o-1', customer_id: bob.platformId, subtotal: 300 });
    await refundOrder(app.db, merchantId, { order_id: 'o-1', amount: 100 });
    await recordActivity(app.db, merchantId, { event_id: randomUUID(), customer_id: bob.platformId, campaign_type: 'signup' });
    expect(
      (await api.rest('POST', `/v1/customers/transactions?customer_id=${ann.platformId}`, { points: 25, description: 'Goodwill' })).status,
    ).toBe(201);
    expect(
      (await api.rest('POST', `/v1/customers/transactions?customer_id=${ann.platformId}`, { points: -40, description: 'Correction' }))
        .status,
    ).toBe(201);
    expect((await api.rest('POST', `/v1/customers/rewards/redeem?customer_id=${ann.platformId}`, { reward_id: reward.id })).status).toBe(
      201,
    );
    await ledgerEntryAt(app, merchantId, bob.id, 30, new Date(), 'referral');
    // ann inactive for 400 days: the expiry job takes her balance
    await app.db.customer.update({
      where: { merchantId_id: { merchantId, id: ann.id } },
      data: { lastActivityAt: new Date(Date.now() - 400 * DAY) },
    });
    await app.db.merchant.update({ where: { id: merchantId }, data: { pointsExpiryDays: 365 } });
    expect((await expirePoints(app.db, { merchantId })).points).toBe(885);

    const today = new Date().toISOString().slice(0, 10);
    const { points_liability: report } = await admin.ok(LIABILITY, { from: today, to: today, grouping: 'day' });
    expect(report).toMatchObject({ timezone: 'UTC', grouping: 'day', from: today, to: today });
    expect(report.periods).toHaveLength(1);
    expect(report.periods[0]).toEqual(report.total);
    expect(report.total).toMatchObject({
      opening: 0,
      issued: { orders: 300, engagement: 50, referrals: 30, manual: 25, import: 1000, total: 1405 },
      reversed: 100,
      redeemed: 100,
      expired: 885,
      manual_debits: 40,
      closing: 280,
    });
    expect(report.total.closing).toBe(await balancesNow(merchantId));
    expect(await detailSum(admin)).toBe(280);
    expect(report.pending).toEqual({ points: 0, customers: 0 });
  });

  it('shows points still in their return window apart, not as outstanding', async () => {
    const { merchantId, admin } = await shop('pending');
    await app.db.merchant.update({ where: { id: merchantId }, data: { pointsPendingDays: 14 } });
    await app.db.earningRule.create({
      data: { merchantId, name: '1 per $1', campaignType: 'purchase', earningRule: { type: 'variable', value: 1, per_amount: 1 } },
    });
    const cid = (await newCustomer(app, merchantId)).platformId;
    expect((await recordOrder(app.db, merchantId, { order_id: 'p-1', customer_id: cid, subtotal: 120 })).points_pending).toBe(120);
    const today = new Date().toISOString().slice(0, 10);
    const { points_liability: report } = await admin.ok(LIABILITY, { from: today, to: today });
    expect(report.total.closing).toBe(0);
    expect(report.pending).toEqual({ points: 120, customers: 1 });
  });
});

describe('periods of the local calendar', () => {
  // New York springs forward on 2026-03-08: that local day is 23 hours long
  const NY = 'America/New_York';
  const history: [string, number][] = [
    ['2026-02-27T12:00:00.000Z', 500], // before the range: the opening
    ['2026-03-07T04:59:59.999Z', 10], // 23:59:59.999 on March 6, local
    ['2026-03-07T05:00:00.000Z', 20], // midnight starting March 7
    ['2026-03-08T04:59:59.999Z', 40], // the last instant of March 7
    ['2026-03-08T05:00:00.000Z', -15], // midnight starting March 8 (EST)
    ['2026-03-09T03:59:59.999Z', 80], // the last instant of March 8 (EDT now)
    ['2026-03-09T04:00:00.000Z', -25], // midnight starting March 9
    ['2026-04-01T03:59:59.999Z', 7], // March 31, 23:59:59.999 local
    ['2026-04-01T04:00:00.000Z', 9], // April 1: the next quarter
  ];

  let merchantId: string;
  let admin: ReturnType<typeof adminOps>;
  beforeAll(async () => {
    ({ merchantId, admin } = await shop('calendar', NY));
    const customer = await newCustomer(app, merchantId);
    for (const [at, points] of history) await ledgerEntryAt(app, merchantId, customer.id, points, new Date(at));
  });

  const days = async (from: string, to: string) => (await admin.ok(LIABILITY, { from, to, grouping: 'day' })).points_liability;

  it('cuts days at local midnight, 23-hour days included, and chains them', async () => {
    const report = await days('2026-03-06', '2026-03-09');
    expect(report.periods.map((p: Period) => [p.label, p.start, p.end, p.opening, p.issued.total - p.manual_debits, p.closing])).toEqual([
      ['2026-03-06', '2026-03-06T05:00:00.000Z', '2026-03-07T05:00:00.000Z', 500, 10, 510],
      ['2026-03-07', '2026-03-07T05:00:00.000Z', '2026-03-08T05:00:00.000Z', 510, 60, 570],
      ['2026-03-08', '2026-03-08T05:00:00.000Z', '2026-03-09T04:00:00.000Z', 570, 65, 635],
      ['2026-03-09', '2026-03-09T04:00:00.000Z', '2026-03-10T04:00:00.000Z', 635, -25, 610],
    ]);
    expectChained(report.periods);
    expect(report.total).toMatchObject({ opening: 500, closing: 610, manual_debits: 40, issued: { manual: 150 } });
  });

  it("closes each period on the sum of every balance at its end, and the customers' detail sums to it", async () => {
    for (const grouping of ['day', 'week', 'month', 'quarter']) {
      const report = (await admin.ok(LIABILITY, { from: '2026-02-20', to: '2026-04-05', grouping })).points_liability;
      expectChained(report.periods);
      expect(report.periods[0].start).toBe('2026-02-20T05:00:00.000Z');
      expect(report.periods.at(-1).end).toBe('2026-04-06T04:00:00.000Z');
      for (const p of report.periods) {
        expect(p.closing, `${grouping} ${p.label}`).toBe(await ledgerAt(merchantId, new Date(p.end)));
      }
      expect(report.total.closing).toBe(626);
    }
    expect(await detailSum(admin, new Date('2026-03-08T05:00:00.000Z'))).toBe(570);
    expect(await detailSum(admin)).toBe(await balancesNow(merchantId));
  });

  it('starts quarters and months at their local first day', async () => {
    const report = (await admin.ok(LIABILITY, { from: '2026-01-01', to: '2026-06-30', grouping: 'quarter' })).points_liability;
    expect(report.periods.map((p: Period) => [p.label, p.start, p.closing])).toEqual([
      ['2026-01-01', '2026-01-01T05:00:00.000Z', 617],
      ['2026-04-01', '2026-04-01T04:00:00.000Z', 626],
    ]);
  });

  it('cuts at a quarter-hour offset: Kathmandu is UTC+05:45', async () => {
    const { merchantId: kid, admin: kadmin } = await shop('kathmandu', 'Asia/Kathmandu');
    const customer = await newCustomer(app, kid);
    await ledgerEntryAt(app, kid, customer.id, 3, new Date('2026-05-01T18:14:59.999Z')); // May 1, 23:59:59.999 local
    await ledgerEntryAt(app, kid, customer.id, 4, new Date('2026-05-01T18:15:00.000Z')); // May 2, midnight
    const report = (await kadmin.ok(LIABILITY, { from: '2026-05-01', to: '2026-05-02', grouping: 'day' })).points_liability;
    expect(report.periods.map((p: Period) => [p.label, p.issued.total, p.closing])).toEqual([
      ['2026-05-01', 3, 3],
      ['2026-05-02', 4, 7],
    ]);
  });

  it('reads the same sums before and after the buckets are folded, even two folds at once', async () => {
    const before = await days('2026-02-01', '2026-04-30');
    const rows = () => app.db.ledgerBucket.count({ where: { merchantId } });
    const unfolded = await rows();
    await ledgerEntryAt(app, merchantId, (await newCustomer(app, merchantId)).id, 1, new Date('2026-03-07T05:00:00.001Z'));
    await Promise.all([foldLedgerBuckets(app.db, { since: null }), foldLedgerBuckets(app.db, { since: null })]);
    expect(await rows()).toBeLessThan(unfolded + 1);
    const after = await days('2026-02-01', '2026-04-30');
    const march7 = (r: typeof before) => r.periods.find((p: Period) => p.label === '2026-03-07');
    expect(march7(after).issued.total).toBe(march7(before).issued.total + 1);
    expect(after.total.closing).toBe(before.total.closing + 1);
    expectChained(after.periods);
  });
});

describe('the expiry schedule', () => {
  it('shows what the expiry job takes at the end of each window', async () => {
    const { merchantId, admin } = await shop('lapsing', 'Europe/Paris');
    await app.db.merchant.update({ where: { id: merchantId }, data: { pointsExpiryDays: 90 } });
    const now = Date.now();
    // last active 70, 40, 10 and 0 days ago: they lapse in about 20, 50, 80 and 91 days
    for (const [ago, points] of [
      [70, 100],
      [40, 200],
      [10, 400],
      [0, 800],
    ] as const) {
      const c = await newCustomer(app, merchantId, { points });
      await app.db.customer.update({
        where: { merchantId_id: { merchantId, id: c.id } },
        data: { lastActivityAt: new Date(now - ago * DAY) },
      });
    }
    const { points_expiry_schedule: schedule } = await admin.ok(
      '{ points_expiry_schedule { expiry_days windows { days until points customers } } }',
    );
    expect(schedule.expiry_days).toBe(90);
    expect(schedule.windows.map((w: { days: number; points: number; customers: number }) => [w.days, w.points, w.customers])).toEqual([
      [30, 100, 1],
      [60, 300, 2],
      [90, 700, 3],
    ]);
    let taken = 0;
    for (const w of schedule.windows) {
      taken += (await expirePoints(app.db, { merchantId, now: new Date(w.until) })).points;
      expect(taken).toBe(w.points);
    }
  });

  it('is empty when points never expire', async () => {
    const { admin } = await shop('forever');
    const { points_expiry_schedule: schedule } = await admin.ok(
      '{ points_expiry_schedule { expiry_days windows { days points customers } } }',
    );
    expect(schedule).toEqual({ expiry_days: null, windows: [30, 60, 90].map((days) => ({ days, points: 0, customers: 0 })) });
  });
});

describe('bad input', () => {
  it('refuses it with validation_error and a field', async () => {
    const { admin } = await shop('strict');
    expect(await admin.fails(LIABILITY, { from: '2026-05-02', to: '2026-05-01' })).toMatchObject({
      code: 'validation_error',
      details: { to: [expect.any(String)] },
    });
    expect(await admin.fails(LIABILITY, { from: '2020-01-01', to: '2026-01-01', grouping: 'day' })).toMatchObject({
      code: 'validation_error',
      details: { to: [expect.any(String)] },
    });
    expect(await admin.fails(BALANCES, { per_page: 0 })).toMatchObject({
      code: 'validation_error',
      details: { per_page: [expect.any(String)] },
    });
    expect(await admin.fails(BALANCES, { after: 'not-a-cursor' })).toMatchObject({
      code: 'validation_error',
      details: { after: [expect.any(String)] },
    });
  });
});
