// Finance with orders recorded after they were placed: docs/finance.md, "Orders placed in one
// period and recorded in another", worked by hand. A shop in New York records today three orders
// placed around the night daylight saving time ended (1 November 2026, 02:00 EDT → 01:00 EST), and
// imports one more from that weekend as history. Each earns as it would have then; the ledger
// (the roll-forward) shows their points today, when it recorded them; the orders report's placed
// view and the what-if replay put them in the days they were placed.
import { beforeAll, describe, expect, it } from 'vitest';
import { adminOps, RECORD_ORDER } from '../admin-ops.js';
import { newCustomer, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
let admin: ReturnType<typeof adminOps>;
const ZONE = 'America/New_York';
/** Today in New York: the day the orders are recorded. */
const today = () => new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(new Date());

const PERIODS = `query ($from: Date!, $to: Date!, $by: ReportTime) {
  order_periods(from: $from, to: $to, grouping: day, by: $by) {
    grouped_by periods { label start end orders sales points_awarded late_orders late_points history_orders history_sales }
    total { orders sales points_awarded late_orders history_orders } } }`;
const LIABILITY = `query ($from: Date!, $to: Date!) {
  points_liability(from: $from, to: $to, grouping: day) { grouped_by periods { label issued { orders } } total { issued { orders } } } }`;
const REPLAY = `query ($from: Date!, $to: Date!, $draft: JSON!) {
  program_replay(from: $from, to: $to, draft: $draft) {
    grouped_by orders history_orders mismatched_orders issued { actual replayed draft difference } } }`;

beforeAll(async () => {
  app = await testApp();
  const merchant = await newMerchant(app, 'late-finance');
  admin = adminOps(app, merchant.admin_token);
  await admin.ok(`mutation { update_merchant_settings(timezone: "${ZONE}", late_earning_days: 36500) { id } }`);
  const rule = (input: Record<string, unknown>) =>
    admin.ok(`mutation ($input: EarningRuleInput!) { create_earning_rule(input: $input) { id } }`, {
      input: { campaign_type: 'purchase', ...input },
    });
  await rule({ name: 'A point a dollar', earning_rule: { type: 'variable', value: 1, per_amount: 1 } });
  await rule({
    name: 'First order of the day',
    earning_rule: { type: 'fixed', value: 10 },
    conditions: { limit: { count: 1, period: 'day' } },
  });
  // Halloween, a local day: 31 October 00:00 EDT to 1 November 00:00 EDT
  await admin.ok(`mutation ($input: BoosterCampaignInput!) { create_booster_campaign(input: $input) { id } }`, {
    input: {
      name: 'Halloween',
      multiplier: 2,
      campaign_types: ['purchase'],
      starts_at: '2026-10-31T04:00:00Z',
      ends_at: '2026-11-01T04:00:00Z',
    },
  });
  const c = await newCustomer(app, merchant.id, { customerId: 'ny-1' });
  const order = async (order_id: string, created_at: string) =>
    (await admin.ok(RECORD_ORDER, { input: { order_id, customer_id: c.platformId, subtotal: 40, created_at } })).record_order
      .points_awarded;
  // A: Saturday 31 October, 23:30 EDT: Halloween's booster and the day's first order: (40 + 10) × 2
  expect(await order('A', '2026-10-31T23:30:00-04:00')).toBe(100);
  // B: Sunday 1 November, 01:30 EDT, before the clocks go back: the day's first order
  expect(await order('B', '2026-11-01T01:30:00-04:00')).toBe(50);
  // C: 01:30 again, now EST, an hour later: the same local day, its first-order slot taken
  expect(await order('C', '2026-11-01T01:30:00-05:00')).toBe(40);
  // H: Saturday noon, from the system the shop used before: history
  const imported = await admin.ok(`mutation ($file: JSON!) { import_program(file: $file) { orders } }`, {
    file: { orders: [{ order_id: 'H', customer_id: 'ny-1', subtotal: 60, placed_at: '2026-10-31T12:00:00-04:00' }] },
  });
  expect(imported.import_program.orders).toBe(1);
});

describe('an order placed before a daylight-saving change and recorded after it', () => {
  it('is in the ledger on the day it was recorded: the roll-forward groups by recorded time', async () => {
    const then = (await admin.ok(LIABILITY, { from: '2026-10-31', to: '2026-11-01' })).points_liability;
    expect(then.grouped_by).toBe('recorded');
    expect(then.total.issued.orders).toBe(0);
    const now = (await admin.ok(LIABILITY, { from: today(), to: today() })).points_liability;
    expect(now.total.issued.orders).toBe(190);
  });

  it('is in the day it was placed in the placed view, a 25-hour day for the night the clocks went back', async () => {
    const placed = (await admin.ok(PERIODS, { from: '2026-10-31', to: '2026-11-01' })).order_periods;
    expect(placed.grouped_by).toBe('placed');
    expect(placed.periods).toEqual([
      {
        label: '2026-10-31',
        start: '2026-10-31T04:00:00.000Z',
        end: '2026-11-01T04:00:00.000Z',
        orders: 2,
        sales: 100,
        points_awarded: 100,
        late_orders: 1,
        late_points: 100,
        history_orders: 1,
        history_sales: 60,
      },
      {
        label: '2026-11-01',
        start: '2026-11-01T04:00:00.000Z',
        end: '2026-11-02T05:00:00.000Z',
        orders: 2,
        sales: 80,
        points_awarded: 90,
        late_orders: 2,
        late_points: 90,
        history_orders: 0,
        history_sales: 0,
      },
    ]);
    expect(placed.total).toEqual({ orders: 4, sales: 180, points_awarded: 190, late_orders: 3, history_orders: 1 });
    // by recorded time the four are today's, three of them placed before it
    const recorded = (await admin.ok(PERIODS, { from: today(), to: today(), by: 'recorded' })).order_periods;
    expect(recorded.grouped_by).toBe('recorded');
    expect(recorded.total).toEqual({ orders: 4, sales: 180, points_awarded: 190, late_orders: 3, history_orders: 1 });
  });

  it('is replayed with the days it was placed in; the history, earning nothing as recorded, earns under the draft', async () => {
    const weekend = (await admin.ok(REPLAY, { from: '2026-10-31', to: '2026-11-01', draft: {} })).program_replay;
    // H under the program as it stands: 60 × 2 (its day's first-order slot went to A, recorded first)
    expect(weekend).toEqual({
      grouped_by: 'placed',
      orders: 4,
      history_orders: 1,
      mismatched_orders: 0,
      issued: { actual: 190, replayed: 190, draft: 310, difference: 120 },
    });
    const sunday = (await admin.ok(REPLAY, { from: '2026-11-01', to: '2026-11-01', draft: {} })).program_replay;
    expect(sunday).toMatchObject({ orders: 2, issued: { actual: 90, replayed: 90, draft: 90 } });
    // recorded today, none was placed today
    expect((await admin.ok(REPLAY, { from: today(), to: today(), draft: {} })).program_replay.orders).toBe(0);
  });
});
