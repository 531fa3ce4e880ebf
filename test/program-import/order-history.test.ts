// A merchant's past orders brought with the import (the admin API's import_program, the CLI's
// import): history by default (they count for tiers by the time they were placed and issue no
// points), or earning as late orders when the merchant asks; never twice.
import { beforeAll, describe, expect, it } from 'vitest';
import { rejudgeChangedMerchants } from '../../src/domain/tiers/rejudge.js';
import { adminOps, RECORD_ORDER } from '../admin-ops.js';
import { client, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
beforeAll(async () => {
  app = await testApp();
});

const IMPORT = `mutation ($file: JSON!, $award: Boolean) {
  import_program(file: $file, award_points: $award) { customers tiers orders orders_skipped points_awarded points_imported } }`;
const thisYear = new Date().getUTCFullYear();
/** Mid-June of a year, at noon UTC: the same local day in any zone the tests use. */
const june = (year: number, day = 15) => `${year}-06-${String(day).padStart(2, '0')}T12:00:00Z`;

async function shop(label: string) {
  const merchant = await newMerchant(app, label);
  const admin = adminOps(app, merchant.admin_token);
  const api = client(app, await newKey(app, merchant.id));
  return { merchantId: merchant.id, admin, api };
}

const program = (orders: unknown[]) => ({
  customers: [
    { customer_id: 'ada', email: 'ada@example.com' },
    { customer_id: 'bob', email: 'bob@example.com', points_balance: 100 },
  ],
  earning_rules: [{ name: 'A point a dollar', campaign_type: 'purchase', earning_rule: { type: 'variable', value: 1, per_amount: 1 } }],
  tiers: [
    { name: 'Member', position: 0, threshold: 0, is_default: true },
    { name: 'Gold', position: 1, threshold: 500, qualification: 'amount_spent', window: 'calendar_year', earn_multiplier: 2 },
  ],
  orders,
});

describe('past orders as history', () => {
  it('count for tiers in the window of their placed time and issue no points', async () => {
    const s = await shop('history');
    const orders = [
      // last year's 900 are not this year's Gold
      { order_id: 'a-1', customer_id: 'ada', subtotal: 900, placed_at: june(thisYear - 1) },
      { order_id: 'b-1', customer_id: 'bob', subtotal: 300, placed_at: `${thisYear}-01-02T12:00:00Z`, currency: 'usd' },
      {
        order_id: 'b-2',
        customer_id: 'bob',
        subtotal: 250,
        placed_at: `${thisYear}-01-03T12:00:00Z`,
        line_items: [{ product_id: 'tea', quantity: 5, price: 50 }],
      },
    ];
    const imported = (await s.admin.ok(IMPORT, { file: program(orders) })).import_program;
    expect(imported).toEqual({ customers: 2, tiers: 2, orders: 3, orders_skipped: 0, points_awarded: 0, points_imported: 100 });
    const rows = await app.db.order.findMany({
      where: { merchantId: s.merchantId },
      include: { lines: true },
      orderBy: { placedAt: 'asc' },
    });
    expect(rows.map((o) => [o.platformOrderId, o.history, o.pointsAwarded, o.placedAt.toISOString()])).toEqual([
      ['a-1', true, 0, new Date(june(thisYear - 1)).toISOString()],
      ['b-1', true, 0, new Date(`${thisYear}-01-02T12:00:00Z`).toISOString()],
      ['b-2', true, 0, new Date(`${thisYear}-01-03T12:00:00Z`).toISOString()],
    ]);
    expect(rows[2]!.lines.map((l) => [l.productId, l.quantity, Number(l.price)])).toEqual([['tea', 5, 50]]);
    // only the opening balance is in the ledger
    const bob = await s.api.rest('GET', '/v1/customers/balance?customer_id=bob');
    expect(bob.body.data).toMatchObject({ points_balance: 100, points_earned: 100 });
    expect((await s.api.rest('GET', '/v1/customers/transactions?customer_id=ada')).body.data).toEqual([]);
    // the import marked the tiers changed: the tier-changes job judges the history
    await rejudgeChangedMerchants(app.db, new Date(), { merchantId: s.merchantId });
    const tierOf = async (id: string) => (await s.api.rest('GET', `/v1/customers/tiers?customer_id=${id}`)).body.data;
    expect(await tierOf('bob')).toMatchObject({ current_tier: { name: 'Gold' }, progress: { value: 550 } });
    expect(await tierOf('ada')).toMatchObject({ current_tier: { name: 'Member' }, progress: { value: 0 } });
    const customer = await app.db.customer.findFirstOrThrow({ where: { merchantId: s.merchantId, platformId: 'ada' } });
    expect(Number(customer.amountSpent)).toBe(900);

    // sent again, by an import or as an order: left as they were, never earning
    const again = (await s.admin.ok(IMPORT, { file: { orders: orders.slice(0, 2) } })).import_program;
    expect(again).toMatchObject({ orders: 0, orders_skipped: 2, points_awarded: 0 });
    const resent = await s.admin.ok(RECORD_ORDER, { input: { order_id: 'b-1', customer_id: 'bob', subtotal: 300 } });
    expect(resent.record_order).toMatchObject({ points_awarded: 0, replayed: true, transaction_id: null });
    expect((await s.api.rest('GET', '/v1/customers/balance?customer_id=bob')).body.data.points_balance).toBe(100);
    expect(await app.db.order.count({ where: { merchantId: s.merchantId } })).toBe(3);
  });

  it('refuses a file with a bad order whole, naming each problem', async () => {
    const s = await shop('history-bad');
    const ahead = new Date(Date.now() + 3_600_000).toISOString();
    const res = await s.admin.fails(IMPORT, {
      file: program([
        { order_id: 'x-1', customer_id: 'nobody', subtotal: 10, placed_at: june(thisYear - 1) },
        { order_id: 'x-2', customer_id: 'ada', subtotal: 10, placed_at: ahead },
        { order_id: 'x-3', customer_id: 'ada', subtotal: 10, placed_at: june(thisYear - 1), currency: 'EUR' },
        { order_id: 'x-3', customer_id: 'ada', subtotal: 10, placed_at: june(thisYear - 1) },
        { order_id: 'x-5', customer_id: 'ada', subtotal: -1 },
        { order_id: 'x-6', customer_id: 'ada', subtotal: 10, placed_at: june(thisYear - 1), points: 5 },
      ]),
    });
    expect(res.code).toBe('validation_error');
    expect(Object.keys(res.details!).sort()).toEqual([
      'orders.0.customer_id',
      'orders.1.placed_at',
      'orders.2.currency',
      'orders.3.order_id',
      'orders.4.placed_at',
      'orders.4.subtotal',
      'orders.5.points',
    ]);
    // all or nothing: not even the customers
    expect(await app.db.customer.count({ where: { merchantId: s.merchantId } })).toBe(0);
    expect(await app.db.order.count({ where: { merchantId: s.merchantId } })).toBe(0);
  });
});

describe('past orders that earn points', () => {
  it('earn as late orders do, oldest first, by the program in force when placed, and only once', async () => {
    const s = await shop('history-award');
    await s.admin.ok(`mutation { update_merchant_settings(late_earning_days: 36500) { id } }`);
    const file = {
      ...program([
        { order_id: 'a-3', customer_id: 'ada', subtotal: 100, placed_at: june(thisYear - 1, 20) },
        { order_id: 'a-1', customer_id: 'ada', subtotal: 300, placed_at: june(thisYear - 1, 10) },
        { order_id: 'a-2', customer_id: 'ada', subtotal: 250, placed_at: june(thisYear - 1, 12) },
      ]),
      booster_campaigns: [
        {
          name: 'Double mid-June',
          multiplier: 2,
          campaign_types: ['purchase'],
          starts_at: june(thisYear - 1, 11),
          ends_at: june(thisYear - 1, 13),
        },
      ],
    };
    const imported = (await s.admin.ok(IMPORT, { file, award: true })).import_program;
    // in placed order: 300, 250 × 2 (the booster), 100; each at the default tier (the customers' memberships start at the import)
    expect(imported).toMatchObject({ orders: 3, orders_skipped: 0, points_awarded: 300 + 500 + 100 });
    const transactions = (await s.api.rest('GET', '/v1/customers/transactions?customer_id=ada')).body.data;
    expect(transactions.map((t: { points: number; placed_at: string }) => [t.points, t.placed_at])).toEqual([
      [100, new Date(june(thisYear - 1, 20)).toISOString()],
      [500, new Date(june(thisYear - 1, 12)).toISOString()],
      [300, new Date(june(thisYear - 1, 10)).toISOString()],
    ]);
    expect(await app.db.order.count({ where: { merchantId: s.merchantId, history: true } })).toBe(0);
    // the same orders again: nothing more
    const again = (await s.admin.ok(IMPORT, { file: { orders: file.orders }, award: true })).import_program;
    expect(again).toMatchObject({ orders: 0, orders_skipped: 3, points_awarded: 0 });
    expect((await s.api.rest('GET', '/v1/customers/balance?customer_id=ada')).body.data.points_balance).toBe(900);
  });

  it('refuses, before writing anything, an order placed longer ago than the late earning days', async () => {
    const s = await shop('history-award-old');
    const res = await s.admin.fails(IMPORT, {
      file: program([{ order_id: 'old', customer_id: 'ada', subtotal: 10, placed_at: june(thisYear - 3) }]),
      award: true,
    });
    expect(res.details?.['orders.0.placed_at']?.[0]).toMatch(/more than 365 days ago/);
    expect(await app.db.customer.count({ where: { merchantId: s.merchantId } })).toBe(0);
    // as history it is taken
    const history = (
      await s.admin.ok(IMPORT, { file: program([{ order_id: 'old', customer_id: 'ada', subtotal: 10, placed_at: june(thisYear - 3) }]) })
    ).import_program;
    expect(history.orders).toBe(1);
  });
});
