// Privacy requests and the audit log through the admin API (/admin/graphql and the admin
// app's session endpoint): a customer's export holds everything held about them; an erasure
// removes their personal data everywhere it was copied, keeps the ledger, makes the public API
// answer not_found and is idempotent; every admin change is audited with who, what,
// before/after and when, never with a secret.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { applyPoints } from '../../src/domain/ledger/ledger.js';
import { adminSchema } from '../../src/graphql/admin.js';
import { isAudited } from '../../src/graphql/audit.js';
import { adminClient, adminSession, client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
let merchant: Awaited<ReturnType<typeof newMerchant>>;
let admin: ReturnType<typeof adminClient>;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  app = await testApp();
  merchant = await newMerchant(app, 'privacy');
  admin = adminClient(app, merchant.admin_token);
  api = client(app, await newKey(app, merchant.id));
});

async function ok(query: string, variables?: Record<string, unknown>, run = admin) {
  const res = await run(query, variables);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  expect(res.status).toBe(200);
  return res.body.data;
}

async function fails(query: string, variables?: Record<string, unknown>) {
  const res = await admin(query, variables);
  expect(res.body.errors?.length, JSON.stringify(res.body)).toBeGreaterThan(0);
  return { status: res.status, code: res.body.errors![0].extensions?.code as string };
}

const CREATE_CUSTOMER = `mutation ($input: CustomerInput!) { create_customer(input: $input) { id customer_id } }`;
const EXPORT = `query ($id: ID!) { customer_export(id: $id) }`;
const ERASE = `mutation ($id: ID!) { erase_customer(id: $id) { id erased_at erased_now points_balance } }`;
const AUDIT = `query ($page: Int, $per_page: Int, $action: String, $resource_id: String) {
  audit_log(page: $page, per_page: $per_page, action: $action, resource_id: $resource_id) {
    data { id actor action resource_type resource_id args before after created_at }
    meta { pagination { total current_page last_page has_more } } } }`;

/** A customer with something in every part of the export: ledger, activity, referral, order. */
async function aliceWithHistory() {
  const tag = randomUUID().slice(0, 8);
  const alice = {
    customer_id: `alice-${tag}`,
    email: `alice.${tag}@example.com`,
    first_name: `Alicia${tag}`,
    last_name: `Liddell${tag}`,
    birthday: '1990-05-04',
  };
  await ok(`mutation ($input: ReferralProgramInput!) { set_referral_program(input: $input) { is_active } }`, {
    input: { referrer_reward: { points: 50 }, referee_reward: { reward_type: 'free_shipping' } },
  });
  const referrer = await newCustomer(app, merchant.id);
  await ok(`mutation ($input: ReferralEventInput!) { record_referral(input: $input) { id } }`, {
    input: { referrer_code: referrer.referralCode, referee_email: alice.email },
  });
  const created = (await ok(CREATE_CUSTOMER, { input: alice })).create_customer;
  await ok(`mutation ($id: ID!, $input: CustomerPatch!) { update_customer(id: $id, input: $input) { id } }`, {
    id: alice.customer_id,
    input: { first_name: alice.first_name },
  });
  // an idempotent admin request: its response (which names Alice) is stored for replays
  const adjusted = await app.fetch('/admin/graphql', {
    method: 'POST',
    headers: { authorization: `Bearer ${merchant.admin_token}`, 'content-type': 'application/json', 'idempotency-key': `adj-${tag}` },
    body: JSON.stringify({
      query: `mutation { adjust_points(id: "${alice.customer_id}", points: 120, description: "Welcome") { balance_after customer { email first_name } } }`,
    }),
  });
  expect(adjusted.status).toBe(200);
  await ok(`mutation ($input: OrderEventInput!) { record_order(input: $input) { order_id } }`, {
    input: { customer_id: alice.customer_id, order_id: `order-${tag}`, subtotal: 40 },
  });
  return { ...alice, id: created.id as string, referrerId: referrer.id };
}

