// Customer rewards: GET /customers/rewards, GET /customers/rewards/redeemable,
// POST /customers/rewards/redeem.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { rewardCodes } from '../../src/domain/rewards/redemption.js';
import type { RewardType } from '../../src/generated/prisma/enums.js';
import { client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let merchantId: string;
let otherMerchantId: string;

beforeAll(async () => {
  app = await testApp();
  merchantId = (await newMerchant(app, 'rewards')).id;
  otherMerchantId = (await newMerchant(app, 'other')).id;
  api = client(app, await newKey(app, merchantId));
});

afterEach(() => {
  vi.restoreAllMocks();
});

const DAY_MS = 86_400_000;
const CODE = /^LP-[A-Z2-7]{10}$/;
const CUSTOMER_REWARD_FIELDS = ['code', 'expires_at', 'id', 'issued_at', 'points_spent', 'reward', 'status', 'used_at'];
const REWARD_FIELDS = ['created_at', 'description', 'id', 'is_active', 'name', 'points_cost', 'reward_rule', 'reward_type', 'updated_at'];

let seq = 0;
async function newReward(
  opts: {
    merchant?: string;
    cost?: number;
    active?: boolean;
    type?: RewardType;
    rule?: Record<string, string | number>;
    createdAt?: Date;
    name?: string;
  } = {},
) {
  seq += 1;
  return app.db.reward.create({
    data: {
      merchantId: opts.merchant ?? merchantId,
      name: opts.name ?? `Reward ${seq}`,
      rewardType: opts.type ?? 'fixed_discount',
      pointsCost: opts.cost ?? 100,
      rewardRule: opts.rule ?? { discount_value: 5 },
      isActive: opts.active ?? true,
      ...(opts.createdAt ? { createdAt: opts.createdAt } : {}),
    },
  });
}

const redeem = (customerId: string, body: unknown, c = api) =>
  c.rest('POST', `/v1/customers/rewards/redeem?customer_id=${encodeURIComponent(customerId)}`, body);

const balance = async (customerId: string) =>
  (await api.rest('GET', `/v1/customers/balance?customer_id=${customerId}`)).body.data.points_balance as number;

/** Everything a redemption could have written for the customer. */
async function footprint(customerId: string) {
  const [customer, transactions, activities, rewards] = await Promise.all([
    app.db.customer.findFirstOrThrow({ where: { id: customerId } }),
    app.db.pointsTransaction.count({ where: { customerId } }),
    app.db.activity.count({ where: { customerId } }),
    app.db.customerReward.count({ where: { customerId } }),
  ]);
  return {
    balance: customer.pointsBalance,
    spent: customer.pointsSpent,
    transactions,
    activities,
    rewards,
  };
}

describe('POST /v1/customers/rewards/redeem', () => {
  it('issues a code with 201, the customer-reward fields plus balance_after, and debits the balance', async () => {
    const customer = await newCustomer(app, merchantId, { points: 500 });
    const reward = await newReward({ cost: 150, name: 'Five off', rule: { discount_value: 5, expires_after_days: 30 } });
    const res = await redeem(customer.platformId, { reward_id: reward.id });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body.data).sort()).toEqual([...CUSTOMER_REWARD_FIELDS, 'balance_after'].sort());
    const data = res.body.data;
    expect(data).toMatchObject({
      reward: { id: reward.id, name: 'Five off', reward_type: 'fixed_discount' },
      status: 'issued',
      points_spent: 150,
      used_at: null,
      balance_after: 350,
    });
    expect(Object.keys(data.reward).sort()).toEqual(['id', 'name', 'reward_type']);
    expect(data.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(data.code).toMatch(CODE);
    const issuedAt = Date.parse(data.issued_at);
    expect(Math.abs(issuedAt - Date.now())).toBeLessThan(60_000);
    expect(Date.parse(data.expires_at) - issuedAt).toBe(30 * DAY_MS);
    expect(await balance(customer.platformId)).toBe(350);

    const row = await app.db.customerReward.findFirstOrThrow({ where: { id: data.id } });
    expect(row).toMatchObject({ customerId: customer.id, rewardId: reward.id, code: data.code, pointsSpent: 150 });
    const after = await app.db.customer.findFirstOrThrow({ where: { id: customer.id } });
    expect(after).toMatchObject({ pointsBalance: 350, pointsSpent: 150, pointsEarned: 500 });
  });

  it('records the redemption in the transaction history and the activity log', async () => {
    const customer = await newCustomer(app, merchantId, { points: 300 });
    const reward = await newReward({ cost: 120, name: 'Free tote', type: 'free_product', rule: { product_id: 'tote' } });
    const { body } = await redeem(customer.platformId, { reward_id: reward.id });
    const tx = await app.db.pointsTransaction.findFirstOrThrow({ where: { customerId: customer.id, source: 'redemption' } });
    expect(tx).toMatchObject({
      merchantId,
      points: -120,
      type: 'debit',
      description: 'Redeemed: Free tote',
      balanceAfter: 180,
      referenceKind: 'customer_reward',
      referenceId: body.data.id,
    });
    const activity = await app.db.activity.findFirstOrThrow({ where: { customerId: customer.id, type: 'redemption' } });
    expect(activity).toMatchObject({
      merchantId,
      description: 'Redeemed: Free tote',
      pointsChange: -120,
      balanceAfter: 180,
      status: 'approved',
      referenceKind: 'customer_reward',
      referenceId: body.data.id,
    });
    // the balance still equals the sum of the ledger
    const sum = await app.db.pointsTransaction.aggregate({ where: { customerId: customer.id }, _sum: { points: true } });
    expect(sum._sum.points).toBe(180);
  });

  it('has no expiry when the reward rule sets none, and accepts the customer by email', async () => {
    const customer = await newCustomer(app, merchantId, { points: 100 });
    const reward = await newReward({ cost: 100, type: 'free_shipping', rule: {} });
    const res = await api.rest('POST', `/v1/customers/rewards/redeem?email=${encodeURIComponent(customer.email)}`, {
      reward_id: reward.id,
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ expires_at: null, balance_after: 0, reward: { reward_type: 'free_shipping' } });
  });

  it('refuses with 422 insufficient_points and changes nothing', async () => {
    const customer = await newCustomer(app, merchantId, { points: 99 });
    const reward = await newReward({ cost: 100 });
    const before = await footprint(customer.id);
    const res = await redeem(customer.platformId, { reward_id: reward.id });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('insufficient_points');
    expect(res.body.error.message).toMatch(/100/);
    expect(await footprint(customer.id)).toEqual(before);
  });

  it('answers 404 not_found for an unknown, inactive or other merchant reward, changing nothing', async () => {
    const customer = await newCustomer(app, merchantId, { points: 1000 });
    const inactive = await newReward({ cost: 10, active: false });
    const foreign = await newReward({ cost: 10, merchant: otherMerchantId });
    const before = await footprint(customer.id);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', inactive.id, foreign.id]) {
      const res = await redeem(customer.platformId, { reward_id: id });
      expect(res.status, id).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect(await footprint(customer.id)).toEqual(before);
  });

  it('refuses an excluded customer with 422 reward_unavailable', async () => {
    const customer = await newCustomer(app, merchantId, { points: 1000 });
    await app.db.customer.updateMany({ where: { id: customer.id }, data: { status: 'excluded' } });
    const reward = await newReward({ cost: 10 });
    const before = await footprint(customer.id);
    const res = await redeem(customer.platformId, { reward_id: reward.id });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('reward_unavailable');
    expect(await footprint(customer.id)).toEqual(before);
  });

  it.each([[{}], [{ reward_id: null }], [{ reward_id: '' }], [{ reward_id: '   ' }]])(
    'answers 422 validation_error naming reward_id for %j',
    async (body) => {
      const customer = await newCustomer(app, merchantId, { points: 100 });
      const res = await redeem(customer.platformId, body);
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.details.reward_id).toEqual(expect.arrayContaining([expect.any(String)]));
    },
  );

  it('needs the customer (422) and answers 404 for an unknown one', async () => {
    const reward = await newReward({ cost: 10 });
    const missing = await api.rest('POST', '/v1/customers/rewards/redeem', { reward_id: reward.id });
    expect(missing.status).toBe(422);
    expect(missing.body.error.code).toBe('validation_error');
    expect(missing.body.error.details.customer_id).toBeDefined();
    const unknown = await redeem('nobody-here', { reward_id: reward.id });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    // another merchant's customer is unknown too
    const foreign = await newCustomer(app, otherMerchantId, { points: 100 });
    const other = await redeem(foreign.platformId, { reward_id: reward.id });
    expect(other.status).toBe(404);
    expect((await app.db.customer.findFirstOrThrow({ where: { id: foreign.id } })).pointsBalance).toBe(100);
  });

  it('retries once with a new code when the first collides, and fails cleanly on a second collision', async () => {
    const holder = await newCustomer(app, merchantId, { points: 10 });
    const reward = await newReward({ cost: 10 });
    const taken = (await redeem(holder.platformId, { reward_id: reward.id })).body.data.code as string;

    const customer = await newCustomer(app, merchantId, { points: 30 });
    const next = vi.spyOn(rewardCodes, 'next').mockReturnValueOnce(taken);
    const retried = await redeem(customer.platformId, { reward_id: reward.id });
    expect(retried.status).toBe(201);
    expect(retried.body.data.code).not.toBe(taken);
    expect(retried.body.data.code).toMatch(CODE);
    expect(next).toHaveBeenCalledTimes(2);

    const before = await footprint(customer.id);
    next.mockReturnValueOnce(taken).mockReturnValueOnce(taken);
    const refused = await redeem(customer.platformId, { reward_id: reward.id });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conflict');
    expect(await footprint(customer.id)).toEqual(before);
  });

  it('never overdraws: 30 parallel redemptions of 100 points against 1,000 → exactly 10 codes', async () => {
    const customer = await newCustomer(app, merchantId, { points: 1000 });
    const reward = await newReward({ cost: 100 });
    const send = () => redeem(customer.platformId, { reward_id: reward.id });
    const results = await Promise.all(Array.from({ length: 30 }, send));
    // on a loaded machine a request may wait past the pool's limit for a connection: 503, nothing
    // changed; sent again, as a client does, it gets its real answer
    for (const [i, first] of results.entries()) {
      let answer = first;
      for (let tries = 0; answer.status === 503 && tries < 5; tries++) {
        expect(answer.body.error.code).toBe('service_unavailable');
        answer = await send();
      }
      results[i] = answer;
    }
    const ok = results.filter((r) => r.status === 201);
    expect(ok).toHaveLength(10);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused.map((r) => [r.status, r.body.error.code])).toEqual(Array(20).fill([422, 'insufficient_points']));
    expect(await balance(customer.platformId)).toBe(0);
    const codes = ok.map((r) => r.body.data.code as string);
    expect(new Set(codes).size).toBe(10);
    expect(ok.map((r) => r.body.data.balance_after).sort((a, b) => a - b)).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900]);
    const held = await app.db.customerReward.findMany({ where: { customerId: customer.id } });
    expect(held.map((r) => r.code).sort()).toEqual([...codes].sort());
    const sum = await app.db.pointsTransaction.aggregate({ where: { customerId: customer.id }, _sum: { points: true } });
    expect(sum._sum.points).toBe(0);
    expect(await app.db.activity.count({ where: { customerId: customer.id, type: 'redemption' } })).toBe(10);
  });
});

