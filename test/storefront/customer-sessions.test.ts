// Customer sessions for headless storefronts, black-box: the merchant's
// backend mints a session through the API, the shopper's browser loads the loyalty panel and
// redeems a reward with it, and everything else is refused.
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { commands } from '../../src/cli/commands.js';
import { adminClient, client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
let merchant: Awaited<ReturnType<typeof newMerchant>>;
let backend: ReturnType<typeof client>;
let backendKey: string;
const backendKeyOf = () => backendKey;
let admin: ReturnType<typeof adminClient>;
let shopper: Awaited<ReturnType<typeof newCustomer>>;
let neighbour: Awaited<ReturnType<typeof newCustomer>>;
let rewardId: string;

const STOREFRONT = 'https://shop.example.com';

const MINT = `mutation ($customer_id: String, $email: String, $expires_in: Int) {
  create_customer_session(customer_id: $customer_id, email: $email, expires_in: $expires_in) {
    data { token expires_at customer { id customer_id } }
  }
}`;

const PANEL = `{
  me { customer_id email points_balance tier { name } }
  customer_balance { data { points_balance } }
  customer_tier { data { current_tier { name } next_tier { name } } }
  redeemable_rewards { data { id name points_cost } }
  customer_activities(per_page: 3) { data { type points_change } }
  customer_transactions(per_page: 3) { data { points } }
  customer_rewards { data { code } }
  customer_referrals { data { id } }
  customer_memberships { data { tier_name } }
  rewards { data { id } }
  tiers { data { name } }
  earning_rules { data { id } }
  booster_campaigns { data { id } }
  points_estimate(subtotal: 40) { data { points } }
}`;

async function mint(vars: Record<string, unknown>) {
  const res = await backend.gql(MINT, vars);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data.create_customer_session.data as { token: string; expires_at: string; customer: { id: string } };
}

/** The shopper's browser: a session token, from the storefront's origin. */
async function asShopper(token: string, query: string, variables?: Record<string, unknown>, origin: string | null = STOREFRONT) {
  const res = await app.fetch('/graphql', {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...(origin ? { origin } : {}),
    },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as { data?: any; errors?: any[] } };
}

const codes = (body: { errors?: { extensions?: { code?: string } }[] }) => (body.errors ?? []).map((e) => e.extensions?.code);

beforeAll(async () => {
  app = await testApp();
  merchant = await newMerchant(app, 'storefront');
  backendKey = await newKey(app, merchant.id);
  backend = client(app, backendKey);
  admin = adminClient(app, merchant.admin_token);
  shopper = await newCustomer(app, merchant.id, { points: 500 });
  neighbour = await newCustomer(app, merchant.id, { points: 900 });
  const reward = await app.db.reward.create({
    data: { merchantId: merchant.id, name: '$5 off', rewardType: 'fixed_discount', pointsCost: 200, rewardRule: { discount_value: 5 } },
  });
  rewardId = reward.id;
  const origins = await admin(`mutation { update_storefront_settings(allowed_origins: ["${STOREFRONT}"]) { allowed_origins } }`);
  expect(origins.body.data.update_storefront_settings.allowed_origins).toEqual([STOREFRONT]);
});

describe('create_customer_session', () => {
  it('mints a signed token for one customer, by customer_id or email, with its expiry', async () => {
    const before = Date.now();
    const session = await mint({ customer_id: shopper.platformId });
    expect(session.token.split('.')).toHaveLength(3);
    expect(session.customer.id).toBe(shopper.id);
    const ttl = Date.parse(session.expires_at) - before;
    expect(ttl).toBeGreaterThan(3500_000);
    expect(ttl).toBeLessThanOrEqual(3601_000);
    const beforeEmail = Date.now();
    const byEmail = await mint({ email: shopper.email.toUpperCase(), expires_in: 120 });
    expect(byEmail.customer.id).toBe(shopper.id);
    expect(Date.parse(byEmail.expires_at) - beforeEmail).toBeGreaterThan(119_000);
    expect(Date.parse(byEmail.expires_at) - beforeEmail).toBeLessThanOrEqual(121_000);
  });

  it('needs write:customers, a known customer and a lifetime within the maximum', async () => {
    const readOnly = client(app, await newKey(app, merchant.id, 'read_only'));
    expect(codes((await readOnly.gql(MINT, { customer_id: shopper.platformId })).body)).toEqual(['insufficient_scope']);
    expect(codes((await backend.gql(MINT, { customer_id: 'nobody' })).body)).toEqual(['not_found']);
    expect(codes((await backend.gql(MINT, {})).body)).toEqual(['validation_error']);
    const tooLong = await backend.gql(MINT, { customer_id: shopper.platformId, expires_in: 30 * 86_400 });
    expect(codes(tooLong.body)).toEqual(['validation_error']);
    expect(tooLong.body.errors![0].extensions.details.expires_in).toBeDefined();
  });

  it('is GraphQL only: REST has no route for it, and refuses session tokens', async () => {
    const { token } = await mint({ customer_id: shopper.platformId });
    for (const path of ['/v1/create-customer-session', '/v1/create_customer_session', '/v1/me']) {
      expect((await backend.rest('POST', path, { customer_id: shopper.platformId })).status).toBe(404);
    }
    const rest = await client(app, token).rest('GET', `/v1/customers/balance?customer_id=${shopper.platformId}`);
    expect(rest.status).toBe(401);
    expect(rest.body.error.code).toBe('invalid_token');
  });
});

describe('a session on /graphql', () => {
  it('loads the loyalty panel in one request, about its own customer', async () => {
    const { token } = await mint({ customer_id: shopper.platformId });
    const res = await asShopper(token, PANEL);
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d.me).toMatchObject({ customer_id: shopper.platformId, points_balance: 500 });
    expect(d.customer_balance.data.points_balance).toBe(500);
    expect(d.redeemable_rewards.data.map((r: { id: string }) => r.id)).toEqual([rewardId]);
    expect(d.customer_activities.data[0]).toMatchObject({ type: 'import', points_change: 500 });
    expect(d.rewards.data).toHaveLength(1);
    // the browser may read the answer: the merchant allows the storefront's origin
    expect(res.headers.get('access-control-allow-origin')).toBe(STOREFRONT);
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('follows the graph from `me`: the whole panel under one field', async () => {
    const { token } = await mint({ customer_id: shopper.platformId });
    const res = await asShopper(
      token,
      `{ me {
          balance { points_balance }
          tier_status { next_tier { name } }
          redeemable_rewards { data { id } }
          activities(per_page: 3) { data { points_change } }
          transactions_connection(first: 1) { edges { node { points } } }
        } }`,
    );
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    expect(res.body.data.me.balance.points_balance).toBeGreaterThan(0);
    expect(res.body.data.me.activities.data.length).toBeGreaterThan(0);
  });

  it('redeems a reward for itself, and moves its own points only', async () => {
    const { token } = await mint({ customer_id: shopper.platformId });
    const res = await asShopper(token, `mutation ($r: ID!) { redeem_reward(reward_id: $r) { data { code balance_after } } }`, {
      r: rewardId,
    });
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    expect(res.body.data.redeem_reward.data.balance_after).toBe(300);
    const [mine, theirs] = await Promise.all([shopper.id, neighbour.id].map((id) => app.db.customer.findFirstOrThrow({ where: { id } })));
    expect(mine!.pointsBalance).toBe(300);
    expect(theirs!.pointsBalance).toBe(900);
  });

  it('never replays, under the same Idempotency-Key, an answer given to the merchant’s backend', async () => {
    const { token } = await mint({ customer_id: shopper.platformId });
    const redeem = `mutation { redeem_reward(customer_id: "${neighbour.platformId}", reward_id: "${rewardId}") { data { code } } }`;
    const key = `order-${Date.now()}`;
    const send = (bearer: string) =>
      app.fetch('/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ query: redeem }),
      });
    const backendAnswer = (await (await send(backendKeyOf())).json()) as { data: any };
    expect(backendAnswer.data.redeem_reward.data.code).toBeTruthy();
    const replayed = await send(token);
    expect(replayed.headers.get('idempotent-replayed')).toBeNull();
    expect(JSON.stringify(await replayed.json())).not.toContain(backendAnswer.data.redeem_reward.data.code);
  });

  it("answers another customer's id as not_found, whether named by customer_id, email or id", async () => {
    const { token } = await mint({ customer_id: shopper.platformId });
    const balanceOf = async () => (await app.db.customer.findFirstOrThrow({ where: { id: neighbour.id } })).pointsBalance;
    const before = await balanceOf();
    const asked = [
      [`{ customer_balance(customer_id: "${neighbour.platformId}") { data { points_balance } } }`, 'customer_balance'],
      [`{ customer_transactions(email: "${neighbour.email}") { data { points } } }`, 'customer_transactions'],
      [`{ customer(id: "${neighbour.id}") { data { email } } }`, 'customer'],
      [`{ points_estimate(customer_id: "${neighbour.platformId}", subtotal: 10) { data { points } } }`, 'points_estimate'],
      [`mutation { redeem_reward(customer_id: "${neighbour.platformId}", reward_id: "${rewardId}") { data { code } } }`, 'redeem_reward'],
    ] as const;
    for (const [query, field] of asked) {
      const res = await asShopper(token, query);
      expect(codes(res.body), field).toEqual(['not_found']);
    }
    // naming itself is fine
    const own = await asShopper(token, `{ customer(id: "${shopper.platformId}") { data { email } } }`);
    expect(own.body.data.customer.data.email).toBe(shopper.email);
    expect(await balanceOf()).toBe(before);
  });

  it('is insufficient_scope for anything but its own records and the public program', async () => {
    const { token } = await mint({ customer_id: shopper.platformId });
    const refused = [
      '{ customers { data { email } } }',
      `mutation { create_customer_transaction(customer_id: "${shopper.platformId}", points: 1000, description: "free") { data { points } } }`,
      `mutation { create_customer_session(customer_id: "${neighbour.platformId}") { data { token } } }`,
    ];
    for (const query of refused) {
      const res = await asShopper(token, query);
      expect(codes(res.body), query).toEqual(['insufficient_scope']);
    }
    // an API key has no `me`
    expect(codes((await backend.gql('{ me { id } }')).body)).toEqual(['insufficient_scope']);
  });

  it('is 401 invalid_token when expired, forged, or minted before the secret was rotated', async () => {
    const { token } = await mint({ customer_id: shopper.platformId });
    const [header, payload] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const expired = await new SignJWT({ ...claims, exp: Math.floor(Date.now() / 1000) - 5 })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .sign(new TextEncoder().encode('not the merchant secret, so also forged'));
    const forgedClaims = Buffer.from(JSON.stringify({ ...claims, sub: neighbour.id })).toString('base64url');
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
    for (const bad of [expired, `${header}.${forgedClaims}.${token.split('.')[2]}`, unsigned, 'a.b.c']) {
      const res = await asShopper(bad, '{ me { id } }');
      expect(res.status, bad).toBe(401);
      expect(codes(res.body)).toEqual(['invalid_token']);
    }
    // rotating the merchant's secret ends every session at once
    expect((await asShopper(token, '{ me { id } }')).status).toBe(200);
    const rotated = await admin('mutation { rotate_customer_session_secret { rotated_at } }');
    expect(rotated.body.errors).toBeUndefined();
    const after = await asShopper(token, '{ me { id } }');
    expect(after.status).toBe(401);
    expect(codes(after.body)).toEqual(['invalid_token']);
    expect((await asShopper((await mint({ customer_id: shopper.platformId })).token, '{ me { id } }')).status).toBe(200);
  });

  it('ends when the secret changes in the database by any means (another instance, SQL): every instance hears of it', async () => {
    const { token } = await mint({ customer_id: shopper.platformId });
    expect((await asShopper(token, '{ me { id } }')).status).toBe(200);
    expect((await asShopper(token, '{ me { id } }')).status).toBe(200);
    await app.db.$executeRaw`UPDATE storefront_settings SET session_secret = ${randomBytes(32)} WHERE merchant_id = ${merchant.id}::uuid`;
    await expect.poll(async () => (await asShopper(token, '{ me { id } }')).status).toBe(401);
  });

  it('refuses its own token once the clock has passed its expiry', async () => {
    const { token } = await mint({ customer_id: shopper.platformId, expires_in: 60 });
    expect((await asShopper(token, '{ me { id } }')).status).toBe(200);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 61_000);
      const res = await asShopper(token, '{ me { id } }');
      expect(res.status).toBe(401);
      expect(codes(res.body)).toEqual(['invalid_token']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('ends with `loyalty storefront rotate-secret` too, and the CLI sets the allowed origins', async () => {
    const { token } = await mint({ customer_id: shopper.platformId });
    expect((await asShopper(token, '{ me { id } }')).status).toBe(200);
    const values = { merchant: merchant.slug };
    const rotated = await commands['storefront rotate-secret']!.run(app.db, { values, positionals: [] }, []);
    expect(rotated).toHaveProperty('rotated_at');
    expect((await asShopper(token, '{ me { id } }')).status).toBe(401);
    const set = await commands['storefront origins']!.run(
      app.db,
      { values: { ...values, origin: [STOREFRONT, 'http://localhost:3000'] }, positionals: [] },
      [],
    );
    expect(set).toMatchObject({ allowed_origins: [STOREFRONT, 'http://localhost:3000'] });
    await commands['storefront origins']!.run(app.db, { values: { ...values, origin: [STOREFRONT] }, positionals: [] }, []);
    const shown = await commands['storefront show']!.run(app.db, { values, positionals: [] }, []);
    expect(shown).toMatchObject({ allowed_origins: [STOREFRONT], persisted_operations_only: false });
  });

  it('never shows the signing secret in the admin API', async () => {
    const res = await admin('{ storefront_settings { allowed_origins persisted_operations_only updated_at } }');
    expect(res.body.data.storefront_settings).toMatchObject({ allowed_origins: [STOREFRONT], persisted_operations_only: false });
    const fields = await admin('{ __type(name: "StorefrontSettings") { fields { name } } }');
    expect(JSON.stringify(fields.body)).not.toMatch(/secret/i);
  });
});
