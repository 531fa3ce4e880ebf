// CORS per merchant and rate limits per session: a storefront's page may
// call /graphql with a customer session only from an origin its merchant allows, and each
// shopper's session has its own request budget.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { adminClient, client, newCustomer, newKey, newMerchant, type TestApp, testApp, testConfig } from '../harness.js';

let app: TestApp;
let token: string;
let otherToken: string;
let backendKey: string;

const SHOP = 'https://shop.example.com';
const OTHER_SHOP = 'https://other-shop.example.com';
const FOREIGN = 'https://evil.example.com';

async function sessionFor(key: string, customerId: string) {
  const res = await client(app, key).gql('mutation ($c: String) { create_customer_session(customer_id: $c) { data { token } } }', {
    c: customerId,
  });
  return res.body.data.create_customer_session.data.token as string;
}

const preflight = (origin: string) =>
  app.fetch('/graphql', {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
  });

const call = (bearer: string, origin?: string, target: { fetch: TestApp['fetch'] } = app) =>
  target.fetch('/graphql', {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', ...(origin ? { origin } : {}) },
    body: JSON.stringify({ query: '{ me { customer_id } }' }),
  });

beforeAll(async () => {
  app = await testApp();
  const merchant = await newMerchant(app, 'cors-shop');
  const other = await newMerchant(app, 'cors-other');
  await adminClient(app, merchant.admin_token)(`mutation { update_storefront_settings(allowed_origins: ["${SHOP}"]) { allowed_origins } }`);
  await adminClient(
    app,
    other.admin_token,
  )(`mutation { update_storefront_settings(allowed_origins: ["${OTHER_SHOP}"]) { allowed_origins } }`);
  backendKey = await newKey(app, merchant.id);
  token = await sessionFor(backendKey, (await newCustomer(app, merchant.id)).platformId);
  otherToken = await sessionFor(await newKey(app, other.id), (await newCustomer(app, other.id)).platformId);
});

