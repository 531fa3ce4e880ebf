// What the admin app needs from the admin API: the scopes and their levels, a
// customer's page (tier progress, activity log, transactions), a manual adjustment with its
// reason that moves points once per Idempotency-Key (a double click), and the dashboard.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { scopeLevels } from '../../src/domain/access/scopes.js';
import { applyPoints } from '../../src/domain/ledger/ledger.js';
import { messages } from '../../src/domain/shared/messages.js';
import { adminClient, adminSession, newCustomer, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
let merchant: Awaited<ReturnType<typeof newMerchant>>;
let admin: ReturnType<typeof adminClient>;

beforeAll(async () => {
  app = await testApp();
  merchant = await newMerchant(app, 'app-api');
  admin = adminClient(app, merchant.admin_token);
});

const ADJUST = `mutation ($id: ID!, $points: Int!, $description: String!) {
  adjust_points(id: $id, points: $points, description: $description) { transaction_id balance_after customer { points_balance } }
}`;

describe('api_scopes', () => {
  it('lists every scope with exactly the levels of spec section 5', async () => {
    const { body } = await admin('{ api_scopes { scope levels } }');
    expect(Object.fromEntries(body.data.api_scopes.map((s: any) => [s.scope, s.levels]))).toEqual(scopeLevels);
  });
});

describe('adjust_points', () => {
  it('credits and debits with a reason shown in the activity log, and refuses a debit below zero', async () => {
    const customer = await newCustomer(app, merchant.id, { points: 100 });
    const credit = await admin(ADJUST, { id: customer.platformId, points: 50, description: 'Goodwill' });
    expect(credit.body.data.adjust_points).toMatchObject({ balance_after: 150, customer: { points_balance: 150 } });
    const overdraw = await admin(ADJUST, { id: customer.id, points: -500, description: 'Too much' });
    expect(overdraw.body.errors![0].extensions.code).toBe('adjustment_failed');
    const invalid = await admin(ADJUST, { id: customer.id, points: 0, description: ' ' });
    expect(invalid.body.errors![0].extensions.details).toEqual({ points: [messages.notZero], description: [messages.required] });
    const log = await admin(
      `query ($id: ID!) { customer_activities(id: $id, per_page: 5) { data { type description points_change balance_after } meta { pagination { total } } } }`,
      { id: customer.id },
    );
    expect(log.body.data.customer_activities.data[0]).toEqual({
      type: 'adjustment',
      description: 'Goodwill',
      points_change: 50,
      balance_after: 150,
    });
    const history = await admin(`query ($id: ID!) { customer_transactions(id: $id) { data { points source description } } }`, {
      id: customer.id,
    });
    expect(history.body.data.customer_transactions.data.map((t: any) => t.points)).toEqual([50, 100]);
  });

  it('moves points once for one Idempotency-Key, sent twice at once or one after the other (a double click)', async () => {
    const customer = await newCustomer(app, merchant.id, { points: 10 });
    const session = await adminSession(app, merchant.admin_token);
    const key = randomUUID();
    const variables = { id: customer.id, points: 25, description: 'Double click' };
    const both = await Promise.all([
      session(ADJUST, variables, { 'idempotency-key': key }),
      session(ADJUST, variables, { 'idempotency-key': key }),
    ]);
    const statuses = both.map((r) => r.status).sort();
    // the second is either the first's answer replayed or told that the first is still running
    expect([
      [200, 200],
      [200, 409],
    ]).toContainEqual(statuses);
    const again = await session(ADJUST, variables, { 'idempotency-key': key });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.adjust_points.balance_after).toBe(35);
    const row = await app.db.customer.findFirstOrThrow({ where: { id: customer.id } });
    expect(row.pointsBalance).toBe(35);
    expect(await app.db.pointsTransaction.count({ where: { customerId: customer.id, source: 'manual' } })).toBe(1);
    // the same key for another adjustment is refused
    const reused = await session(ADJUST, { ...variables, points: 99 }, { 'idempotency-key': key });
    expect(reused.body.errors![0].extensions.code).toBe('idempotency_key_reused');
  });
});

