// The points in money through the admin API. The worked example is KPMG's IFRS 15 handbook,
// Example 10A (after IFRS 15.IE267–IE270): sales of 100,000 earn 10,000 points worth 1 each, 97%
// expected to be redeemed; 4,500 are redeemed in year 2; in year 3 a further 4,000, and the
// estimate is raised to 99%. The service computes unrounded: 8,842.30 allocated to the points,
// revenue of 4,102.10 in year 2 and 3,489.77 in year 3 (the handbook rounds the ratio to 9% and
// shows 9,000, 4,175 and 3,552).
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { computeRedemptionRateEstimate } from '../../src/domain/finance/rate-estimates.js';
import { adminOps, RECORD_ORDER, REFUND_ORDER } from '../admin-ops.js';
import { client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';
import { ledgerEntryAt } from './history.js';

let app: TestApp;
beforeAll(async () => {
  app = await testApp();
});

const VALUATION = `query ($at: DateTime) { points_valuation(at: $at) {
  at currency point_value point_value_source redemption_rate redemption_rate_source redemption_rate_estimated_at points_outstanding liability_value
  points_from_sales points_redeemed_from_sales allocated_revenue revenue_recognized redemption_revenue breakage_revenue deferred_revenue } }`;
const SET = `mutation ($point_value: Float, $redemption_rate: Float) {
  set_points_valuation(point_value: $point_value, redemption_rate: $redemption_rate) { point_value point_value_source redemption_rate redemption_rate_source } }`;

async function shop(label: string) {
  const merchant = await newMerchant(app, label);
  return { merchantId: merchant.id, admin: adminOps(app, merchant.admin_token), api: client(app, await newKey(app, merchant.id)) };
}

/** An instant strictly after everything written so far, and strictly before anything written next. */
async function instant() {
  await new Promise((r) => setTimeout(r, 5));
  const at = new Date();
  await new Promise((r) => setTimeout(r, 5));
  return at;
}

describe('IFRS 15 Example 10A, through the API', () => {
  it('allocates 8,842.30 to the points and recognizes 4,102.10 in year 2 and 3,489.77 in year 3', async () => {
    const { merchantId, admin, api } = await shop('kpmg');
    await app.db.earningRule.create({
      data: { merchantId, name: '1 per 10', campaignType: 'purchase', earningRule: { type: 'variable', value: 1, per_amount: 10 } },
    });
    const reward = await app.db.reward.create({
      data: { merchantId, name: '500-point reward', rewardType: 'fixed_discount', pointsCost: 500, rewardRule: { discount_value: 500 } },
    });
    expect((await admin.ok(SET, { point_value: 1, redemption_rate: 0.97 })).set_points_valuation).toEqual({
      point_value: 1,
      point_value_source: 'set',
      redemption_rate: 0.97,
      redemption_rate_source: 'set',
    });

    // year 1: ten sales of 10,000 earn 1,000 points each
    const customers: string[] = [];
    for (let i = 0; i < 10; i++) {
      const c = await newCustomer(app, merchantId);
      customers.push(c.platformId);
      const order = await admin.ok(RECORD_ORDER, { input: { order_id: `y1-${i}`, customer_id: c.platformId, subtotal: 10_000 } });
      expect(order.record_order.points_awarded).toBe(1000);
    }
    const redeem = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const res = await api.rest(
          'POST',
          `/v1/customers/rewards/redeem?customer_id=${customers[i]}`,
          { reward_id: reward.id },
          { 'idempotency-key': randomUUID() },
        );
        expect(res.status).toBe(201);
      }
    };
    const endOfYear1 = await instant();
    await redeem(9); // year 2: 4,500 points
    const endOfYear2 = await instant();
    await admin.ok(SET, { redemption_rate: 0.99 }); // year 3: the estimate raised
    await redeem(8); // a further 4,000
    const endOfYear3 = await instant();

    const at = async (t: Date) => (await admin.ok(VALUATION, { at: t.toISOString() })).points_valuation;
    const [y1, y2, y3] = [await at(endOfYear1), await at(endOfYear2), await at(endOfYear3)];
    expect(y1).toMatchObject({
      currency: 'USD',
      points_from_sales: 10_000,
      allocated_revenue: 8842.3,
      revenue_recognized: 0,
      deferred_revenue: 8842.3,
      points_outstanding: 10_000,
    });
    expect(y2).toMatchObject({
      redemption_rate: 0.97,
      points_redeemed_from_sales: 4500,
      allocated_revenue: 8842.3,
      revenue_recognized: 4102.1,
      deferred_revenue: 4740.2,
      points_outstanding: 5500,
    });
    expect(y3).toMatchObject({
      redemption_rate: 0.99,
      points_redeemed_from_sales: 8500,
      allocated_revenue: 8842.3,
      revenue_recognized: 7591.87,
      deferred_revenue: 1250.43,
      points_outstanding: 1500,
    });
    expect(Number((y3.revenue_recognized - y2.revenue_recognized).toFixed(2))).toBe(3489.77);
    // recognition splits into the points' own share and breakage: 8,842.30 × 8,500 / 10,000 and the rest
    expect(y3.redemption_revenue).toBe(7515.95);
    expect(Number((y3.redemption_revenue + y3.breakage_revenue).toFixed(2))).toBe(y3.revenue_recognized);
    expect(y3.liability_value).toBe(1485); // 1,500 points × 1 × 0.99
  });
});

