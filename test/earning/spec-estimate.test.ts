// POST /points/estimate: the points a cart will earn.
import { beforeAll, describe, expect, it } from 'vitest';
import { createPrisma } from '../../src/db/client.js';
import { scopeLevels, scopeNames } from '../../src/domain/access/scopes.js';
import { createApp } from '../../src/http/app.js';
import { adminClient, client, newCustomer, newKey, newMerchant, type TestApp, testApp, testConfig, untilCached } from '../harness.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let merchantId: string;
const ids: Record<string, string> = {};

const HOUR = 3_600_000;

beforeAll(async () => {
  app = await testApp();
  merchantId = (await newMerchant(app, 'estimate')).id;
  api = client(app, await newKey(app, merchantId));
  const rule = (name: string, earningRule: object, conditions?: object) =>
    app.db.earningRule.create({ data: { merchantId, name, campaignType: 'purchase', earningRule, conditions } });
  ids.perDollar = (await rule('1 point per $1', { type: 'variable', value: 1, per_amount: 1 })).id;
  ids.bigOrder = (await rule('Big order bonus', { type: 'fixed', value: 50 }, { min_order_subtotal: 200 })).id;
  ids.shoes = (await rule('Shoes: 2 per $10', { type: 'variable', value: 2, per_amount: 10 }, { product_ids: ['shoe'] })).id;
  // never counted: another campaign type, inactive, or not started yet
  await app.db.earningRule.create({
    data: { merchantId, name: 'Signup', campaignType: 'signup', earningRule: { type: 'fixed', value: 500 } },
  });
  await app.db.earningRule.create({
    data: { merchantId, name: 'Off', campaignType: 'purchase', earningRule: { type: 'fixed', value: 999 }, isActive: false },
  });
  await rule('Later', { type: 'fixed', value: 777 }, { starts_at: new Date(Date.now() + 24 * HOUR).toISOString() });

  ids.gold = (await app.db.tier.create({ data: { merchantId, name: 'Gold', position: 1, threshold: 1_000_000, earnMultiplier: 1.5 } })).id;
  ids.booster = (
    await app.db.boosterCampaign.create({
      data: {
        merchantId,
        name: 'Weekend 2x',
        multiplier: 2,
        campaignTypes: ['purchase'],
        startsAt: new Date(Date.now() - HOUR),
        endsAt: new Date(Date.now() + HOUR),
      },
    })
  ).id;
  await app.db.boosterCampaign.create({
    data: { merchantId, name: 'Reviews 3x', multiplier: 3, campaignTypes: ['review'], startsAt: new Date(Date.now() - HOUR) },
  });
});

const estimate = (body: unknown, key = api) => key.rest('POST', '/v1/points/estimate', body);

