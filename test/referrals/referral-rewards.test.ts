// A completed referral issues the referee's reward, and refunding the order that completed it
// claws the referrer's points back. Driven as the merchant's integration
// does (admin API: program, referral, orders, refunds), read back through REST.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { reverseReferral } from '../../src/domain/referrals/referrals.js';
import { adminOps, RECORD_ORDER, RECORD_REFERRAL, REFUND_ORDER } from '../admin-ops.js';
import { client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
beforeAll(async () => {
  app = await testApp();
});

const DAY = 86_400_000;
const SET_PROGRAM = `mutation ($input: ReferralProgramInput!) { set_referral_program(input: $input) { is_active } }`;

/** A merchant with a referral program (500 points; the friend gets $10 off, valid 30 days; min $50) and 1 point per $1. */
async function shop() {
  const merchant = await newMerchant(app, 'referral-rewards');
  const admin = adminOps(app, merchant.admin_token);
  const api = client(app, await newKey(app, merchant.id));
  await admin.ok(SET_PROGRAM, {
    input: {
      referrer_reward: { points: 500 },
      referee_reward: { reward_type: 'fixed_discount', reward_rule: { discount_value: 10, expires_after_days: 30 } },
      min_order_subtotal: 50,
    },
  });
  await app.db.earningRule.create({
    data: {
      merchantId: merchant.id,
      name: '1 per $1',
      campaignType: 'purchase',
      earningRule: { type: 'variable', value: 1, per_amount: 1 },
    },
  });
  const order = async (customer_id: string, order_id: string, subtotal: number) =>
    (await admin.ok(RECORD_ORDER, { input: { order_id, customer_id, subtotal } })).record_order;
  const refund = async (order_id: string, amount?: number, event_id?: string) =>
    (await admin.ok(REFUND_ORDER, { input: { order_id, amount, event_id } })).refund_order;
  /** A referrer and the friend it referred (now a customer). */
  const pair = async (opts: { referrerPoints?: number } = {}) => {
    const referrer = await newCustomer(app, merchant.id, { points: opts.referrerPoints });
    const email = `friend-${randomUUID().slice(0, 8)}@example.com`;
    await admin.ok(RECORD_REFERRAL, { input: { referrer_code: referrer.referralCode, referee_email: email } });
    const friend = await newCustomer(app, merchant.id, { email });
    return { referrer, friend };
  };
  const balance = async (customerId: string) =>
    (await api.rest('GET', `/v1/customers/balance?customer_id=${customerId}`)).body.data.points_balance as number;
  const referralOf = async (referrerId: string) =>
    (await api.rest('GET', `/v1/customers/referrals?customer_id=${referrerId}`)).body.data[0];
  const heldRewards = async (customerId: string) =>
    (await api.rest('GET', `/v1/customers/rewards?customer_id=${customerId}`)).body.data as {
      id: string;
      reward: { id: string; name: string; reward_type: string };
      code: string;
      status: string;
      points_spent: number;
      issued_at: string;
      expires_at: string | null;
    }[];
  return { merchant, admin, api, order, refund, pair, balance, referralOf, heldRewards };
}

describe("the referee's reward", () => {
  it('is a code of the referee reward’s type, costing no points, issued once when the referral completes', async () => {
    const { merchant, api, admin, order, pair, balance, heldRewards } = await shop();
    const { referrer, friend } = await pair();
    await order(friend.platformId, 'small', 49); // under the minimum: no completion, no code
    expect(await heldRewards(friend.platformId)).toEqual([]);

    await order(friend.platformId, 'first', 60);
    await order(friend.platformId, 'first', 60); // replayed
    await order(friend.platformId, 'second', 80);
    const held = await heldRewards(friend.platformId);
    expect(held).toHaveLength(1);
    const [code] = held;
    expect(code).toMatchObject({
      reward: { name: 'Referral reward', reward_type: 'fixed_discount' },
      code: expect.stringMatching(/^LP-[A-Z2-7]{10}$/),
      status: 'issued',
      points_spent: 0,
    });
    const validFor = new Date(code!.expires_at!).getTime() - new Date(code!.issued_at).getTime();
    expect(Math.round(validFor / DAY)).toBe(30);
    // webhooks: the referral completed; the code was given, not redeemed
    const events = await app.db.outboxEvent.findMany({ where: { merchantId: merchant.id } });
    expect(events.filter((e) => e.type === 'referral.completed')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'reward.redeemed')).toEqual([]);
    // the friend paid nothing for it; the referrer got its points
    expect(await balance(friend.platformId)).toBe(49 + 60 + 80);
    expect(await balance(referrer.platformId)).toBe(500);
    const activities = await api.rest('GET', `/v1/customers/activities?customer_id=${friend.platformId}&per_page=100`);
    expect(activities.body.data).toContainEqual(
      expect.objectContaining({ type: 'referral', points_change: 0, reference: { kind: 'customer_reward', id: code!.id } }),
    );

    // not a catalogue reward: not listed, not found, not redeemable, not editable
    expect((await api.rest('GET', '/v1/rewards')).body.data).toEqual([]);
    expect((await api.rest('GET', `/v1/rewards/${code!.reward.id}`)).status).toBe(404);
    const redeem = await api.rest('POST', `/v1/customers/rewards/redeem?customer_id=${friend.platformId}`, { reward_id: code!.reward.id });
    expect(redeem.status).toBe(404);
    expect((await admin.ok('{ rewards { data { id } } }')).rewards.data).toEqual([]);
    const activate = await admin.fails('mutation ($id: ID!) { activate_reward(id: $id) { id } }', { id: code!.reward.id });
    expect(activate.code).toBe('not_found');
  });

  it('follows the program: codes issued after a change of the referee reward have the new type, earlier ones keep theirs', async () => {
    const { admin, order, pair, heldRewards } = await shop();
    const first = await pair();
    await order(first.friend.platformId, 'a-1', 50);
    await admin.ok(SET_PROGRAM, {
      input: { referrer_reward: { points: 500 }, referee_reward: { reward_type: 'free_shipping', reward_rule: {} } },
    });
    const second = await pair();
    await order(second.friend.platformId, 'b-1', 50);
    const [before] = await heldRewards(first.friend.platformId);
    const [after] = await heldRewards(second.friend.platformId);
    expect(before!.reward.reward_type).toBe('fixed_discount');
    expect(after!.reward.reward_type).toBe('free_shipping');
    expect(after!.expires_at).toBeNull();
  });

  it('is issued once, and the referrer credited once, when qualifying orders arrive at once', async () => {
    const { order, pair, balance, heldRewards, referralOf } = await shop();
    const { referrer, friend } = await pair();
    await Promise.all(['x-1', 'x-2', 'x-3', 'x-4'].map((id) => order(friend.platformId, id, 50)));
    expect(await heldRewards(friend.platformId)).toHaveLength(1);
    expect(await balance(referrer.platformId)).toBe(500);
    expect(await referralOf(referrer.platformId)).toMatchObject({ status: 'completed', referrer_points: 500 });
  });
});

