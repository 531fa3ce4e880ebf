// Every answer states its cacheability: answers to a secret key or a customer session (REST
// and GraphQL, errors included) are `private, no-store`, and a GET's, which a cache could key by
// URL alone, also `Vary: Authorization`, so two shoppers' answers are never mixed.
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { adminClient, client, newCustomer, newKey, newMerchant, type TestApp, testApp, testConfig } from '../harness.js';

let app: TestApp;
let merchant: Awaited<ReturnType<typeof newMerchant>>;
let key: string;
let platformId: string;
let session: string;

const STOREFRONT = 'https://cache.example.com';

const call = (path: string, init: RequestInit & { token?: string } = {}) =>
  app.fetch(path, {
    ...init,
    headers: {
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body ? { 'content-type': 'application/json' } : {}),
      ...(init.headers as object),
    },
  });

const varyOf = (res: Response) => (res.headers.get('vary') ?? '').split(',').map((v) => v.trim().toLowerCase());

/** The answer may be kept by no cache; a GET's also names Authorization among what it depends on. */
function expectPrivate(res: Response, method: 'GET' | 'POST') {
  expect(res.headers.get('cache-control'), `${res.status}`).toBe('private, no-store');
  if (method === 'GET') expect(varyOf(res)).toContain('authorization');
}

beforeAll(async () => {
  app = await testApp();
  merchant = await newMerchant(app, 'cache');
  key = await newKey(app, merchant.id);
  platformId = (await newCustomer(app, merchant.id, { points: 10 })).platformId;
  const minted = await client(app, key).gql(`mutation { create_customer_session(customer_id: "${platformId}") { data { token } } }`);
  session = minted.body.data.create_customer_session.data.token;
  await adminClient(
    app,
    merchant.admin_token,
  )(`mutation { update_storefront_settings(allowed_origins: ["${STOREFRONT}"]) { allowed_origins } }`);
});

describe('REST', () => {
  it('marks answers to a key private, errors too, and GETs as varying by Authorization', async () => {
    const answers = [
      [await call('/v1/tiers', { token: key }), 200],
      [await call(`/v1/customers/balance?customer_id=${platformId}`, { token: key }), 200],
      [await call('/v1/customers/balance?customer_id=nobody', { token: key }), 404],
      [await call('/v1/customers/balance', { token: key }), 422],
      [await call('/v1/tiers'), 401],
      [await call('/v1/tiers', { token: 'lpk_forged' }), 401],
      [await call('/v1/nowhere', { token: key }), 404],
    ] as const;
    for (const [res, status] of answers) {
      expect(res.status).toBe(status);
      expectPrivate(res, 'GET');
    }
    const post = await call(`/v1/customers/transactions?customer_id=${platformId}`, {
      method: 'POST',
      token: key,
      body: JSON.stringify({ points: 5, description: 'cache test' }),
    });
    expect(post.status).toBe(201);
    expectPrivate(post, 'POST');
  });

  it('lets the OpenAPI document, the same for everyone, be cached', async () => {
    const res = await call('/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
  });
});

describe('GraphQL', () => {
  const query = '{ tiers { data { id } } }';
  const byGet = (token: string | undefined, q: string, headers: Record<string, string> = {}) =>
    call(`/graphql?query=${encodeURIComponent(q)}`, { token, headers });

  it('marks answers to a key private, by GET and POST, errors too', async () => {
    expectPrivate(await byGet(key, query), 'GET');
    expectPrivate(await byGet(key, '{ nope }'), 'GET');
    expectPrivate(await byGet(undefined, query), 'GET');
    const post = await call('/graphql', { method: 'POST', token: key, body: JSON.stringify({ query }) });
    expect(post.status).toBe(200);
    expectPrivate(post, 'POST');
    // a persisted query by hash: the GET a CDN could cache by its URL alone
    const hash = createHash('sha256').update(query).digest('hex');
    const persisted = { persistedQuery: { version: 1, sha256Hash: hash } };
    await call('/graphql', { method: 'POST', token: key, body: JSON.stringify({ query, extensions: persisted }) });
    const apq = await call(`/graphql?extensions=${encodeURIComponent(JSON.stringify(persisted))}`, { token: key });
    expect(apq.status).toBe(200);
    expectPrivate(apq, 'GET');
  });

  it("marks a shopper's answers private, beside the CORS grant's Vary: Origin", async () => {
    const res = await byGet(session, '{ me { points_balance } }', { origin: STOREFRONT });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(STOREFRONT);
    expectPrivate(res, 'GET');
    expect(varyOf(res)).toEqual(expect.arrayContaining(['origin', 'authorization']));
    const refused = await byGet(session, '{ customers { data { id } } }', { origin: STOREFRONT });
    expectPrivate(refused, 'GET');
  });

  it('marks a refusal by the rate limiter private', async () => {
    const limited = createApp({ db: app.db, databaseUrl: app.url, config: testConfig({ RATE_LIMIT_PER_KEY: '1' }) });
    try {
      const send = () => limited.fetch(`http://loyalty.test/v1/tiers`, { headers: { authorization: `Bearer ${key}` } });
      expect((await send()).status).toBe(200);
      const refused = await send();
      expect(refused.status).toBe(429);
      expectPrivate(refused, 'GET');
    } finally {
      await limited.close();
    }
  });

  it('marks answers of the admin API private', async () => {
    const res = await app.fetch('/admin/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${merchant.admin_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ storefront_settings { allowed_origins } }' }),
    });
    expect(res.status).toBe(200);
    expectPrivate(res, 'POST');
  });
});