describe('POST /v1/points/estimate', () => {
  it('answers 200 in the contract shape, rules + booster, in the shop currency', async () => {
    const res = await estimate({ subtotal: 120 });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(Object.keys(res.body.data).sort()).toEqual(['base_points', 'bonus_points', 'breakdown', 'currency', 'points']);
    // base 120 (1 per $1); the 2x booster adds (2 − 1) × 120
    expect(res.body.data).toEqual({
      points: 240,
      base_points: 120,
      bonus_points: 120,
      currency: 'USD',
      breakdown: [
        { source: 'earning_rule', id: ids.perDollar, name: '1 point per $1', points: 120 },
        { source: 'booster', id: ids.booster, name: 'Weekend 2x', points: 120 },
      ],
    });
  });

  it('applies min_order_subtotal and product conditions from line items, rounding down', async () => {
    const res = await estimate({
      subtotal: 245.5,
      currency: 'usd',
      line_items: [
        { product_id: 'shoe', quantity: 2, price: 49.99 },
        { product_id: 'hat', quantity: 1, price: 145.52 },
      ],
    });
    expect(res.status).toBe(200);
    // 245 + 50 (subtotal ≥ 200) + floor(99.98 / 10) × 2 = 18 → base 313; booster doubles
    expect(res.body.data).toMatchObject({ points: 626, base_points: 313, bonus_points: 313, currency: 'USD' });
    expect(res.body.data.breakdown.map((b: { id: string; points: number }) => [b.id, b.points])).toEqual([
      [ids.perDollar, 245],
      [ids.bigOrder, 50],
      [ids.shoes, 18],
      [ids.booster, 313],
    ]);
  });

  it("applies the customer's tier multiplier (tier then boosters: base × 1.5 × 2)", async () => {
    const customer = await newCustomer(app, merchantId);
    await app.db.customer.updateMany({ where: { id: customer.id }, data: { tierId: ids.gold } });
    const res = await estimate({ customer_id: customer.platformId, subtotal: 33 });
    expect(res.status).toBe(200);
    // 33 × 1.5 = 49.5; × 2 = 99
    expect(res.body.data).toMatchObject({ points: 99, base_points: 33, bonus_points: 66 });
    expect(res.body.data.breakdown).toEqual([
      { source: 'earning_rule', id: ids.perDollar, name: '1 point per $1', points: 33 },
      { source: 'tier', id: ids.gold, name: 'Gold', points: 16 },
      { source: 'booster', id: ids.booster, name: 'Weekend 2x', points: 50 },
    ]);
  });

  it('answers zero for an empty cart', async () => {
    const res = await estimate({ subtotal: 0 });
    expect(res.body.data).toMatchObject({ points: 0, base_points: 0, bonus_points: 0, breakdown: [] });
  });

  it('is the same query over GraphQL', async () => {
    const res = await api.gql(
      `query ($items: [LineItemInput!]) { points_estimate(subtotal: 20, line_items: $items) {
        data { points base_points bonus_points currency breakdown { source id name points } } } }`,
      { items: [{ product_id: 'shoe', quantity: 1, price: 20 }] },
    );
    expect(res.body.errors).toBeUndefined();
    // 20 + floor(20 / 10) × 2 = 24, doubled
    expect(res.body.data.points_estimate.data).toMatchObject({ points: 48, base_points: 24, currency: 'USD' });
  });

  it('answers 404 not_found for an unknown customer, or one of another merchant', async () => {
    const unknown = await estimate({ customer_id: 'nobody', subtotal: 10 });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    const other = await newMerchant(app, 'other');
    const foreign = await newCustomer(app, other.id);
    const res = await estimate({ customer_id: foreign.platformId, subtotal: 10 });
    expect(res.status).toBe(404);
  });

  it("never uses another merchant's rules", async () => {
    const other = await newMerchant(app, 'other');
    const otherApi = client(app, await newKey(app, other.id));
    const res = await estimate({ subtotal: 500 }, otherApi);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ points: 0, breakdown: [] });
  });

  it.each([
    [{}, 'subtotal'],
    [{ subtotal: -1 }, 'subtotal'],
    [{ subtotal: '12' }, 'subtotal'],
    [{ subtotal: 10, currency: 'EUR' }, 'currency'],
    [{ subtotal: 10, currency: 'dollars' }, 'currency'],
    [{ subtotal: 10, customer_id: '' }, 'customer_id'],
    [{ subtotal: 10, line_items: [{ product_id: 'a', quantity: 0, price: 1 }] }, 'line_items.0.quantity'],
    [{ subtotal: 10, line_items: [{ product_id: 'a', quantity: 1, price: -1 }] }, 'line_items.0.price'],
    [{ subtotal: 10, line_items: [{ product_id: 'a', quantity: 1.5, price: 1 }] }, 'line_items'],
    [{ subtotal: 10, line_items: [{ quantity: 1, price: 1 }] }, 'line_items'],
  ])('rejects %j with 422 validation_error naming %s', async (body, field) => {
    const res = await estimate(body);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details[field]).toEqual(expect.arrayContaining([expect.any(String)]));
  });

  it('answers 422 for a body that is not JSON', async () => {
    const res = await estimate('{"subtotal": ');
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_error');
  });

  it('needs read:points: allowed with exactly that scope, 403 with every other scope', async () => {
    const only = client(app, await newKey(app, merchantId, 'custom', { points: 'read' }));
    expect((await estimate({ subtotal: 5 }, only)).status).toBe(200);
    const others = Object.fromEntries(scopeNames.filter((s) => s !== 'points').map((s) => [s, scopeLevels[s].at(-1)!]));
    const without = client(app, await newKey(app, merchantId, 'custom', others));
    const res = await estimate({ subtotal: 5 }, without);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
    expect(res.body.error.message).toContain('read:points');
    const gql = await without.gql('{ points_estimate(subtotal: 5) { data { points } } }');
    expect(gql.body.errors?.[0].extensions.code).toBe('insufficient_scope');
  });

  it('answers 401 invalid_token without a valid key', async () => {
    const res = await client(app, 'lpk_nope').rest('POST', '/v1/points/estimate', { subtotal: 1 });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_token');
  });
});