describe('privacy export', () => {
  it('holds the profile, balance, ledger, activities, rewards, referrals, memberships and orders', async () => {
    const alice = await aliceWithHistory();
    const doc = (await ok(EXPORT, { id: alice.customer_id })).customer_export;
    expect(doc.format).toBe('loyalty.customer-export/1');
    expect(doc.customer).toMatchObject({
      id: alice.id,
      platform_id: alice.customer_id,
      email: alice.email,
      first_name: alice.first_name,
      last_name: alice.last_name,
      points_balance: 120,
    });
    expect(doc.customer.birthday).toMatch(/^1990-05-04/);
    expect(doc.balance).toMatchObject({ customer_id: alice.id, points_balance: 120, points_earned: 120 });
    expect(doc.ledger).toHaveLength(1);
    expect(doc.ledger[0]).toMatchObject({ points: 120, description: 'Welcome', source: 'manual' });
    expect(doc.activities.map((a: { description: string }) => a.description)).toContain('Welcome');
    // her first order completed the referral, which issued her the referee reward's code
    expect(doc.rewards).toHaveLength(1);
    expect(doc.rewards[0]).toMatchObject({ status: 'issued', points_spent: 0, reward: { reward_type: 'free_shipping' } });
    expect(doc.referrals.received).toHaveLength(1);
    expect(doc.referrals.received[0]).toMatchObject({ referee_email: alice.email, referrer_id: alice.referrerId });
    expect(doc.referrals.made).toEqual([]);
    expect(doc.memberships).toEqual([]);
    expect(doc.orders).toHaveLength(1);
  });

  it('holds every page of a long history, not the first one', async () => {
    const customer = await newCustomer(app, merchant.id);
    for (let i = 0; i < 105; i++) {
      await applyPoints(app.db, {
        merchantId: merchant.id,
        customerId: customer.id,
        points: 1,
        description: `visit ${i}`,
        source: 'manual',
        activityType: 'adjustment',
      });
    }
    const doc = (await ok(EXPORT, { id: customer.id })).customer_export;
    expect(doc.ledger).toHaveLength(105);
    expect(doc.activities).toHaveLength(105);
    expect(doc.balance.points_balance).toBe(105);
  });

  it('is not_found for an unknown customer', async () => {
    expect(await fails(EXPORT, { id: 'nobody' })).toEqual({ status: 404, code: 'not_found' });
  });
});

