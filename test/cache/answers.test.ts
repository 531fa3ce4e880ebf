// What a storefront sees of the answer cache (docs/storefronts.md, "Answers kept by the
// service"): which answers are kept, the Cache-Status header and extension, ETag and 304, and
// RESPONSE_CACHE_BYTES=0. That kept answers are exact is test/cache/exact-answers.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrisma } from '../../src/db/client.js';
import { createApp } from '../../src/http/app.js';
import { ASKS } from '../../src/http/plugins/response-cache.js';
import { newCustomer, newKey, newMerchant, type TestApp, testApp, testConfig } from '../harness.js';

const PANEL = `query Panel($c: ID!) { customer(id: $c) { data {
  first_name balance { points_balance } rewards(per_page: 3) { data { code status } }
} } }`;

describe('answers kept by the service', () => {
  let app: TestApp;
  let key: string;
  let customer: { platformId: string };

  beforeAll(async () => {
    app = await testApp();
    const merchant = await newMerchant(app, 'kept');
    key = await newKey(app, merchant.id);
    customer = await newCustomer(app, merchant.id, { points: 40 });
  });

  const post = (query: string, variables?: object, headers: Record<string, string> = {}, via = app) =>
    via.fetch('/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query, variables }),
    });

  it('computes an answer once, serves it again, and says which', async () => {
    const first = await post(PANEL, { c: customer.platformId });
    expect(first.headers.get('cache-status')).toMatch(/^loyalty; fwd=miss; stored; ttl=\d+$/);
    const firstBody = await first.json();
    expect(firstBody.extensions.responseCache).toMatchObject({ hit: false, didCache: true });
    const again = await post(PANEL, { c: customer.platformId });
    expect(again.headers.get('cache-status')).toBe('loyalty; hit');
    const againBody = await again.json();
    expect(againBody.extensions.responseCache).toEqual({ hit: true });
    expect(againBody.data).toEqual(firstBody.data);
    // the cost is the request's own, on a kept answer too
    expect(againBody.extensions.cost.requested).toBe(firstBody.extensions.cost.requested);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
  });

  it('answers 304 to the ETag of the answer it would give, and the new answer once it changed', async () => {
    const first = await post(PANEL, { c: customer.platformId });
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\/".+"$/);
    const same = await post(PANEL, { c: customer.platformId }, { 'if-none-match': etag });
    expect(same.status).toBe(304);
    expect(await same.text()).toBe('');
    expect(same.headers.get('etag')).toBe(etag);
    const credited = await app.fetch(`/v1/customers/transactions?customer_id=${customer.platformId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ points: 5, description: 'Thanks' }),
    });
    expect(credited.status).toBe(201);
    const changed = await post(PANEL, { c: customer.platformId }, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('cache-status')).toMatch(/^loyalty; fwd=miss/);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect((await changed.json()).data.customer.data.balance.points_balance).toBe(45);
  });

  it('keeps no mutation, no answer with an error, no document with a root field it cannot follow, and none that reads nothing', async () => {
    const unknown = await post(PANEL, { c: 'nobody' });
    expect((await unknown.json()).errors[0].extensions.code).toBe('not_found');
    expect((await post(PANEL, { c: 'nobody' })).headers.get('cache-status')).toMatch(/fwd=miss$/);
    for (let i = 0; i < 2; i++) {
      const list = await post('{ customers { data { customer_id } } }');
      expect(list.status).toBe(200);
      expect(list.headers.get('cache-status')).toBeNull();
      expect((await list.json()).extensions.responseCache).toBeUndefined();
    }
    // nothing to keep: it reads nothing, and running it costs less than reading the revisions
    for (let i = 0; i < 2; i++) {
      const typename = await post('{ __typename }');
      expect(await typename.json()).toEqual({
        data: { __typename: 'Query' },
        extensions: expect.not.objectContaining({ responseCache: expect.anything() }),
      });
      expect(typename.headers.get('cache-status')).toBeNull();
    }
    const mutation = await post(
      `mutation { create_customer_transaction(customer_id: "${customer.platformId}", points: 1, description: "x") { data { balance_after } } }`,
    );
    expect(mutation.status).toBe(200);
    expect(mutation.headers.get('cache-status')).toBeNull();
  });

  it('runs an operation without the cache while its answers are seldom asked for again, and counts it again after', async () => {
    const saved = { ...ASKS };
    Object.assign(ASKS, { WINDOW: 20, SKIPPED: 5 });
    try {
      const balance = (c: string) =>
        post('query Seldom($c: String!) { customer_balance(customer_id: $c) { data { points_balance } } }', { c });
      // its first request teaches the instance the operation; the next 20 each ask for an answer
      // no one asked for before (an unknown customer's: never kept)
      for (let i = 0; i <= 20; i++) expect((await balance(`seldom-${i}`)).headers.get('cache-status')).toMatch(/^loyalty; fwd=miss/);
      for (let i = 0; i < 5; i++) {
        const skipped = await balance(customer.platformId);
        expect(skipped.headers.get('cache-status')).toBe('loyalty; fwd=bypass');
        expect(skipped.headers.get('etag')).toBeNull();
        const body = await skipped.json();
        expect(body.data.customer_balance.data.points_balance).toBeGreaterThan(0);
        expect(body.extensions.responseCache).toBeUndefined();
      }
      // counted again: an answer asked for again is kept and served, and the operation keeps its cache
      expect((await balance(customer.platformId)).headers.get('cache-status')).toMatch(/^loyalty; fwd=miss; stored/);
      for (let i = 0; i < 25; i++) expect((await balance(customer.platformId)).headers.get('cache-status')).toBe('loyalty; hit');
    } finally {
      Object.assign(ASKS, saved);
    }
  });

  it("computes an answer it keeps from the program at the answer's revisions, even when the instance was not told of the change", async () => {
    const merchant = await newMerchant(app, 'kept-program');
    const ownKey = await newKey(app, merchant.id);
    const shopper = await newCustomer(app, merchant.id, { points: 40 });
    const tier = (name: string, position: number, threshold: number) =>
      app.db.tier.create({ data: { merchantId: merchant.id, name, position, threshold, benefits: [], isDefault: position === 1 } });
    await tier('Bronze', 1, 0);
    const silver = await tier('Silver', 2, 100);
    const status = async (operation: string) => {
      const query = `query ${operation}($c: ID!) { customer(id: $c) { data { tier_status { next_tier { name threshold } } } } }`;
      const res = await post(query, { c: shopper.platformId }, { authorization: `Bearer ${ownKey}` });
      return { cache: res.headers.get('cache-status'), next: (await res.json()).data.customer.data.tier_status.next_tier };
    };
    // a change whose notice has not reached this instance (written here with none): the program's
    // revision moves in its transaction
    const quietly = (threshold: number) =>
      app.db.tier.update({ where: { merchantId_id: { merchantId: merchant.id, id: silver.id } }, data: { threshold } });
    const missed = expect.stringMatching(/^loyalty; fwd=miss; stored/);
    // the instance caches the merchant's program, and keeps the answer
    expect(await status('Status')).toMatchObject({ next: { name: 'Silver', threshold: 100 } });
    expect(await status('Status')).toEqual({ cache: 'loyalty; hit', next: { name: 'Silver', threshold: 100 } });
    // a document it knows is computed again, from the program as stored
    await quietly(250);
    expect(await status('Status')).toEqual({ cache: missed, next: { name: 'Silver', threshold: 250 } });
    expect(await status('Status')).toEqual({ cache: 'loyalty; hit', next: { name: 'Silver', threshold: 250 } });
    // and so is one it runs for the first time
    await quietly(300);
    expect(await status('Fresh')).toEqual({ cache: missed, next: { name: 'Silver', threshold: 300 } });
  });

  describe('with RESPONSE_CACHE_BYTES=0', () => {
    let other: ReturnType<typeof createApp>;
    const db = () => createPrisma(app.url, 2);
    let otherDb: ReturnType<typeof db>;

    beforeAll(() => {
      otherDb = db();
      other = createApp({ db: otherDb, databaseUrl: app.url, config: testConfig({ RESPONSE_CACHE_BYTES: '0' }) });
    });
    afterAll(async () => {
      await other.close();
      await otherDb.$disconnect();
    });

    it('keeps nothing and says nothing', async () => {
      const via = { ...app, fetch: (path: string, init?: RequestInit) => other.fetch(`http://loyalty.test${path}`, init) };
      for (let i = 0; i < 2; i++) {
        const res = await post(PANEL, { c: customer.platformId }, {}, via);
        expect(res.status).toBe(200);
        expect(res.headers.get('cache-status')).toBeNull();
        expect(res.headers.get('etag')).toBeNull();
        expect((await res.json()).extensions.responseCache).toBeUndefined();
      }
    });
  });
});
