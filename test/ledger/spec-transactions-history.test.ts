// Spec 4.1: GET /customers/transactions, REST and GraphQL.
import { beforeAll, describe, expect, it } from 'vitest';
import { applyPoints } from '../../src/domain/ledger/ledger.js';
import { client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let merchantId: string;
let customer: Awaited<ReturnType<typeof newCustomer>>;
const ids: string[] = []; // in the order made

const TRANSACTION_FIELDS = [
  'balance_after',
  'created_at',
  'customer_id',
  'description',
  'placed_at',
  'points',
  'source',
  'transaction_id',
  'type',
];

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));
const list = (query: string) => api.rest('GET', `/v1/customers/transactions?${query}`);

beforeAll(async () => {
  app = await testApp();
  merchantId = (await newMerchant(app, 'history')).id;
  api = client(app, await newKey(app, merchantId));
  customer = await newCustomer(app, merchantId, { customerId: 'hist-1', email: 'hist@example.com' });
  const credit = await applyPoints(app.db, {
    merchantId,
    customerId: customer.id,
    points: 300,
    description: 'Order #55',
    source: 'earning_rule',
    activityType: 'purchase',
    // an order recorded the morning after it was placed
    placedAt: new Date('2025-12-31T23:00:00.000Z'),
  });
  ids.push(credit.transactionId);
  // through the public endpoint, as an integration would
  const posted = await api.rest('POST', '/v1/customers/transactions?customer_id=hist-1', {
    points: -120,
    description: 'Manual correction',
  });
  expect(posted.status).toBe(201);
  ids.push(posted.body.data.transaction_id);
  const booster = await applyPoints(app.db, {
    merchantId,
    customerId: customer.id,
    points: 45,
    description: 'Booster bonus',
    source: 'booster',
    activityType: 'purchase',
  });
  ids.push(booster.transactionId);
  // distinct, known times (the ledger stamps now(), equal within a millisecond)
  for (const [i, id] of ids.entries()) {
    const posted = at(10 * (i + 1));
    await app.db.pointsTransaction.updateMany({ where: { id }, data: { createdAt: posted, ...(i > 0 && { placedAt: posted }) } });
  }
  // another customer's movements never show
  await newCustomer(app, merchantId, { customerId: 'hist-2', points: 999 });
});

describe('GET /v1/customers/transactions', () => {
  it('lists the history newest first with the 2.3 fields plus description, source, balance_after, placed_at, created_at', async () => {
    const res = await list('customer_id=hist-1');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'meta']);
    for (const t of res.body.data) expect(Object.keys(t).sort()).toEqual(TRANSACTION_FIELDS);
    expect(res.body.data.map((t: any) => t.transaction_id)).toEqual([...ids].reverse());
    expect(res.body.meta.pagination).toEqual({ current_page: 1, per_page: 20, total: 3, last_page: 1, has_more: false });
    expect(res.body.data).toEqual([
      {
        transaction_id: ids[2],
        customer_id: customer.id,
        points: 45,
        type: 'credit',
        description: 'Booster bonus',
        source: 'booster',
        balance_after: 225,
        placed_at: '2026-01-01T00:30:00.000Z',
        created_at: '2026-01-01T00:30:00.000Z',
      },
      {
        transaction_id: ids[1],
        customer_id: customer.id,
        points: -120,
        type: 'debit',
        description: 'Manual correction',
        source: 'manual',
        balance_after: 180,
        placed_at: '2026-01-01T00:20:00.000Z',
        created_at: '2026-01-01T00:20:00.000Z',
      },
      {
        transaction_id: ids[0],
        customer_id: customer.id,
        points: 300,
        type: 'credit',
        description: 'Order #55',
        source: 'earning_rule',
        balance_after: 300,
        placed_at: '2025-12-31T23:00:00.000Z',
        created_at: '2026-01-01T00:10:00.000Z',
      },
    ]);
    const byEmail = await list('email=HIST%40example.com');
    expect(byEmail.body).toEqual(res.body);
  });

  it('paginates; a page past the end is empty', async () => {
    const page2 = await list('customer_id=hist-1&per_page=2&page=2');
    expect(page2.body.data.map((t: any) => t.transaction_id)).toEqual([ids[0]]);
    expect(page2.body.meta.pagination).toEqual({ current_page: 2, per_page: 2, total: 3, last_page: 2, has_more: false });
    const page1 = await list('customer_id=hist-1&per_page=2');
    expect(page1.body.meta.pagination.has_more).toBe(true);
    expect((await list('customer_id=hist-1&page=4')).body.data).toEqual([]);
    const bad = await list('customer_id=hist-1&per_page=1.5');
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe('validation_error');
    expect(bad.body.error.details.per_page).toBeDefined();
  });

  it('needs customer_id or email (422); unknown or foreign customers are 404', async () => {
    const missing = await api.rest('GET', '/v1/customers/transactions');
    expect(missing.status).toBe(422);
    expect(missing.body.error.code).toBe('validation_error');
    expect(missing.body.error.details.customer_id).toBeDefined();
    const other = (await newMerchant(app, 'other')).id;
    const foreign = await newCustomer(app, other, { customerId: 'hist-foreign', points: 10 });
    for (const q of ['customer_id=nobody', `customer_id=${foreign.platformId}`, `email=${encodeURIComponent(foreign.email)}`]) {
      const res = await list(q);
      expect(res.status, q).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  it('needs read:transactions: read or write keys succeed, others get 403', async () => {
    const reader = client(app, await newKey(app, merchantId, 'custom', { transactions: 'read' }));
    expect((await reader.rest('GET', '/v1/customers/transactions?customer_id=hist-1')).status).toBe(200);
    const writer = client(app, await newKey(app, merchantId, 'custom', { transactions: 'write' }));
    expect((await writer.rest('GET', '/v1/customers/transactions?customer_id=hist-1')).status).toBe(200);
    // a read-only transactions key may list but not create
    const create = await reader.rest('POST', '/v1/customers/transactions?customer_id=hist-1', { points: 1, description: 'x' });
    expect(create.status).toBe(403);
    const lacking = client(app, await newKey(app, merchantId, 'custom', { customers: 'write', activities: 'read' }));
    const res = await lacking.rest('GET', '/v1/customers/transactions?customer_id=hist-1');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
    expect(res.body.error.message).toContain('read:transactions');
    const gql = await lacking.gql('{ customer_transactions(customer_id: "hist-1") { data { transaction_id } } }');
    expect(gql.body.errors?.[0].extensions.code).toBe('insufficient_scope');
    expect(gql.body.errors?.[0].message).toContain('read:transactions');
  });

  it('is the same query over GraphQL', async () => {
    const rest = await list('customer_id=hist-1&per_page=2');
    const res = await api.gql(
      `query ($id: String) { customer_transactions(customer_id: $id, per_page: 2) {
      data { transaction_id customer_id points type description source balance_after placed_at created_at }
      meta { pagination { current_page per_page total last_page has_more } } } }`,
      { id: 'hist-1' },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.customer_transactions).toEqual(rest.body);
  });
});
