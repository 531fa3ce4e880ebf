// Spec 4.1: GET /customers/referrals, GET /referrals/program, GET /booster-campaigns
// (REST and GraphQL).
import { beforeAll, describe, expect, it } from 'vitest';
import { client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let merchantId: string;
let otherMerchantId: string;
let referrer: Awaited<ReturnType<typeof newCustomer>>;
let referee: Awaited<ReturnType<typeof newCustomer>>;

const REFERRAL_FIELDS = [
  'completed_at',
  'created_at',
  'id',
  'order_id',
  'referee_customer_id',
  'referee_email',
  'referrer_points',
  'status',
];
const BOOSTER_FIELDS = ['campaign_types', 'created_at', 'description', 'ends_at', 'id', 'is_active', 'multiplier', 'name', 'starts_at'];

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));
const DAY = 86_400_000;

beforeAll(async () => {
  app = await testApp();
  merchantId = (await newMerchant(app, 'referrals')).id;
  otherMerchantId = (await newMerchant(app, 'other')).id;
  api = client(app, await newKey(app, merchantId));
  referrer = await newCustomer(app, merchantId, { customerId: 'ref-1', email: 'referrer@example.com' });
  referee = await newCustomer(app, merchantId, { customerId: 'ref-2', email: 'friend@example.com' });
  const base = { merchantId, referrerId: referrer.id };
  await app.db.referral.createMany({
    data: [
      { ...base, id: '00000000-0000-4000-8000-0000000000c1', refereeEmail: 'pending@example.com', createdAt: at(30) },
      {
        ...base,
        id: '00000000-0000-4000-8000-0000000000c2',
        refereeEmail: 'friend@example.com',
        refereeId: referee.id,
        status: 'completed',
        referrerPoints: 500,
        orderId: 'order-77',
        createdAt: at(10),
        completedAt: at(20),
      },
      // same created_at as c1: id descending breaks the tie
      { ...base, id: '00000000-0000-4000-8000-0000000000c3', refereeEmail: 'late@example.com', status: 'expired', createdAt: at(30) },
      // the referee's own referral: not the referrer's
      { merchantId, referrerId: referee.id, refereeEmail: 'someone@example.com', createdAt: at(40) },
    ],
  });
});

describe('GET /v1/customers/referrals', () => {
  it('lists the referrals the customer made, newest first, with exactly the Referral fields', async () => {
    const res = await api.rest('GET', '/v1/customers/referrals?customer_id=ref-1');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'meta']);
    for (const r of res.body.data) expect(Object.keys(r).sort()).toEqual(REFERRAL_FIELDS);
    expect(res.body.data.map((r: any) => r.referee_email)).toEqual(['late@example.com', 'pending@example.com', 'friend@example.com']);
    expect(res.body.meta.pagination).toEqual({ current_page: 1, per_page: 20, total: 3, last_page: 1, has_more: false });
    expect(res.body.data[2]).toEqual({
      id: '00000000-0000-4000-8000-0000000000c2',
      referee_email: 'friend@example.com',
      referee_customer_id: 'ref-2',
      status: 'completed',
      referrer_points: 500,
      order_id: 'order-77',
      created_at: '2026-01-01T00:10:00.000Z',
      completed_at: '2026-01-01T00:20:00.000Z',
    });
    expect(res.body.data[1]).toEqual({
      id: '00000000-0000-4000-8000-0000000000c1',
      referee_email: 'pending@example.com',
      referee_customer_id: null,
      status: 'pending',
      referrer_points: null,
      order_id: null,
      created_at: '2026-01-01T00:30:00.000Z',
      completed_at: null,
    });
    const byEmail = await api.rest('GET', '/v1/customers/referrals?email=Referrer%40example.com');
    expect(byEmail.body).toEqual(res.body);
  });

  it('paginates', async () => {
    const res = await api.rest('GET', '/v1/customers/referrals?customer_id=ref-1&per_page=2&page=2');
    expect(res.body.data.map((r: any) => r.referee_email)).toEqual(['friend@example.com']);
    expect(res.body.meta.pagination).toEqual({ current_page: 2, per_page: 2, total: 3, last_page: 2, has_more: false });
    const past = await api.rest('GET', '/v1/customers/referrals?customer_id=ref-1&per_page=2&page=9');
    expect(past.body.data).toEqual([]);
  });

  it('needs customer_id or email (422); unknown or foreign customers are 404', async () => {
    const missing = await api.rest('GET', '/v1/customers/referrals');
    expect(missing.status).toBe(422);
    expect(missing.body.error.code).toBe('validation_error');
    const foreign = await newCustomer(app, otherMerchantId, { customerId: 'foreign-ref' });
    for (const q of ['customer_id=nobody', `customer_id=${foreign.platformId}`, `email=${encodeURIComponent(foreign.email)}`]) {
      const res = await api.rest('GET', `/v1/customers/referrals?${q}`);
      expect(res.status, q).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });
});

