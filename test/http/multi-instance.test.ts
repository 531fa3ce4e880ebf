// Several instances on one database: API keys are cached per process, and a
// revocation reaches every instance through the database's notifications; on PostgreSQL
// and Redis, two server processes share key revocation, idempotency keys and rate limits.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrisma } from '../../src/db/client.js';
import { createApp } from '../../src/http/app.js';
import { newCustomer, newKey, newMerchant, type TestApp, testApp, testConfig } from '../harness.js';
import { type ServerProcess, startServerProcess } from '../processes.js';

describe('two instances in one process, one database', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await testApp();
  });

  it('drops a cached key when the database announces a change made by anyone else', async () => {
    const otherDb = createPrisma(app.url, 2);
    const other = createApp({ db: otherDb, databaseUrl: app.url, config: testConfig() });
    const merchant = await newMerchant(app, 'twins');
    const key = await newKey(app, merchant.id);
    const request = { headers: { authorization: `Bearer ${key}` } };
    const onOther = () => other.fetch('http://loyalty.test/v1/tiers', request).then((r) => r.status);
    const onFirst = () => app.fetch('/v1/tiers', request).then((r) => r.status);
    const setRevoked = (revoked: boolean) =>
      app.db.$executeRaw`UPDATE api_keys SET revoked_at = ${revoked ? new Date() : null} WHERE merchant_id = ${merchant.id}::uuid`;
    // with the announcing trigger switched off, as no one else would
    const setRevokedSilently = (revoked: boolean) =>
      app.db.$transaction([app.db.$executeRaw`SET LOCAL session_replication_role = replica`, setRevoked(revoked)]);
    // each instance caches the key it answers once its notification feed is up (the other's
    // comes up after it starts): then a silent revocation leaves both serving the key from
    // their caches, which shows they do cache it
    await expect
      .poll(async () => {
        await setRevokedSilently(false);
        await Promise.all([onOther(), onFirst()]);
        await setRevokedSilently(true);
        return [await onOther(), await onFirst()];
      })
      .toEqual([200, 200]);
    // revoked again as anyone would (plain SQL on another connection): announced, dropped
    await setRevoked(true);
    // each instance hears the notice on its own connection, in its own time
    await expect.poll(onOther).toBe(401);
    await expect.poll(onFirst).toBe(401);
    await other.close();
    await otherDb.$disconnect();
  });
});

// Two server processes, as an operator runs them behind a load balancer.
describe.skipIf(!process.env.TEST_DATABASE_URL)('two server processes on one PostgreSQL', () => {
  const servers: ServerProcess[] = [];
  let app: TestApp;

  beforeAll(async () => {
    app = await testApp();
    const env = {
      DATABASE_URL: process.env.TEST_DATABASE_URL,
      REDIS_URL: process.env.REDIS_URL ?? '',
      RATE_LIMIT_PER_KEY: '6',
      RATE_LIMIT_PER_MERCHANT: '0',
      // no job workers: on the shared PostgreSQL they would take other files' webhook
      // deliveries (and, with their own settings, refuse the receivers on 127.0.0.1)
      WORKERS: 'false',
    };
    servers.push(...(await Promise.all([startServerProcess(env), startServerProcess(env)])));
  }, 120_000);

  afterAll(() => {
    for (const server of servers) server.child.kill('SIGKILL');
  });

  const call = (instance: number, key: string, pathname: string, init: RequestInit = {}) =>
    fetch(`${servers[instance]!.base}${pathname}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(init.headers as object) },
    });

  it('a key revoked through one instance is refused on the next request to the other', async () => {
    const merchant = await newMerchant(app, 'procs');
    const key = await newKey(app, merchant.id);
    const { id } = await app.db.apiKey.findFirstOrThrow({ where: { merchantId: merchant.id } });
    expect((await call(0, key, '/v1/tiers')).status).toBe(200);
    expect((await call(1, key, '/v1/tiers')).status).toBe(200);
    const revoked = await call(0, merchant.admin_token, '/admin/graphql', {
      method: 'POST',
      body: JSON.stringify({ query: `mutation { revoke_api_key(id: "${id}") { id } }` }),
    });
    expect(revoked.status).toBe(200);
    const next = await call(1, key, '/v1/tiers');
    expect(next.status).toBe(401);
    expect((await next.json()).error.code).toBe('invalid_token');
  });

  it('replays an Idempotency-Key first used on the other instance, moving points once', async () => {
    const merchant = await newMerchant(app, 'procs-idem');
    const key = await newKey(app, merchant.id);
    const customer = await newCustomer(app, merchant.id);
    const idempotencyKey = randomUUID();
    const post = (instance: number) =>
      call(instance, key, `/v1/customers/transactions?customer_id=${customer.platformId}`, {
        method: 'POST',
        headers: { 'idempotency-key': idempotencyKey },
        body: JSON.stringify({ points: 25, description: 'once' }),
      });
    const first = await post(0);
    const second = await post(1);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await second.json()).toEqual(await first.json());
    const after = await app.db.customer.findFirstOrThrow({ where: { id: customer.id } });
    expect(after.pointsBalance).toBe(25);
  });

  it.skipIf(!process.env.REDIS_URL)('shares one rate-limit budget through Redis', async () => {
    const merchant = await newMerchant(app, 'procs-rate');
    const key = await newKey(app, merchant.id);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await call(i % 2, key, '/v1/tiers')).status);
    // 6 per key across both instances, whichever answers
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
  });
});
