// Pending points: with the merchant's points_pending_days, the points an
// order earns are held (a pending activity, points_pending on the balance, not spendable, no
// ledger transaction) until approvePendingPoints credits them through the ledger; a refund
// before that voids them. The balance always equals the sum of its transactions.
import { beforeAll, describe, expect, it } from 'vitest';
import { approvePendingPoints } from '../../src/domain/ledger/pending.js';
import { importProgram } from '../../src/domain/program-import/program-import.js';
import { schedules } from '../../src/jobs/schedules.js';
import { adminOps, RECORD_ORDER, REFUND_ORDER } from '../admin-ops.js';
import { client, newCustomer, newKey, newMerchant, type TestApp, testApp, testConfig } from '../harness.js';

let app: TestApp;
beforeAll(async () => {
  app = await testApp();
});

const DAY = 86_400_000;
const inDays = (days: number) => new Date(Date.now() + days * DAY);
const SETTINGS = `mutation ($days: Int) { update_merchant_settings(points_pending_days: $days) { points_pending_days } }`;

/** A merchant with a 14-day window, 1 point per $1, and Bronze (default) / Silver (100 earned). */
async function shop(days = 14) {
  const merchant = await newMerchant(app, 'pending');
  const admin = adminOps(app, merchant.admin_token);
  const api = client(app, await newKey(app, merchant.id));
  expect((await admin.ok(SETTINGS, { days })).update_merchant_settings).toEqual({ points_pending_days: days });
  await app.db.earningRule.create({
    data: {
      merchantId: merchant.id,
      name: '1 per $1',
      campaignType: 'purchase',
      earningRule: { type: 'variable', value: 1, per_amount: 1 },
    },
  });
  await app.db.tier.create({ data: { merchantId: merchant.id, name: 'Bronze', position: 0, threshold: 0, isDefault: true } });
  await app.db.tier.create({ data: { merchantId: merchant.id, name: 'Silver', position: 1, threshold: 100 } });
  const order = async (customer_id: string, order_id: string, subtotal: number) =>
    (await admin.ok(RECORD_ORDER, { input: { order_id, customer_id, subtotal } })).record_order;
  const refund = async (order_id: string, amount?: number, event_id?: string) =>
    (await admin.ok(REFUND_ORDER, { input: { order_id, amount, event_id } })).refund_order;
  const balance = async (customerId: string) =>
    (await api.rest('GET', `/v1/customers/balance?customer_id=${customerId}`)).body.data as {
      points_balance: number;
      points_earned: number;
      points_pending: number;
    };
  const activities = async (customerId: string) =>
    (await api.rest('GET', `/v1/customers/activities?customer_id=${customerId}&per_page=100`)).body.data as {
      type: string;
      status: string;
      points_change: number;
      balance_after: number | null;
      reference: { kind: string; id: string } | null;
    }[];
  const transactions = async (customerId: string) =>
    (await api.rest('GET', `/v1/customers/transactions?customer_id=${customerId}&per_page=100`)).body.data as {
      points: number;
      source: string;
    }[];
  /** The balance equals the sum of its transactions, and is never negative. */
  const consistent = async (customer: { id: string; platformId: string }) => {
    const sum = (await app.db.pointsTransaction.aggregate({ where: { customerId: customer.id }, _sum: { points: true } }))._sum.points ?? 0;
    const { points_balance } = await balance(customer.platformId);
    expect(points_balance).toBe(sum);
    expect(points_balance).toBeGreaterThanOrEqual(0);
    return points_balance;
  };
  return { merchant, admin, api, order, refund, balance, activities, transactions, consistent };
}

/** approvePendingPoints for this test's customers only: other files' merchants share the database. */
async function approve(now: Date, customerIds: string[]) {
  const report = await approvePendingPoints(app.db, now);
  const pending = await app.db.activity.count({ where: { customerId: { in: customerIds }, status: 'pending' } });
  return { report, pending };
}

describe('the points_pending_days setting', () => {
  it('is 0 by default and set by the admin API (0 to 365) and the import', async () => {
    const merchant = await newMerchant(app, 'pending-setting');
    const admin = adminOps(app, merchant.admin_token);
    expect((await admin.ok('{ merchant { points_pending_days } }')).merchant.points_pending_days).toBe(0);
    expect((await admin.fails(SETTINGS, { days: -1 })).code).toBe('validation_error');
    expect((await admin.fails(SETTINGS, { days: 366 })).code).toBe('validation_error');
    expect((await admin.fails(SETTINGS, { days: null })).code).toBe('validation_error');
    expect((await admin.ok(SETTINGS, { days: 30 })).update_merchant_settings.points_pending_days).toBe(30);

    expect(await importProgram(app.db, merchant.id, { settings: { points_pending_days: 7 } })).toMatchObject({ settings: true });
    expect((await admin.ok('{ merchant { points_pending_days } }')).merchant.points_pending_days).toBe(7);
    await expect(importProgram(app.db, merchant.id, { settings: { points_pending_days: 'week' } })).rejects.toMatchObject({
      code: 'validation_error',
      details: { 'settings.points_pending_days': expect.any(Array) },
    });
    await expect(importProgram(app.db, merchant.id, { settings: { pending: 1 } })).rejects.toMatchObject({
      details: { 'settings.pending': ['is not a known field'] },
    });
  });
});

