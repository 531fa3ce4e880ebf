// Spec 4.1: GET /customers/activities, REST and GraphQL.
import { beforeAll, describe, expect, it } from 'vitest';
import { applyPoints } from '../../src/domain/ledger/ledger.js';
import { client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let merchantId: string;
let customer: Awaited<ReturnType<typeof newCustomer>>;
let ledgerActivityId: string;
let ledgerTransactionId: string;

const ACTIVITY_FIELDS = ['balance_after', 'created_at', 'description', 'id', 'occurred_at', 'points_change', 'reference', 'status', 'type'];

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));
const list = (query: string) => api.rest('GET', `/v1/customers/activities?${query}`);

beforeAll(async () => {
  app = await testApp();
  merchantId = (await newMerchant(app, 'activities')).id;
  api = client(app, await newKey(app, merchantId));
  customer = await newCustomer(app, merchantId, { customerId: 'act-1', email: 'act@example.com' });
  const credit = await applyPoints(app.db, {
    merchantId,
    customerId: customer.id,
    points: 150,
    description: 'Order #1001',
    source: 'earning_rule',
    activityType: 'purchase',
    reference: { kind: 'order', id: '1001' },
  });
  ledgerActivityId = credit.activityId;
  const debit = await applyPoints(app.db, {
    merchantId,
    customerId: customer.id,
    points: -50,
    description: 'Correction',
    source: 'manual',
    activityType: 'adjustment',
  });
  ledgerTransactionId = debit.transactionId;
  // pin the ledger rows' times so the order below is exact
  await app.db.activity.updateMany({ where: { id: credit.activityId }, data: { occurredAt: at(10), createdAt: at(10) } });
  await app.db.activity.updateMany({ where: { id: debit.activityId }, data: { occurredAt: at(20), createdAt: at(20) } });
  const base = { merchantId, customerId: customer.id, description: 'x' };
  await app.db.activity.createMany({
    data: [
      // happened earliest, recorded last: occurred_at decides
      {
        ...base,
        id: '00000000-0000-4000-8000-0000000000a1',
        type: 'review',
        description: 'Review pending',
        pointsChange: 25,
        status: 'pending',
        occurredAt: at(5),
        createdAt: at(30),
      },
      // same occurred_at: the later created_at first, then id descending
      {
        ...base,
        id: '00000000-0000-4000-8000-0000000000b1',
        type: 'tier_change',
        description: 'Reached Gold',
        occurredAt: at(15),
        createdAt: at(15),
      },
      {
        ...base,
        id: '00000000-0000-4000-8000-0000000000b2',
        type: 'tier_change',
        description: 'B2',
        occurredAt: at(15),
        createdAt: at(16),
      },
      {
        ...base,
        id: '00000000-0000-4000-8000-0000000000b3',
        type: 'tier_change',
        description: 'B3',
        occurredAt: at(15),
        createdAt: at(15),
      },
    ],
  });
  // another customer's and another merchant's activities never show
  const sibling = await newCustomer(app, merchantId, { points: 5 });
  const otherMerchant = (await newMerchant(app, 'other')).id;
  const foreign = await newCustomer(app, otherMerchant, { customerId: 'act-1', email: 'act@example.com', points: 9 });
  expect(sibling.id).not.toBe(foreign.id);
});

