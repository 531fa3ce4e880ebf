// VIP tiers: GET /tiers, GET /customers/tiers, GET /customers/memberships (the contract's shapes).
import { beforeAll, describe, expect, it } from 'vitest';
import { reevaluateTier } from '../../src/domain/tiers/standing.js';
import type { Tier } from '../../src/generated/prisma/client.js';
import { client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let merchantId: string;
let bronze: Tier;
let silver: Tier;
let gold: Tier;

const TIER_FIELDS = [
  'benefits',
  'created_at',
  'description',
  'earn_multiplier',
  'id',
  'is_default',
  'name',
  'position',
  'qualification',
  'threshold',
  'window',
].sort();
const MEMBERSHIP_FIELDS = ['ended_at', 'expires_at', 'id', 'source', 'started_at', 'status', 'tier_id', 'tier_name'];
const PAGINATION_FIELDS = ['current_page', 'has_more', 'last_page', 'per_page', 'total'];

beforeAll(async () => {
  app = await testApp();
  merchantId = (await newMerchant(app, 'tiers')).id;
  api = client(app, await newKey(app, merchantId));
  // created out of order: the list must follow position, not creation
  gold = await app.db.tier.create({
    data: {
      merchantId,
      name: 'Gold',
      description: 'Our best customers',
      position: 3,
      threshold: 1000,
      earnMultiplier: 1.5,
      benefits: ['Free shipping', 'Early access'],
    },
  });
  bronze = await app.db.tier.create({ data: { merchantId, name: 'Bronze', position: 1, threshold: 0, isDefault: true } });
  silver = await app.db.tier.create({
    data: { merchantId, name: 'Silver', position: 2, threshold: 500, earnMultiplier: 1.25, benefits: ['Birthday gift'] },
  });
});

const status = (customerId: string) => api.rest('GET', `/v1/customers/tiers?customer_id=${encodeURIComponent(customerId)}`);

describe('GET /v1/tiers', () => {
  it('lists the tiers by position with exactly the designed fields', async () => {
    const res = await api.rest('GET', '/v1/tiers');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'meta']);
    expect(res.body.data.map((t: { name: string }) => t.name)).toEqual(['Bronze', 'Silver', 'Gold']);
    for (const tier of res.body.data) expect(Object.keys(tier).sort()).toEqual(TIER_FIELDS);
    expect(res.body.data[2]).toEqual({
      id: gold.id,
      name: 'Gold',
      description: 'Our best customers',
      position: 3,
      threshold: 1000,
      qualification: 'points_earned',
      window: 'lifetime',
      earn_multiplier: 1.5,
      benefits: ['Free shipping', 'Early access'],
      is_default: false,
      created_at: gold.createdAt.toISOString(),
    });
    expect(res.body.data[0]).toMatchObject({ description: null, earn_multiplier: 1, benefits: [], is_default: true });
    expect(res.body.meta.pagination).toEqual({ current_page: 1, per_page: 20, total: 3, last_page: 1, has_more: false });
  });

  it('paginates', async () => {
    const first = await api.rest('GET', '/v1/tiers?per_page=2');
    expect(first.body.data.map((t: { id: string }) => t.id)).toEqual([bronze.id, silver.id]);
    expect(first.body.meta.pagination).toEqual({ current_page: 1, per_page: 2, total: 3, last_page: 2, has_more: true });
    const second = await api.rest('GET', '/v1/tiers?per_page=2&page=2');
    expect(second.body.data.map((t: { id: string }) => t.id)).toEqual([gold.id]);
    expect(Object.keys(second.body.meta.pagination).sort()).toEqual(PAGINATION_FIELDS);
    expect(second.body.meta.pagination.has_more).toBe(false);
    const past = await api.rest('GET', '/v1/tiers?page=5');
    expect(past.status).toBe(200);
    expect(past.body.data).toEqual([]);
    const bad = await api.rest('GET', '/v1/tiers?per_page=0');
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe('validation_error');
    expect(bad.body.error.details.per_page).toBeDefined();
  });

  it("shows only the key's merchant's tiers", async () => {
    const other = (await newMerchant(app, 'other')).id;
    await app.db.tier.create({ data: { merchantId: other, name: 'Foreign', position: 1, threshold: 0 } });
    const res = await api.rest('GET', '/v1/tiers');
    expect(res.body.data.map((t: { name: string }) => t.name)).not.toContain('Foreign');
    expect(res.body.meta.pagination.total).toBe(3);
  });
});