describe('privacy erasure', () => {
  it('removes the personal data everywhere, keeps the ledger, and the API answers not_found', async () => {
    const alice = await aliceWithHistory();
    const countBefore = (await api.rest('GET', '/v1/customers')).body.meta.pagination.total;
    const erased = (await ok(ERASE, { id: alice.customer_id })).erase_customer;
    expect(erased).toMatchObject({ id: alice.id, erased_now: true, points_balance: 120 });

    // the public and admin APIs no longer find the customer, by any name
    expect((await api.rest('GET', `/v1/customers/${alice.id}`)).status).toBe(404);
    const byPlatformId = await api.rest('GET', `/v1/customers/balance?customer_id=${alice.customer_id}`);
    expect(byPlatformId.status).toBe(404);
    expect(byPlatformId.body.error.code).toBe('not_found');
    expect((await api.rest('GET', `/v1/customers/balance?email=${encodeURIComponent(alice.email)}`)).status).toBe(404);
    expect(await fails(`query ($id: ID!) { customer(id: $id) { id } }`, { id: alice.id })).toEqual({ status: 404, code: 'not_found' });
    expect(await fails(EXPORT, { id: alice.id })).toEqual({ status: 404, code: 'not_found' });
    const list = await api.rest('GET', '/v1/customers?per_page=100');
    expect(list.body.data.map((c: { id: string }) => c.id)).not.toContain(alice.id);
    expect(list.body.meta.pagination.total).toBe(countBefore - 1);

    // the row is a tombstone; the ledger's amounts stay
    const row = await app.db.customer.findFirstOrThrow({ where: { id: alice.id } });
    expect(row).toMatchObject({ firstName: null, lastName: null, birthday: null, pointsBalance: 120, status: 'excluded' });
    expect(row.email).not.toContain(alice.email);
    expect(row.platformId).not.toBe(alice.customer_id);
    expect(row.erasedAt).toBeInstanceOf(Date);
    // nor are its points moved, by its old platform id or the tombstone's (the sum below is unchanged)
    for (const id of [alice.customer_id, row.platformId]) {
      const credit = await api.rest('POST', `/v1/customers/transactions?customer_id=${encodeURIComponent(id)}`, {
        points: 5,
        description: 'x',
      });
      expect(credit.status, id).toBe(404);
      expect(credit.body.error.code).toBe('not_found');
    }
    const ledger = await app.db.pointsTransaction.aggregate({ where: { customerId: alice.id }, _sum: { points: true } });
    expect(ledger._sum.points).toBe(120);

    // no copy of the personal data is left: referrals, stored event results, stored responses,
    // audit rows, webhook events (which held it before: customer.created names the customer)
    const needles = [alice.email, alice.customer_id, alice.first_name, alice.last_name];
    const events = await app.db.outboxEvent.findMany({
      where: { merchantId: merchant.id },
      select: { type: true, payload: true, body: true },
    });
    expect(events.map((e) => e.type)).toContain('customer.created');
    const copies = JSON.stringify([
      events,
      await app.db.referral.findMany({ where: { merchantId: merchant.id } }),
      await app.db.engineEvent.findMany({ where: { merchantId: merchant.id } }),
      await app.db.idempotencyKey.findMany({ where: { merchantId: merchant.id } }),
      await app.db.auditEntry.findMany({ where: { merchantId: merchant.id } }),
    ]).toLowerCase();
    for (const needle of needles) expect(copies, needle).not.toContain(needle.toLowerCase());
    // the referral itself (and the referrer's side of it) stays
    expect(await app.db.referral.count({ where: { merchantId: merchant.id, referrerId: alice.referrerId } })).toBe(1);
  });

  it('is idempotent: erasing again by internal id changes nothing and answers the same', async () => {
    const alice = await aliceWithHistory();
    const first = (await ok(ERASE, { id: alice.id })).erase_customer;
    const again = (await ok(ERASE, { id: alice.id })).erase_customer;
    expect(again).toEqual({ ...first, erased_now: false });
    // the platform id is gone with the rest: it names nobody now
    expect(await fails(ERASE, { id: alice.customer_id })).toEqual({ status: 404, code: 'not_found' });
    const entries = (await ok(AUDIT, { action: 'erase_customer', resource_id: alice.id })).audit_log;
    expect(entries.data).toHaveLength(2);
    expect(entries.data[1].before.erasedAt).toBeNull();
    expect(entries.data[1].after.erasedAt).toBe(first.erased_at);
  });
});