describe('refunds', () => {
  it("reduce an order's allocated revenue in proportion from their moment on, and its points from sales by what they owed back", async () => {
    const { merchantId, admin } = await shop('refunds');
    await app.db.earningRule.create({
      data: { merchantId, name: '1 per 10', campaignType: 'purchase', earningRule: { type: 'variable', value: 1, per_amount: 10 } },
    });
    await admin.ok(SET, { point_value: 1, redemption_rate: 0.97 });
    for (const id of ['a', 'b']) {
      const c = await newCustomer(app, merchantId, { customerId: id });
      await admin.ok(RECORD_ORDER, { input: { order_id: id, customer_id: c.platformId, subtotal: 10_000 } });
    }
    const beforeRefunds = await instant();
    // a quarter of a's order: 250 of its 1,000 points owed back
    const partial = await admin.ok(REFUND_ORDER, { input: { order_id: 'a', amount: 2500 } });
    expect(partial.refund_order).toMatchObject({ refunded_amount: 2500, points_to_claw_back: 250 });
    const afterPartial = await instant();
    await admin.ok(REFUND_ORDER, { input: { order_id: 'b' } });
    const afterFull = await instant();

    const at = async (t: Date) => (await admin.ok(VALUATION, { at: t.toISOString() })).points_valuation;
    // each order: 10,000 × 970 / 10,970 = 884.2297…
    expect(await at(beforeRefunds)).toMatchObject({ points_from_sales: 2000, allocated_revenue: 1768.46, deferred_revenue: 1768.46 });
    // a's 7,500 left × 970 / 10,970 + b's 884.2297…
    expect(await at(afterPartial)).toMatchObject({ points_from_sales: 1750, allocated_revenue: 1547.4, deferred_revenue: 1547.4 });
    // b refunded whole: nothing of it left allocated
    expect(await at(afterFull)).toMatchObject({
      points_from_sales: 750,
      allocated_revenue: 663.17,
      deferred_revenue: 663.17,
      points_outstanding: 750,
    });
    // the same refund sent again changes nothing
    await admin.ok(REFUND_ORDER, { input: { order_id: 'a', amount: 2500 } });
    expect((await at(await instant())).allocated_revenue).toBe(663.17);

    // refunds recorded before they were kept: the migration reads them from their stored results, at their moments
    const kept = await app.db.orderRefund.findMany({ where: { merchantId }, orderBy: { createdAt: 'asc' } });
    expect(kept.map((r) => [Number(r.amount), r.pointsOwed])).toEqual([
      [2500, 250],
      [10_000, 1000],
    ]);
    await app.db.orderRefund.deleteMany({ where: { merchantId } });
    const migration = readFileSync(new URL('../../prisma/migrations/20261126172924_order_refunds/migration.sql', import.meta.url), 'utf8');
    const backfill = migration.slice(migration.indexOf('INSERT INTO "order_refunds"'));
    await app.db.$executeRawUnsafe(backfill);
    expect(await app.db.orderRefund.count({ where: { merchantId } })).toBe(2);
    expect(await at(afterPartial)).toMatchObject({ points_from_sales: 1750, allocated_revenue: 1547.4 });
    expect(await at(afterFull)).toMatchObject({ points_from_sales: 750, allocated_revenue: 663.17 });
  });
});