describe('GET /v1/customers/tiers', () => {
  it('shows the current tier, the next one and the progress, exactly', async () => {
    const customer = await newCustomer(app, merchantId, { points: 700 });
    const res = await status(customer.platformId);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(Object.keys(res.body.data).sort()).toEqual(['current_tier', 'next_tier', 'progress', 'tier_expires_at', 'window']);
    expect(Object.keys(res.body.data.current_tier).sort()).toEqual(TIER_FIELDS);
    expect(res.body.data.current_tier.id).toBe(silver.id);
    expect(res.body.data.next_tier).toMatchObject({ id: gold.id, name: 'Gold', threshold: 1000 });
    expect(res.body.data.progress).toEqual({ metric: 'points_earned', value: 700, next_threshold: 1000, remaining: 300 });
    expect(res.body.data.window).toBe('lifetime');
    expect(res.body.data.tier_expires_at).toBeNull();
  });

  it('judges points earned, not the spendable balance', async () => {
    const customer = await newCustomer(app, merchantId, { points: 1200 });
    await api.rest('POST', `/v1/customers/transactions?customer_id=${customer.platformId}`, {
      points: -1100,
      description: 'Spent',
    });
    const res = await status(customer.platformId);
    expect(res.body.data.current_tier.id).toBe(gold.id);
    // the top: nothing further to reach
    expect(res.body.data.next_tier).toBeNull();
    expect(res.body.data.progress).toEqual({ metric: 'points_earned', value: 1200, next_threshold: null, remaining: null });
  });

  it('starts a new customer in the default tier', async () => {
    const customer = await newCustomer(app, merchantId);
    const res = await status(customer.platformId);
    expect(res.body.data.current_tier.id).toBe(bronze.id);
    expect(res.body.data.next_tier.id).toBe(silver.id);
    expect(res.body.data.progress).toEqual({ metric: 'points_earned', value: 0, next_threshold: 500, remaining: 500 });
  });

  it('accepts email instead of customer_id', async () => {
    const customer = await newCustomer(app, merchantId, { points: 10, email: 'Tiers.Email@Example.com' });
    const res = await api.rest('GET', '/v1/customers/tiers?email=tiers.email%40example.com');
    expect(res.status).toBe(200);
    expect(res.body.data.progress.value).toBe(10);
    // the very answer the customer_id gives: the email named the same customer
    expect(res.body).toEqual((await status(customer.platformId)).body);
  });

  it('measures amount spent, and a calendar-year tier expires at the end of the year', async () => {
    const shop = (await newMerchant(app, 'spend')).id;
    const key = client(app, await newKey(app, shop));
    await shop_tiers(shop);
    const customer = await newCustomer(app, shop, { points: 99_999 });
    for (const [id, subtotal] of [
      ['o-1', 150.25],
      ['o-2', 100],
      ['o-3', 1000],
    ] as const) {
      await app.db.order.create({
        data: {
          merchantId: shop,
          customerId: customer.id,
          platformOrderId: id,
          subtotal,
          currency: 'USD',
          placedAt: new Date(),
          refundedAt: id === 'o-3' ? new Date() : null,
        },
      });
    }
    const res = await key.rest('GET', `/v1/customers/tiers?customer_id=${customer.platformId}`);
    expect(res.body.data.current_tier.name).toBe('Regular');
    expect(res.body.data.next_tier.name).toBe('VIP');
    expect(res.body.data.progress).toEqual({ metric: 'amount_spent', value: 250.25, next_threshold: 400, remaining: 149.75 });
    expect(res.body.data.window).toBe('calendar_year');
    const nextJan1 = new Date(Date.UTC(new Date().getUTCFullYear() + 1, 0, 1)).toISOString();
    expect(res.body.data.tier_expires_at).toBe(nextJan1);
    // the default tier is held without qualifying: it never lapses
    const fresh = await newCustomer(app, shop);
    const base = await key.rest('GET', `/v1/customers/tiers?customer_id=${fresh.platformId}`);
    expect(base.body.data.current_tier.name).toBe('Base');
    expect(base.body.data.tier_expires_at).toBeNull();
  });

  it('answers with no tiers when the merchant has none', async () => {
    const shop = (await newMerchant(app, 'notiers')).id;
    const key = client(app, await newKey(app, shop));
    const customer = await newCustomer(app, shop, { points: 42 });
    const res = await key.rest('GET', `/v1/customers/tiers?customer_id=${customer.platformId}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      current_tier: null,
      next_tier: null,
      progress: { metric: 'points_earned', value: 42, next_threshold: null, remaining: null },
      window: 'lifetime',
      tier_expires_at: null,
    });
  });
});

/** Base (default, 0) < Regular (200 spent this year) < VIP (400 spent this year). */
async function shop_tiers(shop: string) {
  const common = { merchantId: shop, qualification: 'amount_spent', window: 'calendar_year' } as const;
  await app.db.tier.create({ data: { ...common, name: 'Base', position: 1, threshold: 0, isDefault: true } });
  await app.db.tier.create({ data: { ...common, name: 'Regular', position: 2, threshold: 200 } });
  await app.db.tier.create({ data: { ...common, name: 'VIP', position: 3, threshold: 400 } });
}

describe('GET /v1/customers/memberships', () => {
  it('lists the tier history newest first with exactly the designed fields', async () => {
    const customer = await newCustomer(app, merchantId);
    await reevaluateTier(app.db, merchantId, customer.id, new Date('2026-01-01T00:00:00.000Z'));
    await api.rest('POST', `/v1/customers/transactions?customer_id=${customer.platformId}`, { points: 600, description: 'x' });
    await reevaluateTier(app.db, merchantId, customer.id, new Date('2026-02-01T00:00:00.000Z'));
    await api.rest('POST', `/v1/customers/transactions?customer_id=${customer.platformId}`, { points: 600, description: 'x' });
    await reevaluateTier(app.db, merchantId, customer.id, new Date('2026-03-01T00:00:00.000Z'));

    const res = await api.rest('GET', `/v1/customers/memberships?customer_id=${customer.platformId}`);
    expect(res.status).toBe(200);
    for (const m of res.body.data) expect(Object.keys(m).sort()).toEqual(MEMBERSHIP_FIELDS);
    expect(res.body.data.map((m: { tier_name: string; status: string }) => [m.tier_name, m.status])).toEqual([
      ['Gold', 'active'],
      ['Silver', 'ended'],
      ['Bronze', 'ended'],
    ]);
    expect(res.body.data[0]).toMatchObject({
      tier_id: gold.id,
      source: 'earned',
      started_at: '2026-03-01T00:00:00.000Z',
      ended_at: null,
      expires_at: null,
    });
    expect(res.body.data[1]).toMatchObject({
      tier_id: silver.id,
      started_at: '2026-02-01T00:00:00.000Z',
      ended_at: '2026-03-01T00:00:00.000Z',
    });
    expect(res.body.meta.pagination).toEqual({ current_page: 1, per_page: 20, total: 3, last_page: 1, has_more: false });

    const page2 = await api.rest('GET', `/v1/customers/memberships?customer_id=${customer.platformId}&per_page=2&page=2`);
    expect(page2.body.data.map((m: { tier_id: string }) => m.tier_id)).toEqual([bronze.id]);
    expect(page2.body.meta.pagination).toMatchObject({ current_page: 2, per_page: 2, total: 3, last_page: 2, has_more: false });
  });

  it('is an empty page for a customer never placed in a tier', async () => {
    const customer = await newCustomer(app, merchantId);
    const res = await api.rest('GET', `/v1/customers/memberships?email=${encodeURIComponent(customer.email)}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [],
      meta: { pagination: { current_page: 1, per_page: 20, total: 0, last_page: 1, has_more: false } },
    });
  });
});