describe('GET /v1/customers/activities', () => {
  it('lists the customer’s activity log newest first with exactly the Activity fields', async () => {
    const res = await list('customer_id=act-1');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'meta']);
    for (const a of res.body.data) expect(Object.keys(a).sort()).toEqual(ACTIVITY_FIELDS);
    expect(res.body.data.map((a: any) => a.description)).toEqual([
      'Correction',
      'B2',
      'B3',
      'Reached Gold',
      'Order #1001',
      'Review pending',
    ]);
    expect(res.body.meta.pagination).toEqual({ current_page: 1, per_page: 20, total: 6, last_page: 1, has_more: false });
    expect(res.body.data[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'adjustment',
      description: 'Correction',
      points_change: -50,
      balance_after: 100,
      status: 'approved',
      // a ledger movement without its own reference points at its transaction
      reference: { kind: 'transaction', id: ledgerTransactionId },
      occurred_at: '2026-01-01T00:20:00.000Z',
      created_at: '2026-01-01T00:20:00.000Z',
    });
    expect(res.body.data[4]).toMatchObject({
      id: ledgerActivityId,
      type: 'purchase',
      points_change: 150,
      balance_after: 150,
      reference: { kind: 'order', id: '1001' },
    });
    expect(res.body.data[5]).toMatchObject({
      type: 'review',
      status: 'pending',
      points_change: 25,
      balance_after: null,
      reference: null,
      occurred_at: '2026-01-01T00:05:00.000Z',
      created_at: '2026-01-01T00:30:00.000Z',
    });
  });

  it('names the customer by email too (case-insensitive)', async () => {
    const byEmail = await list('email=ACT%40example.com');
    expect(byEmail.status).toBe(200);
    expect(byEmail.body).toEqual((await list('customer_id=act-1')).body);
  });

  it('paginates; a page past the end is empty', async () => {
    const page2 = await list('customer_id=act-1&per_page=4&page=2');
    expect(page2.body.data.map((a: any) => a.description)).toEqual(['Order #1001', 'Review pending']);
    expect(page2.body.meta.pagination).toEqual({ current_page: 2, per_page: 4, total: 6, last_page: 2, has_more: false });
    // a deep page cuts through rows of the same occurred_at in their order (created_at, then id)
    const ties = await list('customer_id=act-1&per_page=2&page=2');
    expect(ties.body.data.map((a: any) => a.description)).toEqual(['B3', 'Reached Gold']);
    expect(ties.body.meta.pagination).toMatchObject({ total: 6, last_page: 3 });
    const page1 = await list('customer_id=act-1&per_page=4');
    expect(page1.body.meta.pagination).toMatchObject({ current_page: 1, has_more: true, last_page: 2 });
    const past = await list('customer_id=act-1&per_page=4&page=3');
    expect(past.body.data).toEqual([]);
    const bad = await list('customer_id=act-1&per_page=500');
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.per_page).toBeDefined();
  });

  it('needs customer_id or email (422) and answers 404 for an unknown or foreign customer', async () => {
    const missing = await api.rest('GET', '/v1/customers/activities');
    expect(missing.status).toBe(422);
    expect(missing.body.error.code).toBe('validation_error');
    expect(missing.body.error.details.customer_id).toBeDefined();
    expect((await list('customer_id=act%00')).status).toBe(422); // NUL is refused at the gate
    for (const q of ['customer_id=nobody', 'email=nobody%40example.com', 'email=%25']) {
      const res = await list(q);
      expect(res.status, q).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    // another merchant's customer with a platform id of its own
    const otherMerchant = (await newMerchant(app, 'third')).id;
    const foreign = await newCustomer(app, otherMerchant, { customerId: 'only-there', points: 3 });
    expect((await list(`customer_id=${foreign.platformId}`)).status).toBe(404);
    expect((await list(`email=${encodeURIComponent(foreign.email)}`)).status).toBe(404);
  });

  it('needs read:activities: a custom key with exactly it succeeds, others get 403', async () => {
    const reader = client(app, await newKey(app, merchantId, 'custom', { activities: 'read' }));
    expect((await reader.rest('GET', '/v1/customers/activities?customer_id=act-1')).status).toBe(200);
    const lacking = client(app, await newKey(app, merchantId, 'custom', { customers: 'write', transactions: 'write' }));
    const res = await lacking.rest('GET', '/v1/customers/activities?customer_id=act-1');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
    expect(res.body.error.message).toContain('read:activities');
    const gql = await lacking.gql('{ customer_activities(customer_id: "act-1") { data { id } } }');
    expect(gql.body.errors?.[0].extensions.code).toBe('insufficient_scope');
    expect(gql.body.errors?.[0].message).toContain('read:activities');
  });

  it('is the same query over GraphQL', async () => {
    const rest = await list('customer_id=act-1&per_page=3');
    const res = await api.gql(
      `query ($id: String) {
      customer_activities(customer_id: $id, per_page: 3) {
        data { id type description points_change balance_after status reference { kind id } occurred_at created_at }
        meta { pagination { current_page per_page total last_page has_more } }
      } }`,
      { id: 'act-1' },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.customer_activities).toEqual(rest.body);
    const missing = await api.gql('{ customer_activities { data { id } } }');
    expect(missing.body.errors?.[0].extensions.code).toBe('validation_error');
  });
});