describe("a customer's tier", () => {
  it('shows the current tier and the progress to the next', async () => {
    const own = await newMerchant(app, 'tiers');
    await app.db.tier.createMany({
      data: [
        { merchantId: own.id, name: 'Bronze', position: 0, threshold: 0, isDefault: true },
        { merchantId: own.id, name: 'Silver', position: 1, threshold: 500 },
      ],
    });
    const customer = await newCustomer(app, own.id, { points: 200 });
    const { body } = await adminClient(app, own.admin_token)(
      `query ($id: ID!) { customer_tier(id: $id) { current_tier { name } next_tier { name } progress { value next_threshold remaining } } }`,
      { id: customer.platformId },
    );
    expect(body.data.customer_tier).toEqual({
      current_tier: { name: 'Bronze' },
      next_tier: { name: 'Silver' },
      progress: { value: 200, next_threshold: 500, remaining: 300 },
    });
  });
});

describe('dashboard', () => {
  it('sums points issued, redeemed and expired per period, members per tier, the redemption rate and the top rewards', async () => {
    const own = await newMerchant(app, 'dash');
    const gold = await app.db.tier.create({ data: { merchantId: own.id, name: 'Gold', position: 0, threshold: 0 } });
    const a = await newCustomer(app, own.id, { points: 1000 });
    const b = await newCustomer(app, own.id, { points: 500 });
    await app.db.customer.updateMany({ where: { id: a.id }, data: { tierId: gold.id } });
    const debit = (customerId: string, points: number, source: 'redemption' | 'expiry') =>
      applyPoints(app.db, { merchantId: own.id, customerId, points: -points, description: source, source, activityType: source });
    await debit(a.id, 300, 'redemption');
    await debit(b.id, 100, 'expiry');
    const reward = await app.db.reward.create({
      data: { merchantId: own.id, name: '$5 off', rewardType: 'fixed_discount', pointsCost: 300, rewardRule: { discount_value: 5 } },
    });
    await app.db.customerReward.create({
      data: { merchantId: own.id, customerId: a.id, rewardId: reward.id, code: 'CODE1', pointsSpent: 300 },
    });
    // a credit of 40 days ago is outside the last 30 days
    await app.db.pointsTransaction.create({
      data: {
        merchantId: own.id,
        customerId: b.id,
        points: 7,
        type: 'credit',
        description: 'old',
        source: 'manual',
        balanceAfter: 0,
        createdAt: new Date(Date.now() - 40 * 86_400_000),
      },
    });
    const { body } = await adminClient(
      app,
      own.admin_token,
    )(`{
      dashboard {
        bucket series { period_start issued redeemed expired }
        points_issued points_redeemed points_expired redemption_rate members
        members_per_tier { tier_name customers } top_rewards { name redemptions points_spent }
      }
    }`);
    const d = body.data.dashboard;
    expect(d.bucket).toBe('day');
    expect(d.series).toHaveLength(30);
    expect(d.series.at(-1)).toMatchObject({ issued: 1500, redeemed: 300, expired: 100 });
    expect(d).toMatchObject({ points_issued: 1500, points_redeemed: 300, points_expired: 100, redemption_rate: 0.2, members: 2 });
    expect(d.members_per_tier).toEqual([
      { tier_name: 'No tier', customers: 1 },
      { tier_name: 'Gold', customers: 1 },
    ]);
    expect(d.top_rewards).toEqual([{ name: '$5 off', redemptions: 1, points_spent: 300 }]);
    const year = await adminClient(app, own.admin_token)('{ dashboard(range: last_12_months) { bucket series { issued } points_issued } }');
    expect(year.body.data.dashboard.bucket).toBe('month');
    expect(year.body.data.dashboard.points_issued).toBe(1507);
  });
});
