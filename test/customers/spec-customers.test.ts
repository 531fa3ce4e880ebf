// Spec 4.1: GET /customers and GET /customers/{id}, REST and GraphQL.
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { client, countingDb, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let merchantId: string;
let otherMerchantId: string;
let gold: { id: string; name: string };
// newest first: c3 (with tier), c2, c1
let c1: Awaited<ReturnType<typeof newCustomer>>;
let c2: Awaited<ReturnType<typeof newCustomer>>;
let c3: Awaited<ReturnType<typeof newCustomer>>;
let foreign: Awaited<ReturnType<typeof newCustomer>>;

const CUSTOMER_FIELDS = [
  'birthday',
  'created_at',
  'customer_id',
  'email',
  'first_name',
  'id',
  'last_name',
  'points_balance',
  'points_earned',
  'points_spent',
  'referral_code',
  'status',
  'tier',
  'updated_at',
];

beforeAll(async () => {
  app = await testApp();
  merchantId = (await newMerchant(app, 'customers')).id;
  otherMerchantId = (await newMerchant(app, 'other')).id;
  api = client(app, await newKey(app, merchantId));
  gold = await app.db.tier.create({
    data: { merchantId, name: 'Gold', position: 1, threshold: 500 },
    select: { id: true, name: true },
  });
  c1 = await newCustomer(app, merchantId, { customerId: 'plat-1', email: 'Ada@Example.com', points: 120 });
  c2 = await newCustomer(app, merchantId, { customerId: 'plat-2' });
  c3 = await newCustomer(app, merchantId, { customerId: 'plat-3', points: 40 });
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  for (const [i, c] of [c1, c2, c3].entries()) {
    await app.db.customer.updateMany({ where: { id: c.id }, data: { createdAt: new Date(base + i * 60_000) } });
  }
  await app.db.customer.updateMany({
    where: { id: c3.id },
    data: { tierId: gold.id, firstName: 'Grace', lastName: 'Hopper', birthday: new Date('1990-12-09T00:00:00.000Z') },
  });
  await app.db.customer.updateMany({ where: { id: c2.id }, data: { status: 'guest' } });
  // the same platform id at another merchant must never show
  foreign = await newCustomer(app, otherMerchantId, { customerId: 'plat-1', email: 'ada@example.com' });
});

describe('GET /v1/customers', () => {
  it('lists the merchant’s customers newest first with exactly the Customer fields', async () => {
    const res = await api.rest('GET', '/v1/customers');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'meta']);
    expect(res.body.data.map((c: any) => c.customer_id)).toEqual(['plat-3', 'plat-2', 'plat-1']);
    for (const c of res.body.data) expect(Object.keys(c).sort()).toEqual(CUSTOMER_FIELDS);
    expect(res.body.meta.pagination).toEqual({ current_page: 1, per_page: 20, total: 3, last_page: 1, has_more: false });
    expect(res.body.data[0]).toEqual({
      id: c3.id,
      customer_id: 'plat-3',
      email: c3.email,
      first_name: 'Grace',
      last_name: 'Hopper',
      status: 'member',
      points_balance: 40,
      points_earned: 40,
      points_spent: 0,
      tier: { id: gold.id, name: 'Gold' },
      referral_code: c3.referralCode,
      birthday: '1990-12-09',
      created_at: '2026-01-01T00:02:00.000Z',
      updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    expect(res.body.data[1]).toMatchObject({ status: 'guest', tier: null, birthday: null, first_name: null });
    expect(res.body.data[2]).toMatchObject({ points_balance: 120, points_earned: 120, points_spent: 0 });
  });

  it('paginates with per_page and page, and a page past the end is empty', async () => {
    const page2 = await api.rest('GET', '/v1/customers?per_page=2&page=2');
    expect(page2.status).toBe(200);
    expect(page2.body.data.map((c: any) => c.customer_id)).toEqual(['plat-1']);
    expect(page2.body.meta.pagination).toEqual({ current_page: 2, per_page: 2, total: 3, last_page: 2, has_more: false });
    const page1 = await api.rest('GET', '/v1/customers?per_page=2');
    expect(page1.body.data.map((c: any) => c.customer_id)).toEqual(['plat-3', 'plat-2']);
    expect(page1.body.meta.pagination.has_more).toBe(true);
    const past = await api.rest('GET', '/v1/customers?per_page=2&page=5');
    expect(past.status).toBe(200);
    expect(past.body.data).toEqual([]);
    expect(past.body.meta.pagination).toMatchObject({ current_page: 5, total: 3, has_more: false });
  });

  it.each(['per_page=0', 'per_page=101', 'per_page=abc', 'page=0'])('answers 422 validation_error for %s', async (q) => {
    const res = await api.rest('GET', `/v1/customers?${q}`);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_error');
    expect(Object.keys(res.body.error.details)).toEqual([q.split('=')[0]]);
  });

  it('filters by customer_id and by email (case-insensitive), only within the merchant', async () => {
    const byId = await api.rest('GET', '/v1/customers?customer_id=plat-1');
    expect(byId.body.data.map((c: any) => c.id)).toEqual([c1.id]);
    expect(byId.body.meta.pagination.total).toBe(1);
    const byEmail = await api.rest('GET', `/v1/customers?email=${encodeURIComponent('ada@EXAMPLE.com')}`);
    expect(byEmail.body.data.map((c: any) => c.id)).toEqual([c1.id]);
    const both = await api.rest('GET', `/v1/customers?customer_id=plat-2&email=${encodeURIComponent(c1.email)}`);
    expect(both.body.data).toEqual([]);
    const none = await api.rest('GET', '/v1/customers?customer_id=nobody');
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual([]);
    expect(none.body.meta.pagination).toEqual({ current_page: 1, per_page: 20, total: 0, last_page: 1, has_more: false });
  });

  it('shows each stored instant to the millisecond, the list as the record', async () => {
    // a merchant of its own: these instants would reorder the newest-first lists above
    const shop = (await newMerchant(app, 'instants')).id;
    const shopApi = client(app, await newKey(app, shop));
    const c = await newCustomer(app, shop, { customerId: 'plat-instant' });
    for (const [stored, shown] of [
      // the column keeps milliseconds: PostgreSQL rounds what it is given
      ['2026-11-24 04:11:17.123456+00', '2026-11-24T04:11:17.123Z'],
      ['2026-11-24 04:11:17.999999+00', '2026-11-24T04:11:18.000Z'],
      ['2024-02-29 23:59:59.5+00', '2024-02-29T23:59:59.500Z'],
      ['2026-01-01 00:00:00+00', '2026-01-01T00:00:00.000Z'],
      ['1969-12-31 23:59:59.04+00', '1969-12-31T23:59:59.040Z'],
      ['0050-06-01 12:00:00.25+00', '0050-06-01T12:00:00.250Z'],
    ]) {
      await app.db.$executeRaw`UPDATE customers SET created_at = ${stored}::timestamptz WHERE id = ${c.id}::uuid`;
      const list = await shopApi.rest('GET', '/v1/customers?customer_id=plat-instant');
      const record = await shopApi.rest('GET', `/v1/customers/${c.id}`);
      expect([list.body.data[0].created_at, record.body.data.created_at]).toEqual([shown, shown]);
    }
  });

  it('matches email literally: % and _ are not wildcards; a NUL byte is refused', async () => {
    const underscored = await newCustomer(app, merchantId, { customerId: 'plat-us', email: 'first_last@example.com' });
    await newCustomer(app, merchantId, { customerId: 'plat-us2', email: 'firstxlast@example.com' });
    const exact = await api.rest('GET', `/v1/customers?email=${encodeURIComponent('FIRST_last@example.com')}`);
    expect(exact.body.data.map((c: any) => c.id)).toEqual([underscored.id]);
    for (const q of ['email=%25', 'email=first%25', 'email=%25%40example.com', 'customer_id=plat-%25']) {
      const res = await api.rest('GET', `/v1/customers?${q}`);
      expect(res.status, q).toBe(200);
      expect(res.body.data, q).toEqual([]);
    }
    for (const q of ['customer_id=%00', 'email=%00']) {
      const res = await api.rest('GET', `/v1/customers?${q}`);
      expect(res.status, q).toBe(422);
      expect(res.body.error.code, q).toBe('validation_error');
    }
    await app.db.customer.deleteMany({ where: { platformId: { in: ['plat-us', 'plat-us2'] }, merchantId } });
  });

  it('loads the tiers of a whole page in the customers query (no query per row)', async () => {
    for (let i = 0; i < 4; i++) {
      const c = await newCustomer(app, otherMerchantId, { customerId: `tiered-${i}` });
      const tier = await app.db.tier.create({ data: { merchantId: otherMerchantId, name: `T${i}`, position: i, threshold: i } });
      await app.db.customer.updateMany({ where: { id: c.id }, data: { tierId: tier.id } });
    }
    const calls: string[] = [];
    const counted = createApp({ db: countingDb(app.db, calls) });
    const key = await newKey(app, otherMerchantId);
    const res = await counted.fetch('http://loyalty.test/v1/customers', { headers: { authorization: `Bearer ${key}` } });
    const body = await res.json();
    expect(
      body.data
        .filter((c: any) => c.tier)
        .map((c: any) => c.tier.name)
        .sort(),
    ).toEqual(['T0', 'T1', 'T2', 'T3']);
    // one statement: the page with its tiers, and the unfiltered total from the merchant's
    // counter, not a count over every customer
    expect(calls.filter((c) => !c.startsWith('ApiKey.') && !c.startsWith('IdempotencyKey.'))).toEqual(['$queryRaw']);
  });

  it('keeps the unfiltered total exact through inserts, bulk inserts and deletes', async () => {
    const shop = await newMerchant(app, 'counted');
    const key = await newKey(app, shop.id);
    const total = async () => (await client(app, key).rest('GET', '/v1/customers?per_page=1')).body.meta.pagination.total as number;
    expect(await total()).toBe(0);
    const one = await newCustomer(app, shop.id);
    await app.db.customer.createMany({
      data: ['b1', 'b2', 'b3'].map((p) => ({
        merchantId: shop.id,
        platformId: p,
        email: `${p}@x.com`,
        referralCode: `C${p}`.toUpperCase(),
      })),
    });
    expect(await total()).toBe(4);
    await app.db.customer.deleteMany({ where: { id: one.id } });
    expect(await total()).toBe(3);
    expect(await total()).toBe(await app.db.customer.count({ where: { merchantId: shop.id } }));
  });
});

describe('GET /v1/customers/{id}', () => {
  it('finds a customer by internal uuid and by platform id', async () => {
    const byUuid = await api.rest('GET', `/v1/customers/${c3.id}`);
    expect(byUuid.status).toBe(200);
    expect(Object.keys(byUuid.body)).toEqual(['data']);
    expect(Object.keys(byUuid.body.data).sort()).toEqual(CUSTOMER_FIELDS);
    expect(byUuid.body.data).toMatchObject({ id: c3.id, customer_id: 'plat-3', tier: { id: gold.id, name: 'Gold' } });
    const byPlatform = await api.rest('GET', '/v1/customers/plat-3');
    expect(byPlatform.body).toEqual(byUuid.body);
  });

  it('answers 404 not_found for an unknown id and for another merchant’s customer', async () => {
    for (const id of ['nobody', '00000000-0000-4000-8000-000000000000', foreign.id]) {
      const res = await api.rest('GET', `/v1/customers/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.error).toEqual({ code: 'not_found', message: 'Customer not found' });
    }
    const nul = await api.rest('GET', '/v1/customers/plat%00');
    expect(nul.status).toBe(422);
    // the platform id both merchants use resolves to this merchant's customer only
    const shared = await api.rest('GET', '/v1/customers/plat-1');
    expect(shared.body.data.id).toBe(c1.id);
  });
});

describe('scopes', () => {
  it('needs read:customers: a custom key with exactly it succeeds, others get 403', async () => {
    const reader = client(app, await newKey(app, merchantId, 'custom', { customers: 'read' }));
    expect((await reader.rest('GET', '/v1/customers')).status).toBe(200);
    expect((await reader.rest('GET', `/v1/customers/${c1.id}`)).status).toBe(200);
    const lacking = client(app, await newKey(app, merchantId, 'custom', { activities: 'read', transactions: 'write' }));
    for (const path of ['/v1/customers', `/v1/customers/${c1.id}`]) {
      const res = await lacking.rest('GET', path);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('insufficient_scope');
      expect(res.body.error.message).toContain('read:customers');
    }
    const gql = await lacking.gql('{ customers { data { id } } }');
    expect(gql.body.errors?.[0].extensions.code).toBe('insufficient_scope');
    expect(gql.body.errors?.[0].message).toContain('read:customers');
  });
});

describe('GraphQL', () => {
  it('serves the same lists and records as REST', async () => {
    const rest = await api.rest('GET', '/v1/customers?per_page=2');
    const res = await api.gql(`query ($email: String) {
      customers(per_page: 2, email: $email) {
        data { id customer_id email first_name last_name status points_balance points_earned points_spent
               tier { id name } referral_code birthday created_at updated_at }
        meta { pagination { current_page per_page total last_page has_more } }
      } }`);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.customers).toEqual(rest.body);
    const one = await api.gql(`query ($id: ID!) { customer(id: $id) { data { id tier { name } birthday } } }`, {
      id: 'plat-3',
    });
    expect(one.body.data.customer.data).toEqual({ id: c3.id, tier: { name: 'Gold' }, birthday: '1990-12-09' });
    const missing = await api.gql(`{ customer(id: "${foreign.id}") { data { id } } }`);
    expect(missing.body.errors?.[0].extensions.code).toBe('not_found');
  });
});
