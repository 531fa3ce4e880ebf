// Rate limits, body limits, content types, request ids, health and readiness.
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { createRateLimiter } from '../../src/http/rate-limiter.js';
import { client, newCustomer, newKey, newMerchant, type TestApp, testApp, testConfig } from '../harness.js';

let app: TestApp;
let merchantId: string;
let adminToken: string;
let key: string;

beforeAll(async () => {
  app = await testApp();
  ({ id: merchantId, admin_token: adminToken } = await newMerchant(app));
  key = await newKey(app, merchantId);
});

describe('rate limits', () => {
  it('answers 429 rate_limited with Retry-After and the IETF headers, per key and per merchant', async () => {
    const db = app.db;
    const limitedApp = createApp({
      db,
      config: testConfig({ RATE_LIMIT_PER_KEY: '3', RATE_LIMIT_PER_MERCHANT: '5', RATE_LIMIT_WINDOW_SECONDS: '60' }),
    });
    const fetchAs = (k: string) => limitedApp.fetch('http://t/v1/rewards', { headers: { authorization: `Bearer ${k}` } });
    const merchant = await newMerchant(app, 'limited');
    const first = await newKey(app, merchant.id);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push(await fetchAs(first));
    expect(statuses.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(statuses[0]!.headers.get('ratelimit-policy')).toBe('"key";q=3;w=60, "merchant";q=5;w=60');
    expect(statuses[0]!.headers.get('ratelimit')).toMatch(/^"key";r=2;t=\d+$/);
    const refused = statuses[3]!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await refused.json()).error.code).toBe('rate_limited');
    // a second key of the same merchant has its own budget until the merchant's runs out
    const second = await newKey(app, merchant.id);
    expect((await fetchAs(second)).status).toBe(200);
    expect((await fetchAs(second)).status).toBe(429); // merchant: 5 consumed (3 + 1 refused + 1)
    const gql = await limitedApp.fetch('http://t/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${second}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ rewards { data { id } } }' }),
    });
    expect(gql.status).toBe(429);
    expect((await gql.json()).errors[0].extensions.code).toBe('rate_limited');
    await limitedApp.close();
  });

  it.skipIf(!process.env.REDIS_URL)('shares one budget between instances through Redis', async () => {
    const opts = { perKey: 2, perMerchant: 0, windowSeconds: 60, redisUrl: process.env.REDIS_URL };
    const a = createRateLimiter(opts);
    const b = createRateLimiter(opts);
    const id = randomUUID();
    expect((await a.consume(id, 'm')).allowed).toBe(true);
    expect((await b.consume(id, 'm')).allowed).toBe(true);
    expect((await a.consume(id, 'm')).allowed).toBe(false);
    await a.close();
    await b.close();
  });
});

