// What-if replay of rules limited to products: an order's line items are kept with it, so the
// replay hands the calculator the cart the engine judged and pays what the engine paid, order by
// order; a draft that moves a rule to other products changes exactly those lines' points; an
// order kept without its lines (recorded before they were kept) replays as a cart without them.
import { beforeAll, describe, expect, it } from 'vitest';
import { type ReplayOrder, replayProgram } from '../../src/domain/finance/replay.js';
import { adminOps, RECORD_ORDER, REFUND_ORDER } from '../admin-ops.js';
import { newCustomer, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
beforeAll(async () => {
  app = await testApp();
});

const REPLAY = `query ($from: Date!, $to: Date!, $draft: JSON!) {
  program_replay(from: $from, to: $to, draft: $draft) {
    orders mismatched_orders issued { actual replayed draft difference } by_rule { id replayed draft } } }`;

const today = () => new Date().toISOString().slice(0, 10);
const yesterday = () => new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

/** A seeded generator: the same history every run. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A shop earning a point a dollar, five a dollar on shoes, ten for a cart that is not only gift cards, all doubled by a booster. */
async function shop(label: string) {
  const merchant = await newMerchant(app, label);
  const admin = adminOps(app, merchant.admin_token);
  const rule = async (input: Record<string, unknown>) =>
    (
      await admin.ok(`mutation($input: EarningRuleInput!) { create_earning_rule(input: $input) { id } }`, {
        input: { campaign_type: 'purchase', ...input },
      })
    ).create_earning_rule.id as string;
  const base = await rule({ name: 'A point a dollar', earning_rule: { type: 'variable', value: 1, per_amount: 1 } });
  const shoes = await rule({
    name: 'Shoes',
    earning_rule: { type: 'variable', value: 5, per_amount: 1 },
    conditions: { product_ids: ['shoe'] },
  });
  const notGifts = await rule({
    name: 'Not gift cards',
    earning_rule: { type: 'fixed', value: 10 },
    conditions: { excluded_product_ids: ['gift'] },
  });
  await admin.ok(`mutation($input: BoosterCampaignInput!) { create_booster_campaign(input: $input) { id } }`, {
    input: { name: 'Double week', multiplier: 2, campaign_types: ['purchase'], starts_at: new Date(Date.now() - 86_400_000).toISOString() },
  });
  return { merchantId: merchant.id, admin, rules: { base, shoes, notGifts } };
}

describe('a replay of rules limited to products', () => {
  it('pays what the engine paid, order by order, over a seeded history with refunds', async () => {
    const { merchantId, admin, rules } = await shop('replay-lines');
    const rnd = random(35);
    const products = [
      { id: 'shoe', price: 49.99 },
      { id: 'sock', price: 4.5 },
      { id: 'gift', price: 25 },
      { id: 'hat', price: 17.25 },
    ];
    for (let i = 0; i < 5; i++) await newCustomer(app, merchantId, { customerId: `c${i}` });
    for (let i = 0; i < 30; i++) {
      const count = 1 + Math.floor(rnd() * 3);
      const line_items = Array.from({ length: count }, () => {
        const p = products[Math.floor(rnd() * products.length)]!;
        return { product_id: p.id, quantity: 1 + Math.floor(rnd() * 2), price: p.price };
      });
      const subtotal = Math.round(line_items.reduce((sum, l) => sum + l.price * 100 * l.quantity, 0)) / 100;
      // a few orders come without lines: the engine pays them nothing for shoes, and so does the replay
      const input = { order_id: `o${i}`, customer_id: `c${i % 5}`, subtotal, ...(i % 7 === 6 ? {} : { line_items }) };
      await admin.ok(RECORD_ORDER, { input });
      if (rnd() < 0.2) await admin.ok(REFUND_ORDER, { input: { order_id: `o${i}`, amount: rnd() < 0.5 ? null : 10 } });
    }

    const credits = await app.db.pointsTransaction.findMany({
      where: { merchantId, referenceKind: 'order', type: 'credit' },
      select: { referenceId: true, points: true },
    });
    const credited = new Map(credits.map((c) => [c.referenceId, c.points]));
    const replayed: ReplayOrder[] = [];
    await replayProgram(app.db, merchantId, { from: yesterday(), to: today(), draft: {} }, { onOrder: (o) => replayed.push(o) });
    expect(replayed).toHaveLength(30);
    const differing = replayed.filter((o) => o.replayed.points !== (credited.get(o.order_id) ?? 0) || o.replayed.points !== o.recorded);
    expect(differing.map((o) => o.order_id)).toEqual([]);
    const shoePoints = replayed.flatMap((o) => o.replayed.breakdown).filter((e) => e.id === rules.shoes);
    expect(shoePoints.length).toBeGreaterThan(5);

    const { program_replay: r } = await admin.ok(REPLAY, { from: yesterday(), to: today(), draft: {} });
    expect(r.orders).toBe(30);
    expect(r.mismatched_orders).toBe(0);
    const total = [...credited.values()].reduce((a, b) => a + b, 0);
    expect(r.issued).toEqual({ actual: total, replayed: total, draft: total, difference: 0 });
    expect(r.by_rule.find((x: { id: string }) => x.id === rules.shoes).replayed).toBeGreaterThan(0);
  });

  it('changes what a draft moving the rule to other products changes, and replays an order kept without lines as a cart without them', async () => {
    const { merchantId, admin, rules } = await shop('replay-lines-draft');
    await newCustomer(app, merchantId, { customerId: 'a' });
    const line_items = [
      { product_id: 'shoe', quantity: 2, price: 30 },
      { product_id: 'sock', quantity: 1, price: 10.5 },
    ];
    // (70 + 5 × 60 + 10) × 2
    const { record_order: first } = await admin.ok(RECORD_ORDER, {
      input: { order_id: 'a1', customer_id: 'a', subtotal: 70.5, line_items },
    });
    expect(first.points_awarded).toBe(760);
    const shoesOnSocks = {
      earning_rules: [
        {
          id: rules.base,
          name: 'A point a dollar',
          campaign_type: 'purchase',
          earning_rule: { type: 'variable', value: 1, per_amount: 1 },
        },
        {
          id: rules.shoes,
          name: 'Shoes',
          campaign_type: 'purchase',
          earning_rule: { type: 'variable', value: 5, per_amount: 1 },
          conditions: { product_ids: ['sock'] },
        },
        {
          id: rules.notGifts,
          name: 'Not gift cards',
          campaign_type: 'purchase',
          earning_rule: { type: 'fixed', value: 10 },
          conditions: { excluded_product_ids: ['gift'] },
        },
      ],
    };
    const range = { from: yesterday(), to: today() };
    const { program_replay: r } = await admin.ok(REPLAY, { ...range, draft: shoesOnSocks });
    // under the draft: (70 + 5 × 10 + 10) × 2 (10.50 of socks earns 5 × 10)
    expect(r).toMatchObject({ orders: 1, mismatched_orders: 0, issued: { actual: 760, replayed: 760, draft: 260, difference: -500 } });
    // by rule: the rule's own points, before the booster
    expect(r.by_rule.find((x: { id: string }) => x.id === rules.shoes)).toEqual({ id: rules.shoes, replayed: 300, draft: 50 });

    // an order whose lines were never kept (recorded before they were): the replay judges the
    // subtotal alone, as an order sent without lines: nothing for shoes, the rest as recorded
    await app.db.orderLine.deleteMany({ where: { merchantId } });
    const { program_replay: legacy } = await admin.ok(REPLAY, { ...range, draft: {} });
    expect(legacy).toMatchObject({ orders: 1, mismatched_orders: 1, issued: { actual: 760, replayed: 160, draft: 160 } });
  });
});