describe('points that would overflow the ledger', () => {
  it('refuses a cart that earns more than the maximum balance with 422, for the estimate and for the order', async () => {
    const shop = await newMerchant(app, 'overflow');
    const shopApi = client(app, await newKey(app, shop.id));
    await app.db.earningRule.create({
      data: {
        merchantId: shop.id,
        name: 'Absurd',
        campaignType: 'purchase',
        earningRule: { type: 'variable', value: 1_000_000, per_amount: 0.01 },
      },
    });
    const customer = await newCustomer(app, shop.id);
    const estimate = await shopApi.rest('POST', '/v1/points/estimate', { subtotal: 999_999_999, customer_id: customer.platformId });
    expect(estimate.status).toBe(422);
    expect(estimate.body.error.details.subtotal).toEqual([expect.stringContaining('maximum')]);
    const tooBig = await shopApi.rest('POST', '/v1/points/estimate', { subtotal: 1e12 });
    expect(tooBig.status).toBe(422);
    const { recordOrder } = await import('../../src/domain/events/orders.js');
    await expect(
      recordOrder(app.db, shop.id, { order_id: 'huge', customer_id: customer.platformId, subtotal: 999_999_999 }),
    ).rejects.toMatchObject({ code: 'validation_error' });
    expect((await app.db.customer.findFirstOrThrow({ where: { id: customer.id } })).pointsBalance).toBe(0);
  });

  it('answers in the currency the shop has now, on every instance, once the admin API changes it', async () => {
    const shop = await newMerchant(app, 'recurrency');
    const key = await newKey(app, shop.id);
    const otherDb = createPrisma(app.url, 2);
    const other = createApp({ db: otherDb, databaseUrl: app.url, config: testConfig() });
    try {
      const on = (instance: Pick<TestApp, 'fetch'>) => client({ ...app, fetch: instance.fetch }, key);
      const otherApi = on({ fetch: (path, init) => other.fetch(`http://loyalty.test${path}`, init) });
      const currencyOn = async (api: ReturnType<typeof client>) =>
        (await api.rest('POST', '/v1/points/estimate', { subtotal: 10 })).body.data.currency;
      const setQuietly = (currency: string) => app.db.$executeRaw`UPDATE merchants SET currency = ${currency} WHERE id = ${shop.id}::uuid`;
      // the other instance keeps the merchant's settings once its feed is up
      await untilCached(
        () => currencyOn(otherApi),
        setQuietly,
        (cached) => (cached === 'USD' ? 'GBP' : 'USD'),
      );
      const admin = adminClient(app, shop.admin_token);
      const set = await admin('mutation { update_merchant_settings(currency: "EUR") { currency } }');
      expect(set.body.errors).toBeUndefined();
      // here at once; elsewhere when the change's notification arrives
      expect(await currencyOn(on(app))).toBe('EUR');
      await expect.poll(() => currencyOn(otherApi), { timeout: 10_000 }).toBe('EUR');
      const refused = await otherApi.rest('POST', '/v1/points/estimate', { subtotal: 10, currency: 'USD' });
      expect(refused.status).toBe(422);
    } finally {
      await other.close();
      await otherDb.$disconnect();
    }
  });

  it('answers with the rules and boosters the merchant has now, on every instance, once the admin API changes them', async () => {
    const shop = await newMerchant(app, 'reruled');
    const key = await newKey(app, shop.id);
    const admin = adminClient(app, shop.admin_token);
    const mutate = async (document: string) => {
      const res = await admin(document);
      expect(res.body.errors).toBeUndefined();
      return Object.values(res.body.data as Record<string, { id: string }>)[0]!.id;
    };
    const rule = await mutate(
      'mutation { create_earning_rule(input: { name: "Per dollar", campaign_type: purchase, earning_rule: { type: "variable", value: 1, per_amount: 1 } }) { id } }',
    );
    const otherDb = createPrisma(app.url, 2);
    const other = createApp({ db: otherDb, databaseUrl: app.url, config: testConfig() });
    try {
      const on = (instance: Pick<TestApp, 'fetch'>) => client({ ...app, fetch: instance.fetch }, key);
      const here = on(app);
      const otherApi = on({ fetch: (path, init) => other.fetch(`http://loyalty.test${path}`, init) });
      const pointsOn = async (api: ReturnType<typeof client>) =>
        (await api.rest('POST', '/v1/points/estimate', { subtotal: 100 })).body.data.points as number;
      const valueQuietly = (points: number) =>
        app.db
          .$executeRaw`UPDATE earning_rules SET earning_rule = jsonb_build_object('type', 'variable', 'value', ${points / 100}::numeric, 'per_amount', 1) WHERE id = ${rule}::uuid`;
      // both instances keep the program, rules with it, once their feeds are up
      for (const api of [here, otherApi])
        await untilCached(
          () => pointsOn(api),
          valueQuietly,
          (cached) => (cached === 100 ? 200 : 100),
        );
      await valueQuietly(100);
      const bothAnswer = async (points: number) => {
        // here at once; elsewhere when the change's notification arrives
        expect(await pointsOn(here)).toBe(points);
        await expect.poll(() => pointsOn(otherApi), { timeout: 10_000 }).toBe(points);
      };
      await mutate(
        `mutation { update_earning_rule(id: "${rule}", input: { earning_rule: { type: "variable", value: 3, per_amount: 1 } }) { id } }`,
      );
      await bothAnswer(300);
      const booster = await mutate(
        `mutation { create_booster_campaign(input: { name: "Double", multiplier: 2, campaign_types: [purchase], starts_at: "${new Date(Date.now() - HOUR).toISOString()}" }) { id } }`,
      );
      await bothAnswer(600);
      await mutate(`mutation { deactivate_booster_campaign(id: "${booster}") { id } }`);
      await bothAnswer(300);
      await mutate(`mutation { deactivate_earning_rule(id: "${rule}") { id } }`);
      await bothAnswer(0);
    } finally {
      await other.close();
      await otherDb.$disconnect();
    }
  });
});
