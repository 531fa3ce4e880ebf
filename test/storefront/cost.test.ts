// `extensions.cost` on GraphQL answers: the operation's cost as the cost limit counts it (an
// object 2, a scalar 1, each level deeper 1.5 times, a list times its `first`), the limit, and
// what the rate limiter leaves of the window's budget.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { adminClient, client, newCustomer, newKey, newMerchant, type TestApp, testApp, testConfig } from '../harness.js';

let app: TestApp;
let merchant: Awaited<ReturnType<typeof newMerchant>>;
let key: string;
/** An app on the same database whose keys have 10 requests a window, and sessions 4. */
let limited: ReturnType<typeof createApp>;

const post = (fetcher: (url: string, init: RequestInit) => Promise<Response>, token: string, body: object) =>
  fetcher('/graphql', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then(async (res) => ({ status: res.status, headers: res.headers, body: (await res.json()) as any }));

const onTest = (url: string, init: RequestInit) => app.fetch(url, init);
const onLimited = (url: string, init: RequestInit) => limited.fetch(`http://loyalty.test${url}`, init);

beforeAll(async () => {
  app = await testApp();
  merchant = await newMerchant(app, 'cost');
  key = await newKey(app, merchant.id);
  limited = createApp({
    db: app.db,
    databaseUrl: app.url,
    config: testConfig({ RATE_LIMIT_PER_KEY: '10', RATE_LIMIT_PER_MERCHANT: '100', RATE_LIMIT_PER_SESSION: '4' }),
  });
});

afterAll(async () => {
  await limited.close();
});

describe('extensions.cost', () => {
  it('states the cost of the operation as the limit counts it, and the limit', async () => {
    // rewards: 2 + 1.5 × (data: 2 + 1.5 × (id: 1)) = 7.25
    const res = await post(onTest, key, { query: '{ rewards { data { id } } }' });
    expect(res.status).toBe(200);
    expect(res.body.extensions.cost).toEqual({ requested: 7.25, limit: 5000, rate_limit: null });
    // the same document again (parsed and validated from the caches): the same cost
    const again = await post(onTest, key, { query: '{ rewards { data { id } } }' });
    expect(again.body.extensions.cost.requested).toBe(7.25);
    // a connection's `first` multiplies what it selects: 2 + 1.5 × ((2 + 1.5 × 1) × 10) = 54.5
    const customer = await newCustomer(app, merchant.id);
    const scroll = await post(onTest, key, {
      query: `{ customer(id: "${customer.id}") { data { activities_connection(first: 10) { total_count } } } }`,
    });
    expect(scroll.body.errors).toBeUndefined();
    // customer: 2 + 1.5 × (data: 2 + 1.5 × 54.5)
    expect(scroll.body.extensions.cost.requested).toBe(2 + 1.5 * (2 + 1.5 * (2 + 1.5 * 1) * 10));
  });

  it('counts the operation that runs, in a document with several', async () => {
    const query = 'query Small { tiers { data { id } } } query Large { tiers { data { id name position threshold } } }';
    const small = await post(onTest, key, { query, operationName: 'Small' });
    const large = await post(onTest, key, { query, operationName: 'Large' });
    expect(small.body.extensions.cost.requested).toBe(7.25);
    expect(large.body.extensions.cost.requested).toBe(2 + 1.5 * (2 + 1.5 * 4));
  });

  it('states the cost of a document the limit refuses, the number the refusal names', async () => {
    const heavy = `{ customer(id: "x") { data { activities_connection(first: 100) { edges { node { id description type points_change } } } } } }`;
    const res = await post(onTest, key, { query: heavy });
    expect(res.body.errors[0].extensions.code).toBe('query_too_costly');
    const found = Number(/found ([\d.]+)/.exec(res.body.errors[0].message)?.[1]);
    expect(found).toBeGreaterThan(5000);
    expect(res.body.extensions.cost).toEqual({ requested: found, limit: 5000, rate_limit: null });
  });

  it('reports the budget left in the rate-limit window, request by request, as the RateLimit header does', async () => {
    const own = await newKey(app, merchant.id);
    const seen: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await post(onLimited, own, { query: '{ tiers { data { id } } }' });
      const rateLimit = res.body.extensions.cost.rate_limit;
      expect(rateLimit).toMatchObject({ policy: 'key', limit: 10 });
      expect(res.headers.get('ratelimit')).toBe(`"key";r=${rateLimit.remaining};t=${rateLimit.reset_seconds}`);
      seen.push(rateLimit.remaining);
    }
    expect(seen).toEqual([9, 8, 7]);
  });

  it("reports a shopper's own budget to a customer session", async () => {
    const customer = await newCustomer(app, merchant.id);
    const minted = await client(app, key).gql(
      `mutation { create_customer_session(customer_id: "${customer.platformId}") { data { token } } }`,
    );
    const token = minted.body.data.create_customer_session.data.token;
    const res = await post(onLimited, token, { query: '{ me { points_balance } }' });
    expect(res.body.data.me.points_balance).toBe(0);
    expect(res.body.extensions.cost).toEqual({
      requested: 2 + 1.5,
      limit: 5000,
      rate_limit: { policy: 'session', limit: 4, remaining: 3, reset_seconds: expect.any(Number) },
    });
  });

  it('is on the admin API too, and never in a REST answer', async () => {
    const admin = await adminClient(app, merchant.admin_token)('{ storefront_settings { allowed_origins } }');
    expect((admin.body as { extensions?: { cost?: unknown } }).extensions?.cost).toEqual({
      requested: 2 + 1.5,
      limit: 5000,
      rate_limit: null,
    });
    const rest = await client(app, key).rest('GET', '/v1/tiers');
    expect(Object.keys(rest.body)).toEqual(['data', 'meta']);
  });
});
