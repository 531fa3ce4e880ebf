// What-if replay through the admin API: a draft's points, per rule and per customer, its tiers
// and the change in liability, computed by hand; and every bad input a 4xx with the admin API's
// codes, changing nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import { recordOrder, refundOrder } from '../../src/domain/events/orders.js';
import { adminOps } from '../admin-ops.js';
import { newCustomer, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
beforeAll(async () => {
  app = await testApp();
});

const REPLAY = `query ($from: Date!, $to: Date!, $draft: JSON!, $top: Int) {
  program_replay(from: $from, to: $to, draft: $draft, top: $top) {
    timezone from to orders orders_read mismatched_orders
    issued { actual replayed draft difference }
    by_rule { id name replayed draft difference }
    by_tier { id name actual draft difference }
    tier_changes { customers moves { from_tier_id to_tier_id customers } }
    liability { actual draft change }
    customers_most_affected { customer_id actual draft difference tier_id draft_tier_id } } }`;

const today = () => new Date().toISOString().slice(0, 10);
const yesterday = () => new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

async function shop() {
  const merchant = await newMerchant(app, 'replay-api');
  const admin = adminOps(app, merchant.admin_token);
  const { create_earning_rule: rule } = await admin.ok(
    `mutation($input: EarningRuleInput!) { create_earning_rule(input: $input) { id } }`,
    {
      input: { name: 'A point a dollar', campaign_type: 'purchase', earning_rule: { type: 'variable', value: 1, per_amount: 1 } },
    },
  );
  await newCustomer(app, merchant.id, { customerId: 'a' });
  await newCustomer(app, merchant.id, { customerId: 'b' });
  await recordOrder(app.db, merchant.id, { order_id: 'a1', customer_id: 'a', subtotal: 100 });
  await recordOrder(app.db, merchant.id, { order_id: 'a2', customer_id: 'a', subtotal: 50.5 });
  await recordOrder(app.db, merchant.id, { order_id: 'b1', customer_id: 'b', subtotal: 20 });
  await refundOrder(app.db, merchant.id, { order_id: 'b1' });
  return { merchantId: merchant.id, admin, ruleId: rule.id as string };
}

const doubled = (id: string) => ({
  earning_rules: [
    { id, name: 'Two points a dollar', campaign_type: 'purchase', earning_rule: { type: 'variable', value: 2, per_amount: 1 } },
  ],
});

describe('program_replay', () => {
  it('answers a draft that doubles a rule with its points per rule and customer and the change in liability, writing nothing', async () => {
    const { merchantId, admin, ruleId } = await shop();
    const ledgerBefore = await app.db.pointsTransaction.count({ where: { merchantId } });
    const { program_replay: r } = await admin.ok(REPLAY, { from: yesterday(), to: today(), draft: doubled(ruleId), top: 1 });
    expect(r).toMatchObject({ timezone: 'UTC', orders: 3, orders_read: 3, mismatched_orders: 0 });
    expect(r.issued).toEqual({ actual: 170, replayed: 170, draft: 340, difference: 170 });
    expect(r.by_rule).toEqual([{ id: ruleId, name: 'Two points a dollar', replayed: 170, draft: 340, difference: 170 }]);
    expect(r.by_tier).toEqual([{ id: null, name: 'No tier', actual: 170, draft: 340, difference: 170 }]);
    // b's order was refunded whole: its points are owed back in both
    expect(r.liability).toEqual({ actual: 150, draft: 300, change: 150 });
    expect(r.tier_changes).toEqual({ customers: 0, moves: [] });
    expect(r.customers_most_affected).toEqual([
      { customer_id: 'a', actual: 150, draft: 300, difference: 150, tier_id: null, draft_tier_id: null },
    ]);
    expect(await app.db.pointsTransaction.count({ where: { merchantId } })).toBe(ledgerBefore);
    expect((await app.db.earningRule.findFirstOrThrow({ where: { merchantId, id: ruleId } })).name).toBe('A point a dollar');

    // an empty draft is the program as it stands
    const { program_replay: same } = await admin.ok(REPLAY, { from: yesterday(), to: today(), draft: {} });
    expect(same.issued).toEqual({ actual: 170, replayed: 170, draft: 170, difference: 0 });
    expect(same.customers_most_affected).toEqual([]);
  });

  it('judges a draft ladder: who would hold which tier, and its multiplier', async () => {
    const { admin } = await shop();
    const tiers = [
      { name: 'Member', position: 0, threshold: 0, is_default: true },
      { name: 'Big', position: 1, threshold: 100, earn_multiplier: 2 },
    ];
    const { program_replay: r } = await admin.ok(REPLAY, { from: yesterday(), to: today(), draft: { tiers } });
    // a reaches Big with its first order (100 points), so its second earns double: 50 -> 100
    expect(r.issued).toMatchObject({ actual: 170, draft: 220 });
    const names = Object.fromEntries(r.by_tier.map((t: { id: string; name: string }) => [t.name, t]));
    expect(names.Big).toMatchObject({ actual: 0, draft: 100 });
    expect(names.Member).toMatchObject({ actual: 0, draft: 120 });
    expect(r.tier_changes.customers).toBe(2);
    expect(r.customers_most_affected[0]).toMatchObject({ customer_id: 'a', actual: 150, draft: 200, tier_id: null });
  });

  it('refuses bad input with the admin API codes', async () => {
    const { admin, ruleId } = await shop();
    const range = { from: yesterday(), to: today() };
    expect(await admin.fails(REPLAY, { ...range, draft: doubled('00000000-0000-4000-8000-000000000000') })).toMatchObject({
      code: 'not_found',
    });
    const invalid = await admin.fails(REPLAY, {
      ...range,
      draft: { earning_rules: [{ id: ruleId, name: '', campaign_type: 'purchase' }], tiers: [{ name: 'X', position: -1, threshold: 0 }] },
    });
    expect(invalid.code).toBe('validation_error');
    expect(Object.keys(invalid.details!).sort()).toEqual(['draft.earning_rules.0.name', 'draft.tiers.0.position']);
    expect(await admin.fails(REPLAY, { ...range, draft: { rewards: [] } })).toMatchObject({ code: 'validation_error' });
    expect(await admin.fails(REPLAY, { from: today(), to: yesterday(), draft: {} })).toMatchObject({
      code: 'validation_error',
      details: { to: ['This must be on or after “From”: pick a later date.'] },
    });
    expect(await admin.fails(REPLAY, { from: '2020-01-01', to: today(), draft: {} })).toMatchObject({
      code: 'validation_error',
      details: { to: [expect.stringContaining('at most')] },
    });
  });
});