describe('refunding the order that completed a referral', () => {
  it('claws the referrer’s points back once it no longer qualifies, once', async () => {
    const { api, order, refund, pair, balance, referralOf } = await shop();
    const { referrer, friend } = await pair();
    await order(friend.platformId, 'q-1', 80);
    expect(await balance(referrer.platformId)).toBe(500);

    // 80 → 60 left: still at least the $50 minimum, the referral stands
    expect(await refund('q-1', 20, 'rf-1')).toMatchObject({ points_clawed_back: 20, referrer_points_clawed_back: 0 });
    expect(await balance(referrer.platformId)).toBe(500);
    // 60 → 40 left: under the minimum, reversed
    const reversed = await refund('q-1', 20, 'rf-2');
    expect(reversed).toMatchObject({ points_clawed_back: 20, referrer_points_clawed_back: 500, replayed: false });
    expect(await balance(referrer.platformId)).toBe(0);
    expect(await referralOf(referrer.platformId)).toMatchObject({ status: 'rejected', order_id: 'q-1' });
    // a replay answers the same and takes nothing again; a later refund of the rest neither
    expect(await refund('q-1', 20, 'rf-2')).toEqual({ ...reversed, replayed: true });
    expect(await refund('q-1', undefined, 'rf-3')).toMatchObject({ referrer_points_clawed_back: 0, fully_refunded: true });
    expect(await balance(referrer.platformId)).toBe(0);
    const transactions = await api.rest('GET', `/v1/customers/transactions?customer_id=${referrer.platformId}`);
    expect(transactions.body.data.map((t: { points: number; source: string }) => [t.points, t.source])).toEqual([
      [-500, 'referral'],
      [500, 'referral'],
    ]);
  });

  it('leaves other orders’ refunds alone', async () => {
    const { order, refund, pair, balance } = await shop();
    const { referrer, friend } = await pair();
    await order(friend.platformId, 'before', 10);
    await order(friend.platformId, 'completing', 50);
    await order(friend.platformId, 'after', 70);
    await refund('before');
    await refund('after');
    expect(await balance(referrer.platformId)).toBe(500);
    expect((await refund('completing')).referrer_points_clawed_back).toBe(500);
    expect(await balance(referrer.platformId)).toBe(0);
  });

  it('never takes the referrer below zero: the shortfall is noted in its activity log', async () => {
    const { api, order, refund, pair, balance } = await shop();
    const { referrer, friend } = await pair();
    await order(friend.platformId, 'spent-1', 50);
    const spend = await api.rest('POST', `/v1/customers/transactions?customer_id=${referrer.platformId}`, {
      points: -400,
      description: 'Spent',
    });
    expect(spend.status).toBe(201);
    expect((await refund('spent-1')).referrer_points_clawed_back).toBe(100);
    expect(await balance(referrer.platformId)).toBe(0);
    const [latest] = (await api.rest('GET', `/v1/customers/activities?customer_id=${referrer.platformId}`)).body.data;
    expect(latest).toMatchObject({ type: 'referral', points_change: -100 });
    expect(latest.description).toMatch(/400 points could not be reversed/);
  });

  it('claws back once when refunds of that order arrive at once', async () => {
    const s = await shop();
    const { referrer, friend } = await s.pair({ referrerPoints: 1000 });
    await s.order(friend.platformId, 'race', 100);
    const refunds = await Promise.all([
      s.refund('race', 60, 'race-a'),
      s.refund('race', 60, 'race-b'),
      s.refund('race', undefined, 'race-c'),
    ]);
    expect(refunds.reduce((sum, r) => sum + r.referrer_points_clawed_back, 0)).toBe(500);
    expect(refunds.reduce((sum, r) => sum + r.points_clawed_back, 0)).toBe(100);
    expect(await s.balance(referrer.platformId)).toBe(1000);
    expect(await s.balance(friend.platformId)).toBe(0);
    const debits = await app.db.pointsTransaction.count({ where: { customerId: referrer.id, source: 'referral', type: 'debit' } });
    expect(debits).toBe(1);
  });

  it('reverses once when several reversals of a refunded order run at once', async () => {
    const s = await shop();
    const { referrer, friend } = await s.pair({ referrerPoints: 1000 });
    await s.order(friend.platformId, 'many', 100);
    // the order refunded in full as a refund's reservation leaves it, then its reversals all at once
    const order = await app.db.order.update({
      where: { merchantId_platformOrderId: { merchantId: s.merchant.id, platformOrderId: 'many' } },
      data: { refundedAmount: 100 },
    });
    const reversals = await Promise.all(Array.from({ length: 6 }, () => reverseReferral(app.db, s.merchant.id, order.id)));
    expect(reversals.filter(Boolean)).toEqual([{ referral_id: expect.any(String), points_clawed_back: 500 }]);
    expect(await s.balance(referrer.platformId)).toBe(1000);
  });
});