describe('pending points', () => {
  it('holds an order’s points: pending activity, points_pending, not spendable, no transaction', async () => {
    const s = await shop();
    const c = await newCustomer(app, s.merchant.id, { points: 10 });
    const recorded = await s.order(c.platformId, 'p-1', 120);
    expect(recorded).toMatchObject({ points_awarded: 120, points_pending: 120, transaction_id: null, replayed: false });
    expect(await s.order(c.platformId, 'p-1', 120)).toMatchObject({ points_pending: 120, replayed: true });
    expect(await s.balance(c.platformId)).toMatchObject({ points_balance: 10, points_earned: 10, points_pending: 120 });
    const held = (await s.activities(c.platformId)).find((a) => a.type === 'purchase');
    expect(held).toMatchObject({
      type: 'purchase',
      status: 'pending',
      points_change: 120,
      balance_after: null,
      reference: { kind: 'order', id: 'p-1' },
    });
    expect(await s.transactions(c.platformId)).toHaveLength(1); // the opening balance only
    // not spendable
    const debit = await s.api.rest('POST', `/v1/customers/transactions?customer_id=${c.platformId}`, { points: -50, description: 'x' });
    expect(debit.body.error.code).toBe('adjustment_failed');
    // not counted for the tier yet
    const tier = await s.api.rest('GET', `/v1/customers/tiers?customer_id=${c.platformId}`);
    expect(tier.body.data.current_tier.name).toBe('Bronze');
    await s.consistent(c);
  });

  it('is credited through the ledger once the window has passed, once, and then counts for the tier', async () => {
    const s = await shop();
    const c = await newCustomer(app, s.merchant.id);
    await s.order(c.platformId, 'a-1', 150);
    const credited = () => app.db.outboxEvent.findMany({ where: { merchantId: s.merchant.id, type: 'points.credited' } });
    expect(await credited()).toEqual([]); // held points are no ledger row, so no points event
    expect((await approve(inDays(13), [c.id])).pending).toBe(1); // inside the window: still pending
    expect(await s.balance(c.platformId)).toMatchObject({ points_balance: 0, points_pending: 150 });

    const { report, pending } = await approve(inDays(15), [c.id]);
    expect(report.approved).toBeGreaterThanOrEqual(1);
    expect(pending).toBe(0);
    expect(await s.balance(c.platformId)).toMatchObject({ points_balance: 150, points_earned: 150, points_pending: 0 });
    const log = await s.activities(c.platformId);
    expect(log.filter((a) => a.type === 'purchase')).toEqual([
      expect.objectContaining({ status: 'approved', points_change: 150, balance_after: 150, reference: { kind: 'order', id: 'a-1' } }),
    ]);
    expect(await s.transactions(c.platformId)).toEqual([expect.objectContaining({ points: 150, source: 'earning_rule' })]);
    // the approval is a ledger row: its event is in the outbox with it
    expect((await credited()).map((e) => e.payload as { points: number; reference: unknown })).toEqual([
      expect.objectContaining({ points: 150, reference: { kind: 'order', id: 'a-1' } }),
    ]);
    expect(log.some((a) => a.type === 'tier_change')).toBe(true);
    const tier = await s.api.rest('GET', `/v1/customers/tiers?customer_id=${c.platformId}`);
    expect(tier.body.data.current_tier.name).toBe('Silver');

    // again: nothing more
    await approve(inDays(30), [c.id]);
    expect(await s.transactions(c.platformId)).toHaveLength(1);
    expect(await s.consistent(c)).toBe(150);
  });

  it('is voided by a refund inside the window, instead of clawed back', async () => {
    const s = await shop();
    const c = await newCustomer(app, s.merchant.id, { points: 40 });
    await s.order(c.platformId, 'v-1', 100);
    const refund = await s.refund('v-1');
    expect(refund).toMatchObject({
      points_to_claw_back: 100,
      points_voided: 100,
      points_clawed_back: 0,
      shortfall: 0,
      transaction_id: null,
    });
    expect(await s.balance(c.platformId)).toMatchObject({ points_balance: 40, points_pending: 0 });
    expect((await s.activities(c.platformId)).find((a) => a.type === 'purchase')).toMatchObject({ status: 'voided', points_change: 100 });
    await approve(inDays(15), [c.id]);
    expect(await s.consistent(c)).toBe(40);
    expect(await s.transactions(c.platformId)).toHaveLength(1);
  });

  it('keeps the rest pending after a partial refund; a refund after approval claws back', async () => {
    const s = await shop();
    const c = await newCustomer(app, s.merchant.id);
    await s.order(c.platformId, 'part', 100);
    expect(await s.refund('part', 30, 'part-1')).toMatchObject({ points_voided: 30, points_clawed_back: 0 });
    expect(await s.balance(c.platformId)).toMatchObject({ points_balance: 0, points_pending: 70 });
    const statuses = (await s.activities(c.platformId)).map((a) => [a.status, a.points_change]);
    expect(statuses).toEqual(
      expect.arrayContaining([
        ['voided', 100],
        ['pending', 70],
      ]),
    );

    await approve(inDays(15), [c.id]);
    expect(await s.balance(c.platformId)).toMatchObject({ points_balance: 70, points_pending: 0 });
    expect(await s.refund('part', 50, 'part-2')).toMatchObject({ points_voided: 0, points_clawed_back: 50 });
    expect(await s.consistent(c)).toBe(20);
  });

  it('with 0 days credits at once, as before; turning the window off lets the next run approve what is pending', async () => {
    const s = await shop(0);
    const c = await newCustomer(app, s.merchant.id);
    expect(await s.order(c.platformId, 'now', 25)).toMatchObject({ points_pending: 0, transaction_id: expect.any(String) });
    expect(await s.balance(c.platformId)).toMatchObject({ points_balance: 25, points_pending: 0 });

    await s.admin.ok(SETTINGS, { days: 10 });
    await s.order(c.platformId, 'held', 5);
    await s.admin.ok(SETTINGS, { days: 0 });
    await approve(new Date(), [c.id]);
    expect(await s.balance(c.platformId)).toMatchObject({ points_balance: 30, points_pending: 0 });
  });
});