describe('redemptions from sales', () => {
  it('share redemptions by the points issued net of what refunds clawed back, as the points from sales are', async () => {
    const { merchantId, admin, api } = await shop('claw-back');
    await app.db.earningRule.create({
      data: { merchantId, name: '1 per 10', campaignType: 'purchase', earningRule: { type: 'variable', value: 1, per_amount: 10 } },
    });
    const reward = await app.db.reward.create({
      data: { merchantId, name: '500 points', rewardType: 'fixed_discount', pointsCost: 500, rewardRule: { discount_value: 5 } },
    });
    await admin.ok(SET, { point_value: 1, redemption_rate: 0.8 });
    const buyer = await newCustomer(app, merchantId, { customerId: 'buyer' });
    const other = await newCustomer(app, merchantId, { customerId: 'other' });
    // a sale of 10,000 earns 1,000 points; 500 more are given by hand
    expect((await admin.ok(RECORD_ORDER, { input: { order_id: 'o', customer_id: 'buyer', subtotal: 10_000 } })).record_order).toMatchObject(
      {
        points_awarded: 1000,
      },
    );
    expect(
      (await api.rest('POST', `/v1/customers/transactions?customer_id=${other.platformId}`, { points: 500, description: 'a gift' })).status,
    ).toBe(201);
    // a quarter refunded: 250 of the sale's points clawed back
    expect((await admin.ok(REFUND_ORDER, { input: { order_id: 'o', amount: 2500 } })).refund_order).toMatchObject({
      points_to_claw_back: 250,
      points_clawed_back: 250,
    });
    // 500 points redeemed
    expect((await api.rest('POST', `/v1/customers/rewards/redeem?customer_id=${buyer.platformId}`, { reward_id: reward.id })).status).toBe(
      201,
    );

    const { points_valuation: v } = await admin.ok(VALUATION);
    // points from sales: 1,000 - 250 = 750; of the 1,250 points issued net of the claw-back
    // (750 + 500 given), sales' share of the 500 redeemed is 500 × 750 / 1,250 = 300 (gross of
    // the claw-back it would be 500 × 1,000 / 1,500 = 333.33)
    expect(v).toMatchObject({ points_from_sales: 750, points_redeemed_from_sales: 300, points_outstanding: 750 });
    // SSP 1,000 × 1 × 0.8 = 800; allocated 7,500 × 800 / 10,800 = 555.56; expected redemptions
    // 750 × 0.8 = 600, so recognized 555.56 × 300 / 600 = 277.78: 555.56 × 300 / 750 = 222.22 for
    // the points redeemed and 55.56 breakage
    expect(v).toMatchObject({
      allocated_revenue: 555.56,
      revenue_recognized: 277.78,
      redemption_revenue: 222.22,
      breakage_revenue: 55.56,
      deferred_revenue: 277.78,
    });
  });
});

describe('without a setting', () => {
  it('derives the value from the rewards redeemed and estimates the rate from points that ended', async () => {
    const { merchantId, admin, api } = await shop('derived');
    const reward = await app.db.reward.create({
      data: { merchantId, name: '$5 off', rewardType: 'fixed_discount', pointsCost: 250, rewardRule: { discount_value: 5 } },
    });
    const spender = await newCustomer(app, merchantId, { points: 1000 });
    expect(
      (await api.rest('POST', `/v1/customers/rewards/redeem?customer_id=${spender.platformId}`, { reward_id: reward.id })).status,
    ).toBe(201);
    const lapsed = await newCustomer(app, merchantId, { points: 750 });
    expect(
      (
        await api.rest('POST', `/v1/customers/transactions?customer_id=${lapsed.platformId}`, {
          points: -750,
          description: 'not an expiry',
        })
      ).status,
    ).toBe(201);
    // no estimate computed yet: no rate
    expect((await admin.ok(VALUATION)).points_valuation).toMatchObject({
      point_value: 0.02,
      redemption_rate: null,
      redemption_rate_source: null,
      redemption_rate_estimated_at: null,
    });
    // the estimate's job
    const { computed_at } = await computeRedemptionRateEstimate(app.db, merchantId);
    const { points_valuation: none } = await admin.ok(VALUATION);
    // no points expired yet: nothing ended but redemptions, so the estimate is 1
    expect(none).toMatchObject({
      redemption_rate_estimated_at: computed_at.toISOString(),
      point_value: 0.02,
      point_value_source: 'derived',
      redemption_rate: 1,
      redemption_rate_source: 'estimated',
      points_outstanding: 750,
    });
    await app.db.$executeRaw`UPDATE customers SET last_activity_at = now() - interval '400 days' WHERE merchant_id = ${merchantId}::uuid`;
    await app.db.merchant.update({ where: { id: merchantId }, data: { pointsExpiryDays: 365 } });
    const { expirePoints } = await import('../../src/domain/ledger/expiry.js');
    expect((await expirePoints(app.db, { merchantId })).points).toBe(750);
    await computeRedemptionRateEstimate(app.db, merchantId);
    const { points_valuation: v } = await admin.ok(VALUATION);
    // 250 redeemed, 750 expired: a quarter of the points that ended were redeemed
    expect(v).toMatchObject({
      redemption_rate: 0.25,
      redemption_rate_source: 'estimated',
      points_outstanding: 0,
      liability_value: 0,
      allocated_revenue: null,
    });
  });

  it('says nothing in money when it cannot know a value', async () => {
    const { admin } = await shop('unknown');
    const { points_valuation: v } = await admin.ok(VALUATION);
    expect(v).toMatchObject({
      point_value: null,
      point_value_source: null,
      redemption_rate: null,
      liability_value: null,
      revenue_recognized: null,
      deferred_revenue: null,
    });
  });
});