describe('GET /v1/customers/rewards', () => {
  it('lists what the customer holds, newest first, with the exact fields and derived expiry', async () => {
    const customer = await newCustomer(app, merchantId, { points: 1000 });
    const first = await newReward({ cost: 100, name: 'First', rule: { discount_value: 5, expires_after_days: 10 } });
    const second = await newReward({ cost: 200, name: 'Second', type: 'store_credit', rule: { credit_value: 10 } });
    const a = (await redeem(customer.platformId, { reward_id: first.id })).body.data;
    const b = (await redeem(customer.platformId, { reward_id: second.id })).body.data;
    const c = (await redeem(customer.platformId, { reward_id: first.id })).body.data;
    const now = Date.now();
    // a: issued long ago, past its expiry; b: used; c: still issued
    await app.db.customerReward.updateMany({
      where: { id: a.id },
      data: { issuedAt: new Date(now - 20 * DAY_MS), expiresAt: new Date(now - 10 * DAY_MS) },
    });
    await app.db.customerReward.updateMany({
      where: { id: b.id },
      data: { status: 'used', usedAt: new Date(now - 1000), issuedAt: new Date(now - 2 * DAY_MS) },
    });
    // someone else's rewards never show
    const other = await newCustomer(app, merchantId, { points: 100 });
    await redeem(other.platformId, { reward_id: first.id });

    const res = await api.rest('GET', `/v1/customers/rewards?customer_id=${customer.platformId}`);
    expect(res.status).toBe(200);
    expect(res.body.meta.pagination).toEqual({ current_page: 1, per_page: 20, total: 3, last_page: 1, has_more: false });
    const data = res.body.data;
    expect(data.map((r: { id: string }) => r.id)).toEqual([c.id, b.id, a.id]);
    for (const item of data) expect(Object.keys(item).sort()).toEqual(CUSTOMER_REWARD_FIELDS);
    expect(data[0]).toEqual({
      id: c.id,
      reward: { id: first.id, name: 'First', reward_type: 'fixed_discount' },
      code: c.code,
      status: 'issued',
      points_spent: 100,
      issued_at: c.issued_at,
      expires_at: c.expires_at,
      used_at: null,
    });
    expect(data[1]).toMatchObject({ status: 'used', reward: { name: 'Second', reward_type: 'store_credit' } });
    expect(data[1].used_at).toEqual(expect.any(String));
    expect(data[2]).toMatchObject({ status: 'expired', code: a.code });
  });

  it('still shows a reward deactivated after it was issued, and pages', async () => {
    const customer = await newCustomer(app, merchantId, { points: 300 });
    const reward = await newReward({ cost: 100 });
    for (let i = 0; i < 3; i++) await redeem(customer.platformId, { reward_id: reward.id });
    await app.db.reward.updateMany({ where: { id: reward.id }, data: { isActive: false } });
    const page2 = await api.rest('GET', `/v1/customers/rewards?customer_id=${customer.platformId}&per_page=2&page=2`);
    expect(page2.status).toBe(200);
    expect(page2.body.data).toHaveLength(1);
    expect(page2.body.meta.pagination).toEqual({ current_page: 2, per_page: 2, total: 3, last_page: 2, has_more: false });
    const bad = await api.rest('GET', `/v1/customers/rewards?customer_id=${customer.platformId}&per_page=101`);
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.per_page).toBeDefined();
  });

  it('needs the customer (422) and answers 404 for an unknown one', async () => {
    const missing = await api.rest('GET', '/v1/customers/rewards');
    expect(missing.status).toBe(422);
    expect(missing.body.error.details.customer_id).toBeDefined();
    const unknown = await api.rest('GET', '/v1/customers/rewards?customer_id=nobody-here');
    expect(unknown.status).toBe(404);
  });
});