describe('the scheduled approval', () => {
  it('is a job of the registry the workers run (hourly, PENDING_POINTS_CRON): it credits what is due', async () => {
    const job = schedules.find((j) => j.name === 'pending-points-approval')!;
    const config = testConfig();
    expect(job.cron(config)).toBe(config.PENDING_POINTS_CRON);
    const s = await shop(1);
    const c = await newCustomer(app, s.merchant.id);
    await s.order(c.platformId, 'due', 12);
    await s.order(c.platformId, 'not-yet', 30);
    // recorded two days ago: past the 1-day window
    await app.db.activity.updateMany({
      where: { customerId: c.id, referenceId: 'due' },
      data: { createdAt: new Date(Date.now() - 2 * DAY), occurredAt: new Date(Date.now() - 2 * DAY) },
    });
    await job.run({ db: app.db, config });
    expect(await s.balance(c.platformId)).toMatchObject({ points_balance: 12, points_pending: 30 });
  });
});

describe('pending points under concurrency', () => {
  it('settles each order once when approval races refunds: credited then clawed back, or voided', async () => {
    const s = await shop();
    const customers = await Promise.all([0, 1, 2].map(() => newCustomer(app, s.merchant.id)));
    const orders = customers.flatMap((c, i) => [0, 1, 2, 3].map((j) => ({ c, id: `race-${i}-${j}`, subtotal: 10 + 7 * j })));
    for (const o of orders) await s.order(o.c.platformId, o.id, o.subtotal);
    const [refunds] = await Promise.all([
      Promise.all(orders.map((o) => s.refund(o.id))),
      approvePendingPoints(app.db, inDays(15)),
      approvePendingPoints(app.db, inDays(15)),
    ]);
    for (const r of refunds) {
      expect(r.points_voided + r.points_clawed_back).toBe(r.points_to_claw_back);
      expect(r.shortfall).toBe(0);
    }
    for (const c of customers) {
      expect(await s.consistent(c)).toBe(0);
      expect((await s.balance(c.platformId)).points_pending).toBe(0);
    }
    // every credit an approval wrote was clawed back by its refund
    const ids = customers.map((c) => c.id);
    const credits = await app.db.pointsTransaction.count({ where: { customerId: { in: ids }, type: 'credit' } });
    const voided = await app.db.activity.count({ where: { customerId: { in: ids }, status: 'voided' } });
    expect(credits + voided).toBe(orders.length);
  });

  it('credits each pending activity once when approvals run on two instances at once', async () => {
    const s = await shop();
    const c = await newCustomer(app, s.merchant.id);
    for (let i = 0; i < 8; i++) await s.order(c.platformId, `twice-${i}`, 10);
    await Promise.all([approvePendingPoints(app.db, inDays(15)), approvePendingPoints(app.db, inDays(15))]);
    expect(await s.consistent(c)).toBe(80);
    expect(await app.db.pointsTransaction.count({ where: { customerId: c.id } })).toBe(8);
  });

  it('voids exactly what two refunds at once owe', async () => {
    const s = await shop();
    const c = await newCustomer(app, s.merchant.id);
    await s.order(c.platformId, 'two', 100);
    const [a, b] = await Promise.all([s.refund('two', 30, 'two-a'), s.refund('two', 50, 'two-b')]);
    expect(a.points_voided + b.points_voided).toBe(80);
    expect(await s.balance(c.platformId)).toMatchObject({ points_balance: 0, points_pending: 20 });
    await approve(inDays(15), [c.id]);
    expect(await s.consistent(c)).toBe(20);
  });
});