describe('request hygiene', () => {
  it('refuses a body over the limit with 413 payload_too_large', async () => {
    const customer = await newCustomer(app, merchantId);
    const res = await client(app, key).rest('POST', `/v1/customers/transactions?customer_id=${customer.platformId}`, {
      points: 1,
      description: 'x'.repeat(1_100_000),
    });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });

  it('refuses a non-JSON content type with 415', async () => {
    const customer = await newCustomer(app, merchantId);
    const res = await client(app, key).rest(
      'POST',
      `/v1/customers/transactions?customer_id=${customer.platformId}`,
      'points=1&description=x',
      { 'content-type': 'application/x-www-form-urlencoded' },
    );
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('unsupported_media_type');
  });

  it('gives every response a request id, keeping a sane one the caller sent', async () => {
    const mine = await app.fetch('/v1/rewards', { headers: { authorization: `Bearer ${key}`, 'x-request-id': 'abc-123' } });
    expect(mine.headers.get('x-request-id')).toBe('abc-123');
    const generated = await app.fetch('/v1/rewards', { headers: { authorization: `Bearer ${key}`, 'x-request-id': 'bad id!' } });
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const refused = await app.fetch('/v1/rewards');
    expect(refused.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers and logs the request id and the real duration of POSTs too (REST, GraphQL and admin)', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const logged = createApp({ db: app.db, config: testConfig({ LOG_LEVEL: 'info' }), logger });
    const customer = await newCustomer(app, merchantId);
    const post = (path: string, token: string, body: unknown, id: string) =>
      logged.fetch(`http://t${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-request-id': id },
        body: JSON.stringify(body),
      });
    const answers = [
      await post(`/v1/customers/transactions?customer_id=${customer.platformId}`, key, { points: 5, description: 'x' }, 'rest-post-1'),
      await post('/graphql', key, { query: '{ tiers { data { id } } }' }, 'gql-post-1'),
      await post('/admin/graphql', adminToken, { query: '{ merchant { name } }' }, 'admin-post-1'),
    ];
    expect(answers.map((r) => [r.status, r.headers.get('x-request-id')])).toEqual([
      [201, 'rest-post-1'],
      [200, 'gql-post-1'],
      [200, 'admin-post-1'],
    ]);
    const requests = lines.filter((l) => l.msg === 'request');
    for (const id of ['rest-post-1', 'gql-post-1', 'admin-post-1']) {
      const line = requests.find((l) => l.request_id === id);
      expect(line, id).toMatchObject({ method: 'POST', status: expect.any(Number) });
      expect(line!.ms as number, id).toBeGreaterThan(0);
    }
    await logged.close();
  });

  it('purges expired Idempotency-Keys a minute after the service starts (and hourly), keeping live ones', async () => {
    const expired = `expired-${randomUUID()}`;
    const live = `live-${randomUUID()}`;
    const row = (k: string, expiresAt: Date) => ({ key: k, merchantId, fingerprint: 'f', expiresAt });
    await app.db.idempotencyKey.createMany({
      data: [row(expired, new Date(Date.now() - 1000)), row(live, new Date(Date.now() + 3600_000))],
    });
    const keys = async () =>
      (await app.db.idempotencyKey.findMany({ where: { key: { in: [expired, live] } }, orderBy: { key: 'asc' } })).map((r) => r.key);
    // the purge's timers on a clock of the test's: not at start (off the path to the first answer), a minute later
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    let started: ReturnType<typeof createApp>;
    try {
      started = createApp({ db: app.db, config: testConfig() });
      await new Promise((r) => setImmediate(r));
      expect(await keys()).toEqual([expired, live]);
      vi.advanceTimersByTime(60_000);
    } finally {
      vi.useRealTimers();
    }
    // the purge runs on the real clock once its timer fires; a loaded database may take seconds
    await expect.poll(keys).toEqual([live]);
    await started.close();
  });
});

describe('the admin endpoint shares the request limits', () => {
  const admin = (body: string) =>
    app.fetch('/admin/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body,
    });

  it('refuses a body over the limit with 413 payload_too_large', async () => {
    const res = await admin(JSON.stringify({ query: '{ merchant { name } }', variables: { pad: 'x'.repeat(1_100_000) } }));
    expect(res.status).toBe(413);
    expect((await res.json()).errors[0].extensions.code).toBe('payload_too_large');
  });

  it('refuses an alias bomb', async () => {
    const aliases = Array.from({ length: 200 }, (_, i) => `a${i}: merchant { name }`).join(' ');
    const res = await admin(JSON.stringify({ query: `{ ${aliases} }` }));
    const body = await res.json();
    expect(body.data).toBeUndefined();
    expect(body.errors[0].message).toMatch(/aliases/i);
  });
});

describe('health', () => {
  it('answers /healthz and /readyz (database reachable, migrations applied, its notifications arriving)', async () => {
    expect(await (await app.fetch('/healthz')).json()).toEqual({ status: 'ok' });
    const ready = async () => {
      const res = await app.fetch('/readyz');
      return { status: res.status, body: await res.json() };
    };
    await expect.poll(ready).toEqual({ status: 200, body: { status: 'ready', notifications: 'up' } });
  });
});