describe('GET /v1/customers/rewards/redeemable', () => {
  it('lists affordable active rewards, cheapest first then newest, as catalogue rewards', async () => {
    const merchant = (await newMerchant(app, 'redeemable')).id;
    const key = client(app, await newKey(app, merchant));
    const customer = await newCustomer(app, merchant, { points: 250 });
    const t0 = Date.now() - 10 * DAY_MS;
    const cheapOld = await newReward({ merchant, cost: 50, createdAt: new Date(t0) });
    const cheapNew = await newReward({ merchant, cost: 50, createdAt: new Date(t0 + DAY_MS) });
    const exact = await newReward({ merchant, cost: 250, createdAt: new Date(t0 - DAY_MS) });
    const mid = await newReward({ merchant, cost: 120, type: 'percentage_discount', rule: { discount_value: 10 } });
    await newReward({ merchant, cost: 251 }); // too expensive
    await newReward({ merchant, cost: 10, active: false }); // inactive
    await newReward({ merchant: otherMerchantId, cost: 1 }); // another merchant's

    const res = await key.rest('GET', `/v1/customers/rewards/redeemable?customer_id=${customer.platformId}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: { id: string }) => r.id)).toEqual([cheapNew.id, cheapOld.id, mid.id, exact.id]);
    expect(res.body.meta.pagination).toEqual({ current_page: 1, per_page: 20, total: 4, last_page: 1, has_more: false });
    for (const item of res.body.data) expect(Object.keys(item).sort()).toEqual(REWARD_FIELDS);
    expect(res.body.data[2]).toMatchObject({
      reward_type: 'percentage_discount',
      points_cost: 120,
      is_active: true,
      reward_rule: { points_required: 120, discount_value: 10 },
    });

    const paged = await key.rest('GET', `/v1/customers/rewards/redeemable?email=${customer.email}&per_page=3&page=2`);
    expect(paged.body.data.map((r: { id: string }) => r.id)).toEqual([exact.id]);
    expect(paged.body.meta.pagination).toMatchObject({ total: 4, last_page: 2, has_more: false });

    // after spending (250 - 120 = 130 left), the list follows the balance
    await redeem(customer.platformId, { reward_id: mid.id }, key);
    const after = await key.rest('GET', `/v1/customers/rewards/redeemable?customer_id=${customer.platformId}`);
    expect(after.body.data.map((r: { id: string }) => r.id)).toEqual([cheapNew.id, cheapOld.id, mid.id]);
  });

  it('is empty for an excluded customer and for one with no points', async () => {
    await newReward({ cost: 1 });
    const excluded = await newCustomer(app, merchantId, { points: 10_000 });
    await app.db.customer.updateMany({ where: { id: excluded.id }, data: { status: 'excluded' } });
    const broke = await newCustomer(app, merchantId);
    for (const c of [excluded, broke]) {
      const res = await api.rest('GET', `/v1/customers/rewards/redeemable?customer_id=${c.platformId}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: [],
        meta: { pagination: { current_page: 1, per_page: 20, total: 0, last_page: 1, has_more: false } },
      });
    }
  });

  it('needs the customer (422) and answers 404 for an unknown one', async () => {
    const missing = await api.rest('GET', '/v1/customers/rewards/redeemable');
    expect(missing.status).toBe(422);
    expect(missing.body.error.details.customer_id).toBeDefined();
    const unknown = await api.rest('GET', '/v1/customers/rewards/redeemable?email=nobody@example.com');
    expect(unknown.status).toBe(404);
  });
});