describe('audit log', () => {
  const CREATE_REWARD = `mutation ($input: RewardInput!) { create_reward(input: $input) { id } }`;
  const UPDATE_REWARD = `mutation ($id: ID!, $input: RewardPatch!) { update_reward(id: $id, input: $input) { id points_cost } }`;

  it('records who, what, before, after and when for an admin change', async () => {
    const { id } = (
      await ok(CREATE_REWARD, {
        input: { name: 'Mug', reward_type: 'free_product', points_cost: 500, reward_rule: { product_id: 'mug-1' } },
      })
    ).create_reward;
    const started = Date.now();
    await ok(UPDATE_REWARD, { id, input: { points_cost: 650 } });
    const [update, create] = (await ok(AUDIT, { resource_id: id })).audit_log.data;
    expect(update).toMatchObject({
      actor: `token:${merchant.admin_token.slice(0, 12)}`,
      action: 'update_reward',
      resource_type: 'Reward',
      resource_id: id,
      args: { id, input: { points_cost: 650 } },
      before: { id, pointsCost: 500, name: 'Mug' },
      after: { id, pointsCost: 650, name: 'Mug' },
    });
    expect(Date.parse(update.created_at)).toBeGreaterThanOrEqual(started - 1000);
    expect(create).toMatchObject({ action: 'create_reward', before: null, after: { id, pointsCost: 500 } });
  });

  it('records manual adjustments and settings, and names the admin session that made them', async () => {
    const session = adminSession(app, merchant.admin_token);
    const run = await session;
    const customer = await newCustomer(app, merchant.id, { points: 10 });
    await ok(
      `mutation { adjust_points(id: "${customer.id}", points: -4, description: "Damaged parcel") { balance_after } }`,
      undefined,
      run,
    );
    await ok(`mutation { update_merchant_settings(points_expiry_days: 365) { id } }`, undefined, run);
    const [settings, adjustment] = (await ok(AUDIT, { per_page: 2 })).audit_log.data;
    const sessionRow = await app.db.adminSession.findFirstOrThrow({ where: { merchantId: merchant.id }, orderBy: { createdAt: 'desc' } });
    expect(settings).toMatchObject({
      actor: `session:${sessionRow.id}`,
      action: 'update_merchant_settings',
      resource_type: 'Merchant',
      resource_id: merchant.id,
      before: { pointsExpiryDays: null },
      after: { pointsExpiryDays: 365 },
    });
    expect(adjustment).toMatchObject({
      actor: `session:${sessionRow.id}`,
      action: 'adjust_points',
      resource_type: 'Customer',
      resource_id: customer.id,
      before: { pointsBalance: 10 },
      after: { pointsBalance: 6 },
    });
  });

  it('never holds a secret: API keys, admin tokens and their hashes are redacted', async () => {
    const created = (await ok(`mutation { create_api_key(type: full, name: "ci") { id key } }`)).create_api_key;
    const { admin_token } = merchant;
    const rows = await app.db.auditEntry.findMany({ where: { merchantId: merchant.id } });
    const text = JSON.stringify(rows);
    const keyRow = await app.db.apiKey.findUniqueOrThrow({ where: { id: created.id } });
    expect(text).not.toContain(created.key);
    expect(text).not.toContain(keyRow.hash);
    expect(text).not.toContain(admin_token);
    const entry = rows.find((r) => r.action === 'create_api_key')!;
    expect(entry).toMatchObject({
      resourceType: 'ApiKey',
      resourceId: created.id,
      after: { id: created.id, hash: '[redacted]', name: 'ci' },
    });
    const merchantRows = rows.filter((r) => r.resourceType === 'Merchant');
    expect(merchantRows.length).toBeGreaterThan(0);
    for (const r of merchantRows) expect((r.after as { adminTokenHash: string }).adminTokenHash).toBe('[redacted]');
  });

  it('covers every admin mutation, whoever added it', () => {
    const fields = Object.values(adminSchema.getMutationType()!.getFields());
    expect(fields.length).toBeGreaterThan(20);
    expect(fields.filter((f) => !isAudited(f.resolve)).map((f) => f.name)).toEqual([]);
  });

  it('records nothing for a change that failed', async () => {
    const before = (await ok(AUDIT, { per_page: 1 })).audit_log.meta.pagination.total;
    await fails(`mutation { update_reward(id: "${randomUUID()}", input: { points_cost: 1 }) { id } }`);
    expect((await ok(AUDIT, { per_page: 1 })).audit_log.meta.pagination.total).toBe(before);
  });

  it('pages newest first', async () => {
    const { data: all, meta } = (await ok(AUDIT, { per_page: 100 })).audit_log;
    expect(meta.pagination.total).toBe(all.length);
    const second = (await ok(AUDIT, { page: 2, per_page: 2 })).audit_log;
    expect(second.data.map((e: { id: string }) => e.id)).toEqual(all.slice(2, 4).map((e: { id: string }) => e.id));
    const times = all.map((e: { created_at: string }) => Date.parse(e.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(await fails(AUDIT, { per_page: 500 })).toMatchObject({ code: 'validation_error' });
  });

  it('is not on the public face', async () => {
    const res = await api.gql('{ audit_log { meta { pagination { total } } } }');
    expect(res.body.errors?.[0]?.message).toMatch(/audit_log/);
  });
});
