// Spec 4.2: POST /customers/transactions — manual credits and debits.
import { beforeAll, describe, expect, it } from 'vitest';
import { client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let merchantId: string;

beforeAll(async () => {
  app = await testApp();
  merchantId = (await newMerchant(app)).id;
  api = client(app, await newKey(app, merchantId));
});

const post = (customerId: string, body: unknown) =>
  api.rest('POST', `/v1/customers/transactions?customer_id=${encodeURIComponent(customerId)}`, body);

const balance = async (customerId: string) =>
  (await api.rest('GET', `/v1/customers/balance?customer_id=${customerId}`)).body.data.points_balance as number;

describe('POST /v1/customers/transactions', () => {
  it('credits with 201 and the 2.3 fields exactly', async () => {
    const customer = await newCustomer(app, merchantId);
    const res = await post(customer.platformId, { points: 250, description: 'Goodwill' });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(Object.keys(res.body.data).sort()).toEqual(['customer_id', 'points', 'transaction_id', 'type']);
    expect(res.body.data).toMatchObject({ customer_id: customer.id, points: 250, type: 'credit' });
    expect(res.body.data.transaction_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await balance(customer.platformId)).toBe(250);
  });

  it('debits with a negative value and type debit', async () => {
    const customer = await newCustomer(app, merchantId, { points: 100 });
    const res = await post(customer.platformId, { points: -40, description: 'Correction' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ points: -40, type: 'debit' });
    expect(await balance(customer.platformId)).toBe(60);
  });

  it('refuses a debit below zero with 422 adjustment_failed and leaves the balance', async () => {
    const customer = await newCustomer(app, merchantId, { points: 30 });
    const res = await post(customer.platformId, { points: -31, description: 'Too much' });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('adjustment_failed');
    expect(res.body.error.message).toMatch(/insufficient/i);
    expect(await balance(customer.platformId)).toBe(30);
  });

  it.each([
    [{ description: 'x' }, 'points'],
    [{ points: 5 }, 'description'],
    [{ points: 0, description: 'x' }, 'points'],
    [{ points: 1.5, description: 'x' }, 'points'],
    [{ points: '12abc', description: 'x' }, 'points'],
    [{ points: 5, description: '   ' }, 'description'],
    [{ points: 5, description: 42 }, 'description'],
  ])('rejects %j with 422 validation_error naming %s, changing nothing', async (body, field) => {
    const customer = await newCustomer(app, merchantId, { points: 10 });
    const res = await post(customer.platformId, body);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details[field]).toEqual(expect.arrayContaining([expect.any(String)]));
    expect(await balance(customer.platformId)).toBe(10);
  });

  it('needs customer_id (422) and answers 404 not_found for an unknown one', async () => {
    const missing = await api.rest('POST', '/v1/customers/transactions', { points: 5, description: 'x' });
    expect(missing.status).toBe(422);
    expect(missing.body.error.details.customer_id).toBeDefined();
    const unknown = await post('nobody-here', { points: 5, description: 'x' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
  });

  it('answers 422 validation_error for a body that is not JSON', async () => {
    const customer = await newCustomer(app, merchantId);
    const res = await api.rest('POST', `/v1/customers/transactions?customer_id=${customer.platformId}`, '{"points": 5,');
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_error');
  });

  it('writes the description to the transaction history and the activity log', async () => {
    const customer = await newCustomer(app, merchantId);
    await post(customer.platformId, { points: 70, description: 'Birthday gift from the team' });
    const tx = await app.db.pointsTransaction.findFirstOrThrow({ where: { customerId: customer.id } });
    expect(tx).toMatchObject({ points: 70, type: 'credit', description: 'Birthday gift from the team', balanceAfter: 70 });
    const activity = await app.db.activity.findFirstOrThrow({ where: { customerId: customer.id } });
    expect(activity).toMatchObject({ description: 'Birthday gift from the team', pointsChange: 70, type: 'adjustment' });
  });

  it('is the same mutation over GraphQL, with the code in extensions', async () => {
    const customer = await newCustomer(app, merchantId, { points: 5 });
    const mutation = `mutation ($id: String!, $points: Int!) {
      create_customer_transaction(customer_id: $id, points: $points, description: "gql") { data { points type customer_id } } }`;
    const ok = await api.gql(mutation, { id: customer.platformId, points: -5 });
    expect(ok.body.data.create_customer_transaction.data).toEqual({ points: -5, type: 'debit', customer_id: customer.id });
    const refused = await api.gql(mutation, { id: customer.platformId, points: -1 });
    expect(refused.body.errors?.[0].extensions.code).toBe('adjustment_failed');
  });

  it('never overdraws under concurrency: 40 debits of 10 against 200 points', async () => {
    const customer = await newCustomer(app, merchantId, { points: 200 });
    const results = await Promise.all(Array.from({ length: 40 }, () => post(customer.platformId, { points: -10, description: 'race' })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(20);
    expect(statuses.filter((s) => s === 422)).toHaveLength(20);
    expect(await balance(customer.platformId)).toBe(0);
    const sum = await app.db.pointsTransaction.aggregate({ where: { customerId: customer.id }, _sum: { points: true } });
    expect(sum._sum.points).toBe(0);
  });
});
