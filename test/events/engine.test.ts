// The loyalty engine: orders, refunds, activities, referrals and expiry recorded
// through the domain functions, read back through the public REST API.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordActivity } from '../../src/domain/events/activities.js';
import { recordOrder, refundOrder } from '../../src/domain/events/orders.js';
import { expirePoints } from '../../src/domain/ledger/expiry.js';
import { recordReferral } from '../../src/domain/referrals/referrals.js';
import type { Prisma } from '../../src/generated/prisma/client.js';
import type { CampaignType } from '../../src/generated/prisma/enums.js';
import { client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
beforeAll(async () => {
  app = await testApp();
});

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A merchant with a full-access client. */
async function shop(label: string) {
  const merchant = await newMerchant(app, label);
  return { merchantId: merchant.id, api: client(app, await newKey(app, merchant.id)) };
}

async function rule(
  merchantId: string,
  campaignType: CampaignType,
  name: string,
  earningRule: Prisma.InputJsonValue,
  conditions?: Prisma.InputJsonValue,
) {
  return app.db.earningRule.create({ data: { merchantId, name, campaignType, earningRule, conditions } });
}

type Api = ReturnType<typeof client>;
const balanceOf = async (api: Api, customerId: string) => {
  const res = await api.rest('GET', `/v1/customers/balance?customer_id=${customerId}`);
  expect(res.status).toBe(200);
  return res.body.data as { points_balance: number; points_earned: number; points_spent: number };
};
const activitiesOf = async (api: Api, customerId: string) =>
  (await api.rest('GET', `/v1/customers/activities?customer_id=${customerId}&per_page=100`)).body.data as {
    type: string;
    description: string;
    points_change: number;
    reference: { kind: string; id: string } | null;
  }[];
const transactionsOf = async (api: Api, customerId: string) =>
  (await api.rest('GET', `/v1/customers/transactions?customer_id=${customerId}&per_page=100`)).body.data as {
    points: number;
    source: string;
  }[];
const ledgerSum = async (customerId: string) =>
  (await app.db.pointsTransaction.aggregate({ where: { customerId }, _sum: { points: true } }))._sum.points ?? 0;

describe('orders: estimate == awarded', () => {
  let merchantId: string;
  let api: Api;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    ({ merchantId, api } = await shop('carts'));
    const bronze = await app.db.tier.create({
      data: { merchantId, name: 'Bronze', position: 0, threshold: 0, isDefault: true },
    });
    const gold = await app.db.tier.create({
      data: { merchantId, name: 'Gold', position: 1, threshold: 600, earnMultiplier: 1.25 },
    });
    ids.bronze = bronze.id;
    ids.gold = gold.id;
    ids.perDollar = (await rule(merchantId, 'purchase', '1 per $1', { type: 'variable', value: 1, per_amount: 1 })).id;
    ids.bigOrder = (
      await rule(
        merchantId,
        'purchase',
        'Big order',
        { type: 'fixed', value: 25 },
        {
          min_order_subtotal: 100,
          limit: { count: 1, period: 'day' },
        },
      )
    ).id;
    ids.mugs = (
      await rule(
        merchantId,
        'purchase',
        'Mugs',
        { type: 'variable', value: 5, per_amount: 10 },
        {
          product_ids: ['mug'],
          max_points_per_order: 20,
        },
      )
    ).id;
    ids.noGiftCards = (
      await rule(
        merchantId,
        'purchase',
        'Not gift cards',
        { type: 'variable', value: 1, per_amount: 2 },
        {
          excluded_product_ids: ['gift-card'],
        },
      )
    ).id;
    ids.goldPerk = (await rule(merchantId, 'purchase', 'Gold perk', { type: 'fixed', value: 10 }, { tier_ids: [gold.id] })).id;
    await rule(merchantId, 'purchase', 'Ended', { type: 'fixed', value: 40 }, { ends_at: new Date(Date.now() - DAY).toISOString() });
    const now = Date.now();
    ids.booster = (
      await app.db.boosterCampaign.create({
        data: { merchantId, name: 'Spring 1.5x', multiplier: 1.5, campaignTypes: ['purchase'], startsAt: new Date(now - HOUR) },
      })
    ).id;
    await app.db.boosterCampaign.create({
      data: { merchantId, name: 'Reviews 2x', multiplier: 2, campaignTypes: ['review'], startsAt: new Date(now - HOUR) },
    });
    await app.db.boosterCampaign.create({
      data: { merchantId, name: 'Later 3x', multiplier: 3, campaignTypes: ['purchase'], startsAt: new Date(now + DAY) },
    });
  });

  // [cart, points by hand]
  const carts: [{ subtotal: number; line_items?: { product_id: string; quantity: number; price: number }[] }, number][] = [
    // 100 + 25 (big order) + 50 (1 per $2 of everything) = 175; × 1.5 = 262.5
    [{ subtotal: 100 }, 262],
    // 120 + mugs min(floor(75/10)×5, 20) = 20 + floor(75/2) = 37 (big order used today) = 177; × 1.5
    [
      {
        subtotal: 120,
        line_items: [
          { product_id: 'mug', quantity: 3, price: 25 },
          { product_id: 'gift-card', quantity: 1, price: 45 },
        ],
      },
      265,
    ],
    // 80 + 40 = 120; × 1.5 → 707 earned: Gold from here on
    [{ subtotal: 80.99 }, 180],
    // Gold: 10 + 5 + 10 (perk) = 25; × 1.25 × 1.5 = 46.875
    [{ subtotal: 10 }, 46],
    // only the fixed Gold perk: 10 × 1.25 × 1.5 = 18.75
    [{ subtotal: 0 }, 18],
    // gift cards only: 50 + 10 (perk) = 60; × 1.875 = 112.5
    [{ subtotal: 50, line_items: [{ product_id: 'gift-card', quantity: 1, price: 50 }] }, 112],
  ];

  let customer: Awaited<ReturnType<typeof newCustomer>>;
  const events: { event_id: string; order_id: string; customer_id: string; subtotal: number }[] = [];
  const results: unknown[] = [];

  it('awards exactly the estimate for each cart, matching the hand calculation', async () => {
    customer = await newCustomer(app, merchantId);
    let expectedBalance = 0;
    for (const [cart, byHand] of carts) {
      const estimate = await api.rest('POST', '/v1/points/estimate', { customer_id: customer.platformId, ...cart });
      expect(estimate.status).toBe(200);
      expect(estimate.body.data.points).toBe(byHand);
      const order = { event_id: randomUUID(), order_id: `#${1000 + events.length}`, customer_id: customer.platformId, ...cart };
      const result = await recordOrder(app.db, merchantId, order);
      expect(result).toEqual({
        order_id: order.order_id,
        customer_id: customer.platformId,
        points_awarded: byHand,
        points_pending: 0,
        transaction_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        replayed: false,
      });
      expectedBalance += byHand;
      expect((await balanceOf(api, customer.platformId)).points_balance).toBe(expectedBalance);
      events.push(order);
      results.push(result);
    }
    const row = await app.db.customer.findFirstOrThrow({ where: { id: customer.id } });
    expect(Number(row.amountSpent)).toBeCloseTo(360.99, 2);
    expect(row.tierId).toBe(ids.gold);
  });

  it('breaks the Gold estimate down by rule, tier and booster', async () => {
    const res = await api.rest('POST', '/v1/points/estimate', { customer_id: customer.platformId, subtotal: 10 });
    expect(res.body.data).toEqual({
      points: 46,
      base_points: 25,
      bonus_points: 21,
      currency: 'USD',
      breakdown: [
        { source: 'earning_rule', id: ids.perDollar, name: '1 per $1', points: 10 },
        { source: 'earning_rule', id: ids.noGiftCards, name: 'Not gift cards', points: 5 },
        { source: 'earning_rule', id: ids.goldPerk, name: 'Gold perk', points: 10 },
        { source: 'tier', id: ids.gold, name: 'Gold', points: 6 },
        { source: 'booster', id: ids.booster, name: 'Spring 1.5x', points: 15 },
      ],
    });
  });

  it('logs each order as a purchase activity and an earning_rule transaction', async () => {
    const activities = await activitiesOf(api, customer.platformId);
    const purchases = activities.filter((a) => a.type === 'purchase');
    expect(purchases.map((a) => a.points_change).sort((a, b) => a - b)).toEqual(carts.map(([, p]) => p).sort((a, b) => a - b));
    expect(purchases.find((a) => a.reference?.id === '#1000')?.description).toContain('#1000');
    const earned = (await transactionsOf(api, customer.platformId)).filter((t) => t.source === 'earning_rule');
    expect(earned).toHaveLength(carts.length);
    expect(activities.some((a) => a.type === 'tier_change')).toBe(true);
  });

  it('changes nothing when every event is replayed (same event id, or same order id alone)', async () => {
    const before = await balanceOf(api, customer.platformId);
    const txCount = await app.db.pointsTransaction.count({ where: { customerId: customer.id } });
    const activityCount = await app.db.activity.count({ where: { customerId: customer.id } });
    for (const [i, order] of events.entries()) {
      const byEvent = await recordOrder(app.db, merchantId, order);
      expect(byEvent).toEqual({ ...(results[i] as object), replayed: true });
      const byOrder = await recordOrder(app.db, merchantId, { ...order, event_id: undefined, subtotal: 9999 });
      expect(byOrder).toEqual({ ...(results[i] as object), replayed: true });
    }
    // an event id already seen, naming another order, is still the first event
    const reused = await recordOrder(app.db, merchantId, { ...events[0]!, order_id: 'other', customer_id: customer.platformId });
    expect(reused).toMatchObject({ order_id: events[0]!.order_id, replayed: true });
    expect(await app.db.order.count({ where: { merchantId, platformOrderId: 'other' } })).toBe(0);

    expect(await balanceOf(api, customer.platformId)).toEqual(before);
    expect(await app.db.pointsTransaction.count({ where: { customerId: customer.id } })).toBe(txCount);
    expect(await app.db.activity.count({ where: { customerId: customer.id } })).toBe(activityCount);
    const row = await app.db.customer.findFirstOrThrow({ where: { id: customer.id } });
    expect(Number(row.amountSpent)).toBeCloseTo(360.99, 2);
  });

  it('awards once when the same order arrives concurrently', async () => {
    const other = await newCustomer(app, merchantId);
    const order = { order_id: 'race-1', customer_id: other.platformId, subtotal: 10 };
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => recordOrder(app.db, merchantId, order)));
    expect(outcomes.filter((o) => !o.replayed)).toHaveLength(1);
    expect(new Set(outcomes.map((o) => o.points_awarded))).toEqual(new Set([outcomes[0]!.points_awarded]));
    expect((await balanceOf(api, other.platformId)).points_balance).toBe(outcomes[0]!.points_awarded);
  });

  it('takes over a claim left without a result by a process that died, awarding once', async () => {
    const other = await newCustomer(app, merchantId);
    // a claim as a crashed process leaves it: old, no result, nothing awarded
    await app.db.engineEvent.create({
      data: { merchantId, eventId: 'order:orphan-1', kind: 'order', createdAt: new Date(Date.now() - 10 * 60_000) },
    });
    const first = await recordOrder(app.db, merchantId, { order_id: 'orphan-1', customer_id: other.platformId, subtotal: 10 });
    expect(first.replayed).toBe(false);
    const again = await recordOrder(app.db, merchantId, { order_id: 'orphan-1', customer_id: other.platformId, subtotal: 10 });
    expect(again).toEqual({ ...first, replayed: true });
    expect((await balanceOf(api, other.platformId)).points_balance).toBe(first.points_awarded);
  });

  it('refuses an order placed longer ago than the late earning days, recording nothing', async () => {
    const c = await newCustomer(app, merchantId);
    const old = { order_id: 'backdated-1', customer_id: c.platformId, subtotal: 40, created_at: '2020-01-01T00:00:00Z' };
    await expect(recordOrder(app.db, merchantId, old)).rejects.toMatchObject({
      code: 'validation_error',
      details: { created_at: [expect.stringMatching(/more than 365 days ago/)] },
    });
    expect(await app.db.order.count({ where: { merchantId, platformOrderId: 'backdated-1' } })).toBe(0);
    expect(await app.db.engineEvent.count({ where: { merchantId, eventId: 'order:backdated-1' } })).toBe(0);
    // refused, it can be sent again once corrected
    expect(await recordOrder(app.db, merchantId, { ...old, created_at: null })).toMatchObject({ replayed: false });
  });

  it('refuses bad input (422), an unknown customer (404) and another currency (422)', async () => {
    const c = await newCustomer(app, merchantId);
    await expect(recordOrder(app.db, merchantId, { order_id: 'x', customer_id: c.platformId, subtotal: -1 })).rejects.toMatchObject({
      code: 'validation_error',
      details: { subtotal: expect.any(Array) },
    });
    await expect(recordOrder(app.db, merchantId, { order_id: 'x', customer_id: 'ghost', subtotal: 1 })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(
      recordOrder(app.db, merchantId, { order_id: 'x', customer_id: c.platformId, subtotal: 1, currency: 'EUR' }),
    ).rejects.toMatchObject({ code: 'validation_error', details: { currency: expect.any(Array) } });
    expect(await app.db.order.count({ where: { merchantId, platformOrderId: 'x' } })).toBe(0);
  });

  it('awards an excluded customer nothing, and the estimate says so', async () => {
    const c = await newCustomer(app, merchantId);
    await app.db.customer.updateMany({ where: { id: c.id }, data: { status: 'excluded' } });
    const estimate = await api.rest('POST', '/v1/points/estimate', { customer_id: c.platformId, subtotal: 100 });
    expect(estimate.body.data.points).toBe(0);
    const result = await recordOrder(app.db, merchantId, { order_id: 'excl-1', customer_id: c.platformId, subtotal: 100 });
    expect(result).toMatchObject({ points_awarded: 0, transaction_id: null });
  });
});

