// Safe retries: Idempotency-Key on public POSTs (REST and GraphQL).
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
let merchantId: string;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  app = await testApp();
  merchantId = (await newMerchant(app)).id;
  api = client(app, await newKey(app, merchantId));
});

const credit = (customerId: string, key: string, body: unknown = { points: 10, description: 'retry me' }) =>
  api.rest('POST', `/v1/customers/transactions?customer_id=${customerId}`, body, { 'Idempotency-Key': key });

const balanceOf = async (id: string) => (await app.db.customer.findFirstOrThrow({ where: { id } })).pointsBalance;

describe('Idempotency-Key', () => {
  it('replays the first response (status and body) without a second effect', async () => {
    const customer = await newCustomer(app, merchantId);
    const key = randomUUID();
    const first = await credit(customer.platformId, key);
    const again = await credit(customer.platformId, key);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await balanceOf(customer.id)).toBe(10);
  });

  it('replays a refusal too (422 adjustment_failed), without retrying the debit', async () => {
    const customer = await newCustomer(app, merchantId, { points: 5 });
    const key = randomUUID();
    const first = await credit(customer.platformId, key, { points: -6, description: 'too much' });
    await app.db.customer.updateMany({ where: { id: customer.id }, data: { pointsBalance: 6, pointsEarned: 6 } });
    const again = await credit(customer.platformId, key, { points: -6, description: 'too much' });
    expect(first.status).toBe(422);
    expect(again).toMatchObject({ status: 422, body: first.body });
    expect(await balanceOf(customer.id)).toBe(6); // the debit would fit now: it was not retried
  });

  it('refuses the same key with another body or path: 422 idempotency_key_reused', async () => {
    const customer = await newCustomer(app, merchantId);
    const key = randomUUID();
    await credit(customer.platformId, key);
    const otherBody = await credit(customer.platformId, key, { points: 11, description: 'retry me' });
    expect(otherBody.status).toBe(422);
    expect(otherBody.body.error.code).toBe('idempotency_key_reused');
    const otherCustomer = await newCustomer(app, merchantId);
    expect((await credit(otherCustomer.platformId, key)).body.error.code).toBe('idempotency_key_reused');
    expect(await balanceOf(otherCustomer.id)).toBe(0);
    expect(await balanceOf(customer.id)).toBe(10);
  });

  it("keeps each merchant's keys apart: another merchant may use the same key for its own request", async () => {
    const customer = await newCustomer(app, merchantId);
    const key = randomUUID();
    expect((await credit(customer.platformId, key)).status).toBe(201);
    const other = await newMerchant(app, 'other');
    const theirs = await newCustomer(app, other.id, { customerId: customer.platformId });
    const theirApi = client(app, await newKey(app, other.id));
    const theirCredit = () =>
      theirApi.rest(
        'POST',
        `/v1/customers/transactions?customer_id=${theirs.platformId}`,
        { points: 4, description: 'theirs' },
        { 'Idempotency-Key': key },
      );
    const first = await theirCredit();
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(first.body.data).toMatchObject({ customer_id: theirs.id, points: 4 });
    const again = await theirCredit();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await balanceOf(theirs.id)).toBe(4);
    expect(await balanceOf(customer.id)).toBe(10);
  });

  it('answers 409 idempotency_in_progress while the first request runs', async () => {
    const customer = await newCustomer(app, merchantId);
    const key = randomUUID();
    // the key is checked (and cached) before the race, so both requests' first statement is
    // the read of the key's stored answer
    expect((await api.rest('GET', `/v1/customers/balance?customer_id=${customer.platformId}`)).status).toBe(200);
    // A transaction of the test's own holds the customer's row. On PostgreSQL the request that
    // claims the key first then waits for that row, holding its claim, so the other one's claim
    // waits past its patience and is refused. The embedded database runs one transaction at a
    // time: both requests read "no answer yet" while the test's transaction holds it, and
    // whichever claims second finds the first's claim, not an answer.
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding!: () => void;
    const held = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const lock = app.db.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT id FROM customers WHERE merchant_id = ${merchantId}::uuid AND id = ${customer.id}::uuid FOR UPDATE`;
        holding();
        await released;
      },
      { timeout: 30_000 },
    );
    await held;
    const answers = [credit(customer.platformId, key), credit(customer.platformId, key)];
    // the refused one answers while the row is still held (PostgreSQL); the embedded database
    // lets nothing through until the test's transaction ends
    const first = process.env.TEST_DATABASE_URL ? await Promise.race(answers) : undefined;
    if (!process.env.TEST_DATABASE_URL) await new Promise((r) => setTimeout(r, 500));
    release();
    await lock;
    const results = await Promise.all(answers);
    if (first) expect(first).toMatchObject({ status: 409, body: { error: { code: 'idempotency_in_progress' } } });
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(results.find((r) => r.status === 409)?.body.error.code).toBe('idempotency_in_progress');
    expect(await balanceOf(customer.id)).toBe(10);
    // the refused request left the key to the first: a retry now replays the first's answer
    const retry = await credit(customer.platformId, key);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(results.find((r) => r.status === 201)?.body);
  });

  it('stores nothing for a request that failed validation: the key can be reused', async () => {
    const customer = await newCustomer(app, merchantId);
    const key = randomUUID();
    expect((await credit(customer.platformId, key, { points: 0, description: 'zero' })).status).toBe(422);
    expect((await credit(customer.platformId, key, { points: 1.5, description: 'x' })).status).toBe(422);
    expect((await credit(customer.platformId, key)).status).toBe(201);
    expect(await balanceOf(customer.id)).toBe(10);
  });

  it('validates the header: at most 255 visible characters', async () => {
    const customer = await newCustomer(app, merchantId);
    const res = await credit(customer.platformId, 'k'.repeat(256));
    expect(res.status).toBe(422);
    expect(res.body.error.details['Idempotency-Key']).toBeDefined();
    expect((await credit(customer.platformId, 'k'.repeat(255))).status).toBe(201);
  });

  it('works for GraphQL mutations, sharing the store', async () => {
    const customer = await newCustomer(app, merchantId);
    const key = randomUUID();
    const bearer = `Bearer ${await newKey(app, merchantId)}`;
    const run = () =>
      app.fetch('/graphql', {
        method: 'POST',
        headers: { authorization: bearer, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({
          query: `mutation { create_customer_transaction(customer_id: "${customer.platformId}", points: 7, description: "gql retry") { data { transaction_id } } }`,
        }),
      });
    const first = await (await run()).json();
    const second = await run();
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await second.json()).toEqual(first);
    expect(await balanceOf(customer.id)).toBe(7);
  });
});