describe('customer errors', () => {
  it.each(['/v1/customers/tiers', '/v1/customers/memberships'])('%s: 422 without a customer, 404 unknown', async (path) => {
    const missing = await api.rest('GET', path);
    expect(missing.status).toBe(422);
    expect(missing.body.error.code).toBe('validation_error');
    expect(missing.body.error.details.customer_id).toBeDefined();
    const unknown = await api.rest('GET', `${path}?customer_id=nobody-here`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toEqual({ code: 'not_found', message: 'Customer not found' });
  });

  it.each(['/v1/customers/tiers', '/v1/customers/memberships'])("%s: another merchant's customer is 404", async (path) => {
    const other = (await newMerchant(app, 'foreign')).id;
    const foreign = await newCustomer(app, other, { points: 5000 });
    await app.db.tier.create({ data: { merchantId: other, name: 'F', position: 1, threshold: 0 } });
    await reevaluateTier(app.db, other, foreign.id);
    for (const query of [`customer_id=${foreign.platformId}`, `email=${encodeURIComponent(foreign.email)}`]) {
      const res = await api.rest('GET', `${path}?${query}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });
});

describe('scopes', () => {
  it('read:tiers allows /tiers and /customers/tiers; read:customers does not', async () => {
    const customer = await newCustomer(app, merchantId);
    const tiersOnly = client(app, await newKey(app, merchantId, 'custom', { tiers: 'read' }));
    expect((await tiersOnly.rest('GET', '/v1/tiers')).status).toBe(200);
    expect((await tiersOnly.rest('GET', `/v1/customers/tiers?customer_id=${customer.platformId}`)).status).toBe(200);
    const customersOnly = client(app, await newKey(app, merchantId, 'custom', { customers: 'read' }));
    for (const path of ['/v1/tiers', `/v1/customers/tiers?customer_id=${customer.platformId}`]) {
      const res = await customersOnly.rest('GET', path);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('insufficient_scope');
      expect(res.body.error.message).toContain('read:tiers');
    }
  });

  it('read:customers allows /customers/memberships; read:tiers does not', async () => {
    const customer = await newCustomer(app, merchantId);
    const path = `/v1/customers/memberships?customer_id=${customer.platformId}`;
    const customersOnly = client(app, await newKey(app, merchantId, 'custom', { customers: 'read' }));
    expect((await customersOnly.rest('GET', path)).status).toBe(200);
    const tiersOnly = client(app, await newKey(app, merchantId, 'custom', { tiers: 'read' }));
    const res = await tiersOnly.rest('GET', path);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
    expect(res.body.error.message).toContain('read:customers');
    // checked before the arguments: a missing customer is still 403
    expect((await tiersOnly.rest('GET', '/v1/customers/memberships')).status).toBe(403);
  });

  it('applies the same scopes over GraphQL', async () => {
    const customersOnly = client(app, await newKey(app, merchantId, 'custom', { customers: 'read' }));
    const res = await customersOnly.gql('{ tiers { data { id } } }');
    expect(res.body.errors?.[0].extensions.code).toBe('insufficient_scope');
    expect(res.body.errors?.[0].message).toContain('read:tiers');
  });
});

describe('GraphQL', () => {
  it('serves the same records as REST', async () => {
    const customer = await newCustomer(app, merchantId, { points: 800 });
    await reevaluateTier(app.db, merchantId, customer.id);
    const tierFields = 'id name description position threshold qualification window earn_multiplier benefits is_default created_at';
    const res = await api.gql(
      `query ($id: String) {
        tiers(per_page: 2) { data { ${tierFields} } meta { pagination { current_page per_page total last_page has_more } } }
        customer_tier(customer_id: $id) { data {
          current_tier { ${tierFields} } next_tier { ${tierFields} }
          progress { metric value next_threshold remaining } window tier_expires_at } }
        customer_memberships(customer_id: $id) { data { id tier_id tier_name status source started_at ended_at expires_at }
          meta { pagination { current_page per_page total last_page has_more } } }
      }`,
      { id: customer.platformId },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.tiers).toEqual((await api.rest('GET', '/v1/tiers?per_page=2')).body);
    expect(res.body.data.customer_tier).toEqual((await status(customer.platformId)).body);
    expect(res.body.data.customer_memberships).toEqual(
      (await api.rest('GET', `/v1/customers/memberships?customer_id=${customer.platformId}`)).body,
    );
    expect(res.body.data.customer_memberships.data).toHaveLength(1);
    expect(res.body.data.customer_tier.data.current_tier.id).toBe(silver.id);
  });

  it('reports customer errors with their code', async () => {
    const res = await api.gql('{ customer_tier(customer_id: "nobody") { data { window } } }');
    expect(res.body.errors?.[0].extensions.code).toBe('not_found');
    const missing = await api.gql('{ customer_memberships { data { id } } }');
    expect(missing.body.errors?.[0].extensions.code).toBe('validation_error');
  });
});