describe('GET /v1/referrals/program', () => {
  it('answers 200 with is_active false and null rewards when the merchant has no program (REST and GraphQL)', async () => {
    const bare = client(app, await newKey(app, (await newMerchant(app, 'bare')).id));
    const res = await bare.rest('GET', '/v1/referrals/program');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        is_active: false,
        referrer_reward: null,
        referee_reward: null,
        min_order_subtotal: null,
        share_url_template: null,
      },
    });
    const gql = await bare.gql(`{ referral_program { data {
      is_active referrer_reward { points } referee_reward { reward_type } min_order_subtotal share_url_template } } }`);
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.referral_program).toEqual(res.body);
  });

  it('returns the program with exactly its fields; the referee reward costs no points', async () => {
    await app.db.referralProgram.create({
      data: {
        merchantId,
        referrerPoints: 500,
        refereeRewardType: 'fixed_discount',
        refereeRewardRule: { discount_value: 10, min_order_subtotal: 50 },
        minOrderSubtotal: '25.50',
        shareUrlTemplate: 'https://shop.example/?ref={referral_code}',
      },
    });
    const res = await api.rest('GET', '/v1/referrals/program');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(Object.keys(res.body.data).sort()).toEqual([
      'is_active',
      'min_order_subtotal',
      'referee_reward',
      'referrer_reward',
      'share_url_template',
    ]);
    expect(res.body.data).toEqual({
      is_active: true,
      referrer_reward: { points: 500 },
      referee_reward: {
        reward_type: 'fixed_discount',
        reward_rule: {
          points_required: 0,
          discount_value: 10,
          max_discount_amount: null,
          credit_value: null,
          product_id: null,
          variant_id: null,
          max_shipping_amount: null,
          min_order_subtotal: 50,
          expires_after_days: null,
        },
      },
      min_order_subtotal: 25.5,
      share_url_template: 'https://shop.example/?ref={referral_code}',
    });
  });

  it('is the same query over GraphQL', async () => {
    const rest = await api.rest('GET', '/v1/referrals/program');
    const res = await api.gql(`{ referral_program { data {
      is_active referrer_reward { points }
      referee_reward { reward_type reward_rule { points_required discount_value max_discount_amount credit_value
        product_id variant_id max_shipping_amount min_order_subtotal expires_after_days } }
      min_order_subtotal share_url_template } } }`);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.referral_program).toEqual(rest.body);
  });
});