describe('refunds', () => {
  let merchantId: string;
  let api: Api;
  beforeAll(async () => {
    ({ merchantId, api } = await shop('refunds'));
    await rule(merchantId, 'purchase', '1 per $1', { type: 'variable', value: 1, per_amount: 1 });
  });

  it('claws back all the points of a refunded order, once', async () => {
    const c = await newCustomer(app, merchantId, { points: 10 });
    await recordOrder(app.db, merchantId, { order_id: 'r-1', customer_id: c.platformId, subtotal: 200 });
    const refund = await refundOrder(app.db, merchantId, { order_id: 'r-1' });
    expect(refund).toMatchObject({ points_clawed_back: 200, shortfall: 0, fully_refunded: true, replayed: false });
    expect((await balanceOf(api, c.platformId)).points_balance).toBe(10);
    const again = await refundOrder(app.db, merchantId, { order_id: 'r-1' });
    expect(again).toEqual({ ...refund, replayed: true });
    expect((await balanceOf(api, c.platformId)).points_balance).toBe(10);
    const order = await app.db.order.findFirstOrThrow({ where: { merchantId, platformOrderId: 'r-1' } });
    expect(order).toMatchObject({ pointsAwarded: 200, pointsClawedBack: 200 });
    expect(order.refundedAt).not.toBeNull();
    const activity = (await activitiesOf(api, c.platformId)).find((a) => a.points_change === -200);
    expect(activity).toMatchObject({ type: 'purchase', reference: { kind: 'order', id: 'r-1' } });
  });

  it('claws back proportionally for partial refunds, all of it once fully refunded', async () => {
    const c = await newCustomer(app, merchantId);
    await recordOrder(app.db, merchantId, { order_id: 'r-2', customer_id: c.platformId, subtotal: 99 });
    const first = await refundOrder(app.db, merchantId, { event_id: 'rf-a', order_id: 'r-2', amount: 33 });
    expect(first.points_clawed_back).toBe(33);
    const second = await refundOrder(app.db, merchantId, { event_id: 'rf-b', order_id: 'r-2', amount: 10 });
    expect(second.points_clawed_back).toBe(10); // floor(99 × 43/99) − 33
    expect(await refundOrder(app.db, merchantId, { event_id: 'rf-a', order_id: 'r-2', amount: 33 })).toMatchObject({
      replayed: true,
    });
    const rest = await refundOrder(app.db, merchantId, { event_id: 'rf-c', order_id: 'r-2' });
    expect(rest).toMatchObject({ points_clawed_back: 56, refunded_amount: 56, fully_refunded: true });
    const beyond = await refundOrder(app.db, merchantId, { event_id: 'rf-d', order_id: 'r-2', amount: 5 });
    expect(beyond).toMatchObject({ points_clawed_back: 0, refunded_amount: 0, replayed: false });
    expect((await balanceOf(api, c.platformId)).points_balance).toBe(0);
    expect(await ledgerSum(c.id)).toBe(0);
  });

  it('claws back at most the order’s points when different refunds of it arrive at once', async () => {
    const c = await newCustomer(app, merchantId, { points: 1000 });
    await recordOrder(app.db, merchantId, { order_id: 'r-race', customer_id: c.platformId, subtotal: 100 });
    const refunds = await Promise.all([
      refundOrder(app.db, merchantId, { event_id: 'race-full', order_id: 'r-race' }),
      refundOrder(app.db, merchantId, { event_id: 'race-80a', order_id: 'r-race', amount: 80 }),
      refundOrder(app.db, merchantId, { event_id: 'race-80b', order_id: 'r-race', amount: 80 }),
      refundOrder(app.db, merchantId, { event_id: 'race-50', order_id: 'r-race', amount: 50 }),
    ]);
    expect(refunds.reduce((sum, r) => sum + r.points_clawed_back, 0)).toBe(100);
    expect(refunds.reduce((sum, r) => sum + r.refunded_amount, 0)).toBe(100);
    expect((await balanceOf(api, c.platformId)).points_balance).toBe(1000);
    const order = await app.db.order.findFirstOrThrow({ where: { merchantId, platformOrderId: 'r-race' } });
    expect(order.pointsClawedBack).toBe(100);
    expect(order.refundedAt).not.toBeNull();
  });

  it('never debits below zero: the shortfall is recorded on the order and in the activity', async () => {
    const c = await newCustomer(app, merchantId);
    await recordOrder(app.db, merchantId, { order_id: 'r-3', customer_id: c.platformId, subtotal: 100 });
    const spend = await api.rest('POST', `/v1/customers/transactions?customer_id=${c.platformId}`, {
      points: -80,
      description: 'Spent',
    });
    expect(spend.status).toBe(201);
    const refund = await refundOrder(app.db, merchantId, { order_id: 'r-3' });
    expect(refund).toMatchObject({ points_to_claw_back: 100, points_clawed_back: 20, shortfall: 80 });
    expect((await balanceOf(api, c.platformId)).points_balance).toBe(0);
    const order = await app.db.order.findFirstOrThrow({ where: { merchantId, platformOrderId: 'r-3' } });
    expect(order.pointsClawedBack).toBe(20);
    const activity = (await activitiesOf(api, c.platformId)).find((a) => a.points_change === -20);
    expect(activity?.description).toMatch(/80 points could not be reversed/);

    // with nothing left to debit, the log still notes it
    await recordOrder(app.db, merchantId, { order_id: 'r-4', customer_id: c.platformId, subtotal: 5 });
    await api.rest('POST', `/v1/customers/transactions?customer_id=${c.platformId}`, { points: -5, description: 'Spent' });
    expect(await refundOrder(app.db, merchantId, { order_id: 'r-4' })).toMatchObject({ points_clawed_back: 0, shortfall: 5 });
    expect((await activitiesOf(api, c.platformId))[0]).toMatchObject({ points_change: 0, reference: { id: 'r-4' } });
    expect(await ledgerSum(c.id)).toBe(0);
  });

  it('answers 404 for an unknown order', async () => {
    await expect(refundOrder(app.db, merchantId, { order_id: 'nope' })).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('activities', () => {
  let merchantId: string;
  let api: Api;
  beforeAll(async () => {
    ({ merchantId, api } = await shop('activities'));
    // the actions below happened on fixed dates: they may earn however long ago that is
    await app.db.merchant.update({ where: { id: merchantId }, data: { lateEarningDays: 36_500 } });
    await rule(merchantId, 'signup', 'Welcome', { type: 'fixed', value: 100 });
    await rule(merchantId, 'daily_visit', 'Daily visit', { type: 'fixed', value: 5 });
    await rule(merchantId, 'birthday', 'Happy birthday', { type: 'fixed', value: 50 });
    await rule(merchantId, 'review', 'Review', { type: 'fixed', value: 10 }, { limit: { count: 2, period: 'week' } });
    await rule(merchantId, 'newsletter_subscribe', 'Newsletter', { type: 'fixed', value: 15 });
    await app.db.boosterCampaign.create({
      data: { merchantId, name: 'Reviews 2x', multiplier: 2, campaignTypes: ['review'], startsAt: new Date(Date.now() - HOUR) },
    });
  });

  const act = (customerId: string, campaign_type: CampaignType, extra: { event_id?: string; occurred_at?: string } = {}) =>
    recordActivity(app.db, merchantId, { event_id: extra.event_id ?? randomUUID(), customer_id: customerId, campaign_type, ...extra });

  it('pays a signup once, even under different event ids, and replays the event', async () => {
    const c = await newCustomer(app, merchantId);
    const first = await act(c.platformId, 'signup', { event_id: 'signup-1' });
    expect(first).toMatchObject({ points_awarded: 100, customer_id: c.platformId, campaign_type: 'signup', replayed: false });
    expect(await act(c.platformId, 'signup', { event_id: 'signup-1' })).toEqual({ ...first, replayed: true });
    expect(await act(c.platformId, 'signup')).toMatchObject({ points_awarded: 0, transaction_id: null });
    expect((await balanceOf(api, c.platformId)).points_balance).toBe(100);
    const [logged] = await activitiesOf(api, c.platformId);
    expect(logged).toMatchObject({ type: 'signup', description: 'Welcome', points_change: 100 });
  });

  it('pays a daily visit once a day and a birthday once a year', async () => {
    const c = await newCustomer(app, merchantId);
    const visits = ['2026-03-02T08:00:00Z', '2026-03-02T23:59:00Z', '2026-03-03T00:01:00Z'];
    const paid = [];
    for (const occurred_at of visits) paid.push((await act(c.platformId, 'daily_visit', { occurred_at })).points_awarded);
    expect(paid).toEqual([5, 0, 5]);
    const birthdays = ['2025-05-01T10:00:00Z', '2025-05-01T11:00:00Z', '2026-05-01T10:00:00Z'];
    const gifts = [];
    for (const occurred_at of birthdays) gifts.push((await act(c.platformId, 'birthday', { occurred_at })).points_awarded);
    expect(gifts).toEqual([50, 0, 50]);
    expect((await balanceOf(api, c.platformId)).points_balance).toBe(110);
  });

  it('applies a rule limit and the boosters of that campaign type', async () => {
    const c = await newCustomer(app, merchantId);
    const paid = [];
    for (let i = 0; i < 3; i++) paid.push((await act(c.platformId, 'review')).points_awarded);
    expect(paid).toEqual([20, 20, 0]);
    // no limit: every newsletter event pays
    expect((await act(c.platformId, 'newsletter_subscribe')).points_awarded).toBe(15);
    expect((await act(c.platformId, 'newsletter_subscribe')).points_awarded).toBe(15);
  });

  it('lets only one of concurrent signups pay', async () => {
    const c = await newCustomer(app, merchantId);
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => act(c.platformId, 'signup')));
    expect(outcomes.map((o) => o.points_awarded).sort((a, b) => b - a)).toEqual([100, 0, 0, 0, 0]);
    expect((await balanceOf(api, c.platformId)).points_balance).toBe(100);
  });

  it('refuses purchase (422), an event id used by another kind (409), an unknown customer (404)', async () => {
    const c = await newCustomer(app, merchantId);
    await expect(act(c.platformId, 'purchase')).rejects.toMatchObject({ code: 'validation_error' });
    await recordOrder(app.db, merchantId, { event_id: 'shared-id', order_id: 'o-1', customer_id: c.platformId, subtotal: 1 });
    await expect(act(c.platformId, 'review', { event_id: 'shared-id' })).rejects.toMatchObject({ code: 'conflict' });
    await expect(act('ghost', 'review')).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('referrals', () => {
  let merchantId: string;
  let api: Api;
  beforeAll(async () => {
    ({ merchantId, api } = await shop('referrals'));
    await app.db.referralProgram.create({
      data: {
        merchantId,
        referrerPoints: 500,
        refereeRewardType: 'fixed_discount',
        refereeRewardRule: { discount_value: 10 },
        minOrderSubtotal: 50,
      },
    });
  });

  it("completes on the referee's first qualifying order and credits the referrer once", async () => {
    const referrer = await newCustomer(app, merchantId);
    const email = `friend-${randomUUID().slice(0, 6)}@example.com`;
    const pending = await recordReferral(app.db, merchantId, {
      referrer_code: referrer.referralCode.toLowerCase(),
      referee_email: email.toUpperCase(),
    });
    expect(pending).toMatchObject({ status: 'pending', referee_email: email, replayed: false });
    const replay = await recordReferral(app.db, merchantId, { referrer_code: referrer.referralCode, referee_email: email });
    expect(replay).toMatchObject({ id: pending.id, replayed: true });

    const friend = await newCustomer(app, merchantId, { email });
    await recordOrder(app.db, merchantId, { order_id: 'f-1', customer_id: friend.platformId, subtotal: 49.99 });
    expect((await balanceOf(api, referrer.platformId)).points_balance).toBe(0);
    await recordOrder(app.db, merchantId, { event_id: 'f-2-evt', order_id: 'f-2', customer_id: friend.platformId, subtotal: 50 });
    await recordOrder(app.db, merchantId, { event_id: 'f-2-evt', order_id: 'f-2', customer_id: friend.platformId, subtotal: 50 });
    await recordOrder(app.db, merchantId, { order_id: 'f-3', customer_id: friend.platformId, subtotal: 80 });
    expect((await balanceOf(api, referrer.platformId)).points_balance).toBe(500);

    const listed = await api.rest('GET', `/v1/customers/referrals?customer_id=${referrer.platformId}`);
    expect(listed.body.data).toEqual([
      expect.objectContaining({
        id: pending.id,
        status: 'completed',
        referee_customer_id: friend.platformId,
        referrer_points: 500,
        order_id: 'f-2',
      }),
    ]);
    const activity = (await activitiesOf(api, referrer.platformId))[0];
    expect(activity).toMatchObject({ type: 'referral', points_change: 500 });
  });

  it('rejects self-referral, existing customers and emails referred by someone else', async () => {
    const referrer = await newCustomer(app, merchantId);
    const other = await newCustomer(app, merchantId);
    const refer = (code: string, referee_email: string) => recordReferral(app.db, merchantId, { referrer_code: code, referee_email });
    await expect(refer(referrer.referralCode, referrer.email)).rejects.toMatchObject({ code: 'referral_rejected' });
    await expect(refer(referrer.referralCode, other.email)).rejects.toMatchObject({ code: 'referral_rejected' });
    await refer(referrer.referralCode, 'taken@example.com');
    await expect(refer(other.referralCode, 'taken@example.com')).rejects.toMatchObject({ code: 'referral_rejected' });
    await expect(refer('NOSUCHCODE', 'x@example.com')).rejects.toMatchObject({ code: 'not_found' });
    await expect(refer(referrer.referralCode, 'not-an-email')).rejects.toMatchObject({ code: 'validation_error' });
  });

  it('rejects referrals while the program is inactive', async () => {
    const { merchantId: inactive } = await shop('no-referrals');
    const referrer = await newCustomer(app, inactive);
    await expect(
      recordReferral(app.db, inactive, { referrer_code: referrer.referralCode, referee_email: 'a@example.com' }),
    ).rejects.toMatchObject({ code: 'referral_rejected' });
  });
});

describe('expiry', () => {
  it('expires inactive balances through the ledger, and a second run finds nothing', async () => {
    const { merchantId, api } = await shop('expiry');
    await app.db.merchant.update({ where: { id: merchantId }, data: { pointsExpiryDays: 30 } });
    const stale = await newCustomer(app, merchantId, { points: 120 });
    const active = await newCustomer(app, merchantId, { points: 80 });
    await app.db.customer.updateMany({ where: { id: stale.id }, data: { lastActivityAt: new Date(Date.now() - 31 * DAY) } });

    expect(await expirePoints(app.db, { merchantId })).toEqual({ merchants: 1, customers: 1, points: 120 });
    expect(await expirePoints(app.db, { merchantId })).toEqual({ merchants: 1, customers: 0, points: 0 });
    expect((await balanceOf(api, stale.platformId)).points_balance).toBe(0);
    expect((await balanceOf(api, active.platformId)).points_balance).toBe(80);
    const [expiry] = await activitiesOf(api, stale.platformId);
    expect(expiry).toMatchObject({ type: 'expiry', points_change: -120 });
    expect((await transactionsOf(api, stale.platformId))[0]).toMatchObject({ source: 'expiry', points: -120 });

    // 31 days on, the active one has lapsed too
    const later = new Date(Date.now() + 31 * DAY);
    expect(await expirePoints(app.db, { merchantId, now: later })).toMatchObject({ customers: 1, points: 80 });
    expect(await expirePoints(app.db, { merchantId, now: later })).toMatchObject({ customers: 0 });
  });

  it('walks a merchant past one page (200 customers a page) and expires every stale balance once', async () => {
    const { merchantId, api } = await shop('expiry-pages');
    await app.db.merchant.update({ where: { id: merchantId }, data: { pointsExpiryDays: 30 } });
    const customers = [];
    for (let i = 0; i < 201; i++) customers.push(await newCustomer(app, merchantId, { points: 2 }));
    await app.db.customer.updateMany({ where: { merchantId }, data: { lastActivityAt: new Date(Date.now() - 31 * DAY) } });
    expect(await expirePoints(app.db, { merchantId })).toEqual({ merchants: 1, customers: 201, points: 402 });
    expect(await expirePoints(app.db, { merchantId })).toEqual({ merchants: 1, customers: 0, points: 0 });
    for (const c of [customers[0]!, customers[199]!, customers[200]!]) expect((await balanceOf(api, c.platformId)).points_balance).toBe(0);
  }, 60_000);

  it('leaves merchants without expiry alone', async () => {
    const { merchantId } = await shop('no-expiry');
    const c = await newCustomer(app, merchantId, { points: 5 });
    await app.db.customer.updateMany({ where: { id: c.id }, data: { lastActivityAt: new Date(0) } });
    expect(await expirePoints(app.db, { merchantId })).toEqual({ merchants: 0, customers: 0, points: 0 });
  });
});

describe('ledger invariant', () => {
  it('keeps balance == sum of transactions through a random mix, and replays change nothing', async () => {
    const { merchantId, api } = await shop('invariant');
    await rule(merchantId, 'purchase', '1 per $1', { type: 'variable', value: 1, per_amount: 1 });
    await rule(merchantId, 'review', 'Review', { type: 'fixed', value: 7 });
    const reward = await app.db.reward.create({
      data: { merchantId, name: '$5 off', rewardType: 'fixed_discount', pointsCost: 60, rewardRule: { discount_value: 5 } },
    });
    const customers = await Promise.all([0, 1, 2].map(() => newCustomer(app, merchantId)));
    let seed = 20261121;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
    const orders: { order_id: string; customer_id: string; subtotal: number; event_id: string }[] = [];
    const replayable: (() => Promise<unknown>)[] = [];

    for (let i = 0; i < 60; i++) {
      const c = pick(customers);
      const roll = random();
      if (roll < 0.35 || orders.length === 0) {
        const order = { event_id: `o-${i}`, order_id: `O${i}`, customer_id: c.platformId, subtotal: Math.round(random() * 30000) / 100 };
        orders.push(order);
        await recordOrder(app.db, merchantId, order);
        replayable.push(() => recordOrder(app.db, merchantId, order));
      } else if (roll < 0.5) {
        const order = pick(orders);
        const refund = {
          event_id: `r-${i}`,
          order_id: order.order_id,
          amount: random() < 0.5 ? undefined : Math.ceil(random() * order.subtotal) || 1,
        };
        await refundOrder(app.db, merchantId, refund);
        replayable.push(() => refundOrder(app.db, merchantId, refund));
      } else if (roll < 0.7) {
        const points = Math.round(random() * 300) - 150 || 1;
        const res = await api.rest('POST', `/v1/customers/transactions?customer_id=${c.platformId}`, { points, description: 'Manual' });
        expect([201, 422]).toContain(res.status);
      } else if (roll < 0.85) {
        const res = await api.rest('POST', `/v1/customers/rewards/redeem?customer_id=${c.platformId}`, { reward_id: reward.id });
        expect([201, 422]).toContain(res.status);
      } else {
        const event = { event_id: `a-${i}`, customer_id: c.platformId, campaign_type: 'review' as const };
        await recordActivity(app.db, merchantId, event);
        replayable.push(() => recordActivity(app.db, merchantId, event));
      }
    }

    const snapshot = async () =>
      Promise.all(
        customers.map(async (c) => {
          const balance = await balanceOf(api, c.platformId);
          expect(balance.points_balance).toBeGreaterThanOrEqual(0);
          expect(balance.points_balance).toBe(await ledgerSum(c.id));
          expect(balance.points_balance).toBe(balance.points_earned - balance.points_spent);
          return { balance, transactions: await app.db.pointsTransaction.count({ where: { customerId: c.id } }) };
        }),
      );
    const before = await snapshot();
    for (const replay of replayable) await replay();
    expect(await snapshot()).toEqual(before);
  });
});