describe('setting it', () => {
  it('refuses what is not a value or a share, and records each change in the audit log', async () => {
    const { admin } = await shop('settings');
    expect(await admin.fails(SET, {})).toMatchObject({ code: 'validation_error', details: { point_value: [expect.any(String)] } });
    expect(await admin.fails(SET, { redemption_rate: 1.5 })).toMatchObject({
      code: 'validation_error',
      details: { redemption_rate: [expect.any(String)] },
    });
    expect(await admin.fails(SET, { point_value: 0 })).toMatchObject({
      code: 'validation_error',
      details: { point_value: [expect.any(String)] },
    });
    await admin.ok(SET, { point_value: 0.01 });
    const kept = (await admin.ok(SET, { redemption_rate: 0.8 })).set_points_valuation;
    expect(kept).toEqual({ point_value: 0.01, point_value_source: 'set', redemption_rate: 0.8, redemption_rate_source: 'set' });
    const log = await admin.ok('{ audit_log(action: "set_points_valuation") { data { action args } } }');
    expect(log.audit_log.data.map((e: { args: unknown }) => e.args)).toEqual([{ redemption_rate: 0.8 }, { point_value: 0.01 }]);
  });
});

describe('vintages', () => {
  const VINTAGES = `{ points_vintages { timezone cohorts { cohort issued redeemed expired corrected outstanding months { month redeemed expired corrected } }
    estimated_redemption_rate estimate_cohorts } }`;

  it("follows each month's points first in, first out, and estimates the rate from the mature cohorts", async () => {
    const { merchantId, admin } = await shop('vintages');
    const [a, b, c] = [await newCustomer(app, merchantId), await newCustomer(app, merchantId), await newCustomer(app, merchantId)];
    const at = (iso: string) => new Date(iso);
    await ledgerEntryAt(app, merchantId, a.id, 100, at('2025-01-10T12:00:00Z'));
    await ledgerEntryAt(app, merchantId, b.id, 200, at('2025-01-20T12:00:00Z'));
    await ledgerEntryAt(app, merchantId, b.id, -50, at('2025-01-25T12:00:00Z')); // a manual debit
    await ledgerEntryAt(app, merchantId, a.id, 50, at('2025-02-05T12:00:00Z'));
    await ledgerEntryAt(app, merchantId, a.id, -120, at('2025-03-01T12:00:00Z'), 'redemption'); // 100 of January's, 20 of February's
    await ledgerEntryAt(app, merchantId, a.id, -30, at('2025-06-01T12:00:00Z'), 'expiry'); // the rest of February's
    await ledgerEntryAt(app, merchantId, b.id, -100, at('2026-10-01T12:00:00Z'), 'redemption');
    // this month's cohort, all redeemed: too young to count
    await ledgerEntryAt(app, merchantId, c.id, 100, new Date(Date.now() - 60_000));
    await ledgerEntryAt(app, merchantId, c.id, -100, new Date(Date.now() - 30_000), 'redemption');

    const { points_vintages: v } = await admin.ok(VINTAGES);
    const thisMonth = new Date().toISOString().slice(0, 7);
    expect(v.cohorts).toEqual([
      {
        cohort: '2025-01',
        issued: 300,
        redeemed: 200,
        expired: 0,
        corrected: 50,
        outstanding: 50,
        months: [
          { month: '2025-01', redeemed: 0, expired: 0, corrected: 50 },
          { month: '2025-03', redeemed: 100, expired: 0, corrected: 0 },
          { month: '2026-10', redeemed: 100, expired: 0, corrected: 0 },
        ],
      },
      {
        cohort: '2025-02',
        issued: 50,
        redeemed: 20,
        expired: 30,
        corrected: 0,
        outstanding: 0,
        months: [
          { month: '2025-03', redeemed: 20, expired: 0, corrected: 0 },
          { month: '2025-06', redeemed: 0, expired: 30, corrected: 0 },
        ],
      },
      {
        cohort: thisMonth,
        issued: 100,
        redeemed: 100,
        expired: 0,
        corrected: 0,
        outstanding: 0,
        months: [{ month: thisMonth, redeemed: 100, expired: 0, corrected: 0 }],
      },
    ]);
    // 220 of the 250 mature points that ended were redeemed
    expect(v.estimated_redemption_rate).toBe(0.88);
    expect(v.estimate_cohorts).toEqual(['2025-01', '2025-02']);
    // the outstanding points of every cohort are the balances
    const outstanding = v.cohorts.reduce((sum: number, x: { outstanding: number }) => sum + x.outstanding, 0);
    expect(outstanding).toBe(50);
    await computeRedemptionRateEstimate(app.db, merchantId);
    const { points_valuation: valued } = await admin.ok(VALUATION);
    expect(valued).toMatchObject({ redemption_rate: 0.88, redemption_rate_source: 'estimated', points_outstanding: 50 });
  });
});