describe('scopes', () => {
  it('read:rewards reads but cannot redeem (403 naming write:rewards)', async () => {
    const reader = client(app, await newKey(app, merchantId, 'custom', { rewards: 'read' }));
    const customer = await newCustomer(app, merchantId, { points: 100 });
    const reward = await newReward({ cost: 10 });
    expect((await reader.rest('GET', `/v1/customers/rewards?customer_id=${customer.platformId}`)).status).toBe(200);
    expect((await reader.rest('GET', `/v1/customers/rewards/redeemable?customer_id=${customer.platformId}`)).status).toBe(200);
    const before = await footprint(customer.id);
    const res = await redeem(customer.platformId, { reward_id: reward.id }, reader);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
    expect(res.body.error.message).toContain('write:rewards');
    const gql = await reader.gql(`mutation ($c: String, $r: ID!) { redeem_reward(customer_id: $c, reward_id: $r) { data { code } } }`, {
      c: customer.platformId,
      r: reward.id,
    });
    expect(gql.body.errors?.[0].extensions.code).toBe('insufficient_scope');
    expect(gql.body.errors?.[0].message).toContain('write:rewards');
    expect(await footprint(customer.id)).toEqual(before);
  });

  it('write:rewards reads and redeems; a key without rewards gets 403 naming read:rewards', async () => {
    const writer = client(app, await newKey(app, merchantId, 'custom', { rewards: 'write' }));
    const customer = await newCustomer(app, merchantId, { points: 100 });
    const reward = await newReward({ cost: 10 });
    expect((await redeem(customer.platformId, { reward_id: reward.id }, writer)).status).toBe(201);
    const list = await writer.rest('GET', `/v1/customers/rewards?customer_id=${customer.platformId}`);
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect((await writer.rest('GET', `/v1/customers/rewards/redeemable?customer_id=${customer.platformId}`)).status).toBe(200);

    const stranger = client(app, await newKey(app, merchantId, 'custom', { customers: 'write' }));
    for (const path of ['/v1/customers/rewards', '/v1/customers/rewards/redeemable']) {
      const res = await stranger.rest('GET', `${path}?customer_id=${customer.platformId}`);
      expect(res.status).toBe(403);
      expect(res.body.error.message).toContain('read:rewards');
    }
  });
});