describe('GET /v1/booster-campaigns', () => {
  beforeAll(async () => {
    const now = Date.now();
    const base = { merchantId, multiplier: '2', campaignTypes: ['purchase' as const] };
    await app.db.boosterCampaign.createMany({
      data: [
        {
          ...base,
          id: '00000000-0000-4000-8000-0000000000d1',
          name: 'Double weekend',
          description: 'Twice the points',
          multiplier: '1.5',
          campaignTypes: ['purchase', 'review'],
          startsAt: new Date(now - DAY),
          endsAt: new Date(now + DAY),
          createdAt: at(10),
        },
        { ...base, name: 'Open-ended', startsAt: new Date(now - 2 * DAY), endsAt: null, createdAt: at(20) },
        { ...base, name: 'Not started', startsAt: new Date(now + DAY), createdAt: at(30) },
        { ...base, name: 'Ended', startsAt: new Date(now - 3 * DAY), endsAt: new Date(now - DAY), createdAt: at(40) },
        { ...base, name: 'Paused', isActive: false, startsAt: new Date(now - DAY), createdAt: at(50) },
        { ...base, name: 'Older', startsAt: new Date(now - DAY), createdAt: at(5) },
        { ...base, merchantId: otherMerchantId, name: 'Foreign', startsAt: new Date(now - DAY), createdAt: at(60) },
      ],
    });
  });

  it('lists only active, current campaigns, newest first, with exactly the Booster fields', async () => {
    const res = await api.rest('GET', '/v1/booster-campaigns');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'meta']);
    expect(res.body.data.map((b: any) => b.name)).toEqual(['Open-ended', 'Double weekend', 'Older']);
    for (const b of res.body.data) expect(Object.keys(b).sort()).toEqual(BOOSTER_FIELDS);
    expect(res.body.meta.pagination).toEqual({ current_page: 1, per_page: 20, total: 3, last_page: 1, has_more: false });
    expect(res.body.data[1]).toEqual({
      id: '00000000-0000-4000-8000-0000000000d1',
      name: 'Double weekend',
      description: 'Twice the points',
      multiplier: 1.5,
      campaign_types: ['purchase', 'review'],
      starts_at: expect.stringMatching(/Z$/),
      ends_at: expect.stringMatching(/Z$/),
      is_active: true,
      created_at: '2026-01-01T00:10:00.000Z',
    });
    expect(res.body.data[0]).toMatchObject({ multiplier: 2, ends_at: null, description: null });
  });

  it('paginates', async () => {
    const res = await api.rest('GET', '/v1/booster-campaigns?per_page=2&page=2');
    expect(res.body.data.map((b: any) => b.name)).toEqual(['Older']);
    expect(res.body.meta.pagination).toEqual({ current_page: 2, per_page: 2, total: 3, last_page: 2, has_more: false });
    const bad = await api.rest('GET', '/v1/booster-campaigns?page=-1');
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.page).toBeDefined();
  });

  it('is the same query over GraphQL', async () => {
    const rest = await api.rest('GET', '/v1/booster-campaigns?per_page=2');
    const res = await api.gql(`{ booster_campaigns(per_page: 2) {
      data { id name description multiplier campaign_types starts_at ends_at is_active created_at }
      meta { pagination { current_page per_page total last_page has_more } } } }`);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.booster_campaigns).toEqual(rest.body);
  });
});

describe('scopes', () => {
  it('referrals need read:referrals: a custom key with exactly it succeeds, others get 403', async () => {
    const reader = client(app, await newKey(app, merchantId, 'custom', { referrals: 'read' }));
    expect((await reader.rest('GET', '/v1/customers/referrals?customer_id=ref-1')).status).toBe(200);
    expect((await reader.rest('GET', '/v1/referrals/program')).status).toBe(200);
    const lacking = client(app, await newKey(app, merchantId, 'custom', { customers: 'write', booster_campaigns: 'write' }));
    for (const path of ['/v1/customers/referrals?customer_id=ref-1', '/v1/referrals/program']) {
      const res = await lacking.rest('GET', path);
      expect(res.status, path).toBe(403);
      expect(res.body.error.code).toBe('insufficient_scope');
      expect(res.body.error.message).toContain('read:referrals');
    }
    const gql = await lacking.gql('{ referral_program { data { is_active } } }');
    expect(gql.body.errors?.[0].extensions.code).toBe('insufficient_scope');
    expect(gql.body.errors?.[0].message).toContain('read:referrals');
  });

  it('boosters need read:booster_campaigns: a custom key with exactly it succeeds, others get 403', async () => {
    const reader = client(app, await newKey(app, merchantId, 'custom', { booster_campaigns: 'read' }));
    expect((await reader.rest('GET', '/v1/booster-campaigns')).status).toBe(200);
    const lacking = client(app, await newKey(app, merchantId, 'custom', { referrals: 'read', earning_rules: 'read' }));
    const res = await lacking.rest('GET', '/v1/booster-campaigns');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
    expect(res.body.error.message).toContain('read:booster_campaigns');
    const gql = await lacking.gql('{ booster_campaigns { data { id } } }');
    expect(gql.body.errors?.[0].message).toContain('read:booster_campaigns');
  });
});

describe('GraphQL: customer referrals', () => {
  it('is the same query over GraphQL', async () => {
    const rest = await api.rest('GET', '/v1/customers/referrals?email=referrer%40example.com');
    const res = await api.gql(
      `query ($email: String) { customer_referrals(email: $email) {
      data { id referee_email referee_customer_id status referrer_points order_id created_at completed_at }
      meta { pagination { current_page per_page total last_page has_more } } } }`,
      { email: 'referrer@example.com' },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.customer_referrals).toEqual(rest.body);
    const unknown = await api.gql('{ customer_referrals(customer_id: "nobody") { data { id } } }');
    expect(unknown.body.errors?.[0].extensions.code).toBe('not_found');
  });
});