describe('preflight (no Authorization header, so no merchant)', () => {
  it('is granted to an origin a merchant allows, without credentials', async () => {
    const res = await preflight(SHOP);
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-max-age')).toBe('600');
  });

  it('gets no grant from an origin no merchant allows', async () => {
    const res = await preflight(FOREIGN);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it("is granted beside the operator's CORS_ORIGINS too", async () => {
    const served = createApp({ db: app.db, config: testConfig({ CORS_ORIGINS: 'https://ops.example.com,https://ops2.example.com' }) });
    try {
      const ask = (origin: string) =>
        served.fetch('http://loyalty.test/graphql', {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
        });
      expect((await ask(SHOP)).headers.get('access-control-allow-origin')).toBe(SHOP);
      expect((await ask(SHOP)).headers.get('access-control-allow-credentials')).toBeNull();
      expect((await ask('https://ops.example.com')).headers.get('access-control-allow-origin')).toBe('https://ops.example.com');
      expect((await ask(FOREIGN)).headers.get('access-control-allow-origin')).not.toBe(FOREIGN);
    } finally {
      await served.close();
    }
  });
});

describe('the actual request', () => {
  it("is answered with the grant from an origin the session's merchant allows", async () => {
    const res = await call(token, SHOP);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(res.headers.get('access-control-expose-headers')).toContain('RateLimit');
  });

  it("is 403 origin_not_allowed from another merchant's origin or a foreign one, before anything runs", async () => {
    for (const origin of [OTHER_SHOP, FOREIGN]) {
      const res = await call(token, origin);
      expect(res.status, origin).toBe(403);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      const body = (await res.json()) as { errors: { extensions: { code: string } }[] };
      expect(body.errors[0]!.extensions.code).toBe('origin_not_allowed');
    }
    // and the other merchant's session is held to its own list
    expect((await call(otherToken, OTHER_SHOP)).status).toBe(200);
    expect((await call(otherToken, SHOP)).status).toBe(403);
  });

  it('is not limited by origin for the merchant’s servers (no Origin) and API keys', async () => {
    expect((await call(token)).status).toBe(200);
    const keyed = await app.fetch('/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${backendKey}`, 'content-type': 'application/json', origin: FOREIGN },
      body: JSON.stringify({ query: '{ tiers { data { id } } }' }),
    });
    expect(keyed.status).toBe(200);
    expect(keyed.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('follows a change of the allowed origins at once', async () => {
    const merchant = await newMerchant(app, 'cors-change');
    const admin = adminClient(app, merchant.admin_token);
    await admin(`mutation { update_storefront_settings(allowed_origins: ["${SHOP}"]) { allowed_origins } }`);
    const session = await sessionFor(await newKey(app, merchant.id), (await newCustomer(app, merchant.id)).platformId);
    expect((await call(session, SHOP)).status).toBe(200);
    await admin('mutation { update_storefront_settings(allowed_origins: []) { allowed_origins } }');
    expect((await call(session, SHOP)).status).toBe(403);
  });

  it('refuses an allowed origin that is not an origin', async () => {
    const merchant = await newMerchant(app, 'cors-bad');
    const res = await adminClient(
      app,
      merchant.admin_token,
    )('mutation { update_storefront_settings(allowed_origins: ["shop.example.com/path"]) { allowed_origins } }');
    expect(res.body.errors?.[0].extensions.code).toBe('validation_error');
  });

  it('takes an origin as CORS_ORIGINS takes it and keeps it as a browser sends it', async () => {
    const merchant = await newMerchant(app, 'cors-forms');
    const admin = adminClient(app, merchant.admin_token);
    const SET = `mutation($o: [String!]) { update_storefront_settings(allowed_origins: $o) { allowed_origins } }`;
    const set = await admin(SET, { o: [' HTTPS://Forms.Example.com:443/ ', 'http://[::1]:3000', 'https://forms_shop.example.com'] });
    expect(set.body.data.update_storefront_settings.allowed_origins).toEqual([
      'https://forms.example.com',
      'http://[::1]:3000',
      'https://forms_shop.example.com',
    ]);
    const session = await sessionFor(await newKey(app, merchant.id), (await newCustomer(app, merchant.id)).platformId);
    expect((await call(session, 'https://forms.example.com')).status).toBe(200);
    expect((await call(session, 'http://[::1]:3000')).status).toBe(200);
    for (const bad of ['https://forms.example.com/path', 'https://user@forms.example.com', 'https://forms.example.com:99999', '*']) {
      const res = await admin(SET, { o: [bad] });
      expect(res.body.errors?.[0].extensions.code, bad).toBe('validation_error');
      expect(res.body.errors?.[0].extensions.details, bad).toEqual({
        'allowed_origins.0': ['This is not a web origin: enter the scheme and host only, such as https://shop.example.com.'],
      });
    }
    expect((await admin('{ storefront_settings { allowed_origins } }')).body.data.storefront_settings.allowed_origins).toHaveLength(3);
  });
});

describe('rate limits per session', () => {
  let limited: ReturnType<typeof createApp>;
  afterAll(() => limited?.close());

  it('gives each shopper session its own budget, apart from the merchant key’s', async () => {
    limited = createApp({
      db: app.db,
      config: testConfig({ RATE_LIMIT_PER_SESSION: '2', RATE_LIMIT_PER_KEY: '100', RATE_LIMIT_PER_MERCHANT: '100' }),
    });
    const target = { fetch: (path: string, init?: RequestInit) => limited.fetch(`http://loyalty.test${path}`, init) };
    const first = await call(token, undefined, target);
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toBe('"session";q=2;w=60');
    expect((await call(token, undefined, target)).status).toBe(200);
    const third = await call(token, undefined, target);
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBeTruthy();
    // another shopper, and the merchant's backend key, still have theirs
    expect((await call(otherToken, undefined, target)).status).toBe(200);
    const keyed = await target.fetch('/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${backendKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ tiers { data { id } } }' }),
    });
    expect(keyed.status).toBe(200);
    expect(keyed.headers.get('ratelimit-policy')).toContain('"key";q=100');
  });
});