describe('GraphQL', () => {
  const REDEEM = `mutation ($c: String, $e: String, $r: ID!) {
    redeem_reward(customer_id: $c, email: $e, reward_id: $r) {
      data { id code status points_spent balance_after issued_at expires_at used_at reward { id name reward_type } }
    } }`;

  it('redeems and lists the same records, with error codes in extensions', async () => {
    const customer = await newCustomer(app, merchantId, { points: 150 });
    const reward = await newReward({ cost: 100, name: 'GQL reward' });
    const ok = await api.gql(REDEEM, { e: customer.email, r: reward.id });
    expect(ok.body.errors).toBeUndefined();
    const data = ok.body.data.redeem_reward.data;
    expect(data).toMatchObject({ status: 'issued', points_spent: 100, balance_after: 50, reward: { name: 'GQL reward' } });
    expect(data.code).toMatch(CODE);

    const refused = await api.gql(REDEEM, { c: customer.platformId, r: reward.id });
    expect(refused.body.errors?.[0].extensions.code).toBe('insufficient_points');
    const unknown = await api.gql(REDEEM, { c: customer.platformId, r: '00000000-0000-4000-8000-000000000000' });
    expect(unknown.body.errors?.[0].extensions.code).toBe('not_found');

    const lists = await api.gql(
      `query ($c: String) {
        customer_rewards(customer_id: $c) { data { id code status } meta { pagination { total } } }
        redeemable_rewards(customer_id: $c) { data { id points_cost } }
      }`,
      { c: customer.platformId },
    );
    expect(lists.body.data.customer_rewards).toEqual({
      data: [{ id: data.id, code: data.code, status: 'issued' }],
      meta: { pagination: { total: 1 } },
    });
    // 50 points left: only rewards of this merchant costing <= 50
    for (const r of lists.body.data.redeemable_rewards.data) expect(r.points_cost).toBeLessThanOrEqual(50);
  });

  it('never overdraws under concurrency either: 30 parallel mutations, 10 succeed', async () => {
    const customer = await newCustomer(app, merchantId, { points: 1000 });
    const reward = await newReward({ cost: 100 });
    const results = await Promise.all(Array.from({ length: 30 }, () => api.gql(REDEEM, { c: customer.platformId, r: reward.id })));
    const ok = results.filter((r) => r.body.data?.redeem_reward);
    expect(ok).toHaveLength(10);
    const codes = results.flatMap((r) => r.body.errors?.map((e: { extensions: { code: string } }) => e.extensions.code) ?? []);
    expect(codes).toEqual(Array(20).fill('insufficient_points'));
    expect(new Set(ok.map((r) => r.body.data.redeem_reward.data.code)).size).toBe(10);
    expect(await balance(customer.platformId)).toBe(0);
    expect(await app.db.customerReward.count({ where: { customerId: customer.id } })).toBe(10);
  });
});
