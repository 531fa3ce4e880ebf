// Publishable storefront keys: a signed-out visitor's page reads the public program (active
// rewards, ways to earn, tiers, the referral program) over /graphql with a key that is safe in
// the page's source, from the shop's storefront origins only, rate-limited per client address,
// cacheable by any cache for a short while; anything else with it is insufficient_scope.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands.js';
import { demoProgram } from '../../src/cli/seed/demo-program.js';
import { importProgram } from '../../src/domain/program-import/program-import.js';
import { messages } from '../../src/domain/shared/messages.js';
import { createApp } from '../../src/http/app.js';
import { adminClient, client, newKey, newMerchant, type TestApp, testApp, testConfig } from '../harness.js';

let app: TestApp;
let merchant: Awaited<ReturnType<typeof newMerchant>>;
let other: Awaited<ReturnType<typeof newMerchant>>;
let admin: ReturnType<typeof adminClient>;
let key: string;

const SHOP = 'https://shop.example.com';
const FOREIGN = 'https://evil.example.com';
const CATALOGUE = `{
  rewards { data { id name points_cost } }
  earning_rules { data { name campaign_type } }
  tiers { data { name } }
  referral_program { data { is_active } }
}`;

const guest = (bearer: string, query: string, headers: Record<string, string> = {}, target: { fetch: TestApp['fetch'] } = app) =>
  target.fetch('/graphql', {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query }),
  });

async function createKey(token: string, name?: string) {
  const res = await adminClient(app, token)('mutation ($n: String) { create_storefront_key(name: $n) { id key name revoked_at } }', {
    n: name,
  });
  return res.body.data.create_storefront_key as { id: string; key: string; name: string; revoked_at: string | null };
}

beforeAll(async () => {
  app = await testApp();
  merchant = await newMerchant(app, 'guest-shop');
  other = await newMerchant(app, 'guest-other');
  await importProgram(app.db, merchant.id, demoProgram());
  admin = adminClient(app, merchant.admin_token);
  await admin(`mutation { update_storefront_settings(allowed_origins: ["${SHOP}"]) { allowed_origins } }`);
  key = (await createKey(merchant.admin_token, 'Theme')).key;
});

describe('keys on the admin API', () => {
  it('are created with their own prefix, name their merchant, and are listed in full', async () => {
    expect(key).toMatch(/^lpk_pub_[0-9a-f]{32}[0-9A-Za-z]{30}$/);
    expect(key.slice(8, 40)).toBe(merchant.id.replace(/-/g, ''));
    const listed = (await admin('{ storefront_keys { id key name revoked_at } }')).body.data.storefront_keys;
    expect(listed).toContainEqual(expect.objectContaining({ key, name: 'Theme', revoked_at: null }));
    // another merchant's list does not show it
    const theirs = (await adminClient(app, other.admin_token)('{ storefront_keys { key } }')).body.data.storefront_keys;
    expect(theirs).toEqual([]);
  });

  it('are revoked at once (401 invalid_token on the next request), twice without change; another shop cannot', async () => {
    const made = await createKey(merchant.admin_token);
    expect((await guest(made.key, '{ tiers { data { name } } }')).status).toBe(200);
    const foreign = await adminClient(app, other.admin_token)('mutation ($id: ID!) { revoke_storefront_key(id: $id) { id } }', {
      id: made.id,
    });
    expect(foreign.body.errors?.[0].extensions.code).toBe('not_found');
    const revoked = await admin('mutation ($id: ID!) { revoke_storefront_key(id: $id) { revoked_at } }', { id: made.id });
    const at = revoked.body.data.revoke_storefront_key.revoked_at;
    expect(at).not.toBeNull();
    const res = await guest(made.key, '{ tiers { data { name } } }');
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).errors[0].extensions.code).toBe('invalid_token');
    const again = await admin('mutation ($id: ID!) { revoke_storefront_key(id: $id) { revoked_at } }', { id: made.id });
    expect(again.body.data.revoke_storefront_key.revoked_at).toBe(at);
    // the key that stays live is unaffected
    expect((await guest(key, '{ tiers { data { name } } }')).status).toBe(200);
  });

  it('are at most 20 live per merchant (422), a revoked one making room', async () => {
    const shop = await newMerchant(app, 'guest-many');
    const made = [];
    for (let i = 0; i < 20; i++) made.push(await createKey(shop.admin_token));
    const refused = await adminClient(app, shop.admin_token)('mutation { create_storefront_key { id } }');
    expect(refused.body.errors?.[0].extensions.code).toBe('validation_error');
    // for the merchant: what is wrong and what to do, in the catalogue's words
    expect(refused.body.errors?.[0].extensions.details).toEqual({ key: [messages.tooManyLiveKeys(20)] });
    expect(await app.db.storefrontKey.count({ where: { merchantId: shop.id } })).toBe(20);
    await adminClient(app, shop.admin_token)('mutation ($id: ID!) { revoke_storefront_key(id: $id) { id } }', { id: made[0]!.id });
    expect((await createKey(shop.admin_token)).key).toMatch(/^lpk_pub_/);
  });

  it('are created, listed and revoked by the CLI, each change in the audit log', async () => {
    const run = (name: string, values: Record<string, string>, positionals: string[] = []) =>
      commands[name]!.run(app.db, { values, positionals } as never, []);
    const created = (await run('storefront key-create', { merchant: merchant.slug, name: 'CLI' })) as { id: string; key: string };
    const listed = await run('storefront keys', { merchant: merchant.slug });
    expect(listed).toContainEqual(expect.objectContaining({ id: created.id, key: created.key, name: 'CLI' }));
    expect((await guest(created.key, '{ tiers { data { name } } }')).status).toBe(200);
    await run('storefront key-revoke', { merchant: merchant.slug }, [created.id]);
    expect((await guest(created.key, '{ tiers { data { name } } }')).status).toBe(401);
    const actions = await app.db.auditEntry.findMany({ where: { merchantId: merchant.id, actor: 'cli' }, select: { action: true } });
    expect(actions.map((a) => a.action)).toEqual(expect.arrayContaining(['create_storefront_key', 'revoke_storefront_key']));
  });
});

describe('what a publishable key reads', () => {
  it('reads the public program: active rewards, ways to earn, tiers, the referral program', async () => {
    const res = await guest(key, CATALOGUE);
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.errors).toBeUndefined();
    const full = await client(app, await newKey(app, merchant.id)).gql(CATALOGUE);
    // the same catalogue a secret key reads
    expect(body.data).toEqual(full.body.data);
    expect(body.data.rewards.data.length).toBeGreaterThan(0);
    expect(body.data.earning_rules.data.length).toBeGreaterThan(0);
    expect(body.data.tiers.data.length).toBeGreaterThan(0);
  });

  it('refuses everything else with insufficient_scope, and leaks nothing', async () => {
    for (const query of [
      '{ customers { data { email } } }',
      '{ customer_balance(customer_id: "demo-1001") { data { points_balance } } }',
      '{ customer_tier(customer_id: "demo-1001") { data { current_tier { name } } } }',
      '{ customer_referrals(customer_id: "demo-1001") { data { id } } }',
      '{ me { customer_id } }',
      '{ booster_campaigns { data { name } } }',
      '{ points_estimate(subtotal: 100) { data { points } } }',
      'mutation { create_customer_session(customer_id: "demo-1001") { data { token } } }',
      'mutation { record_order(input: { order_id: "g-1", customer_id: "demo-1001", subtotal: 10 }) { data { points_awarded } } }',
    ]) {
      const res = await guest(key, query);
      const body = (await res.json()) as any;
      expect(body.errors?.[0]?.extensions?.code, query).toMatch(/^(insufficient_scope|GRAPHQL_VALIDATION_FAILED)$/);
      expect(JSON.stringify(body.data ?? null), query).not.toMatch(/demo-1001|@|points_balance|token/);
    }
    // a document mixing both is refused as a whole (root fields are non-null): 403
    const res = await guest(key, '{ tiers { data { name } } customers { data { email } } }');
    expect(res.status).toBe(403);
    const mixed = (await res.json()) as any;
    expect(mixed.data).toBeNull();
    expect(mixed.errors[0]).toMatchObject({ path: ['customers'], extensions: { code: 'insufficient_scope' } });
  });

  it('is refused by REST with 403 insufficient_scope in the envelope', async () => {
    const res = await client(app, key).rest('GET', '/v1/rewards');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
  });

  it('is 401 invalid_token when mistyped, or made to name another merchant', async () => {
    const typo = key.slice(0, -1) + (key.endsWith('a') ? 'b' : 'a');
    const otherHex = other.id.replace(/-/g, '');
    const swapped = key.slice(0, 8) + otherHex + key.slice(40);
    for (const bad of [typo, swapped, 'lpk_pub_', `${key}x`]) {
      const res = await guest(bad, '{ tiers { data { name } } }');
      expect(res.status, bad).toBe(401);
      expect(((await res.json()) as any).errors[0].extensions.code).toBe('invalid_token');
    }
  });
});

describe('from a browser', () => {
  it("answers a page of the shop's storefront origins, with a CORS grant for it", async () => {
    const res = await guest(key, '{ tiers { data { name } } }', { origin: SHOP });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(SHOP);
  });

  it('refuses a page of any other origin with 403 origin_not_allowed, before anything runs', async () => {
    const res = await guest(key, '{ tiers { data { name } } }', { origin: FOREIGN });
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const body = (await res.json()) as any;
    expect(body.errors[0].extensions.code).toBe('origin_not_allowed');
    expect(body.data).toBeUndefined();
  });
});

describe('caching', () => {
  it('lets any cache keep a read of the public program briefly, per key and origin', async () => {
    for (const headers of [{}, { origin: SHOP }] as Record<string, string>[]) {
      const res = await guest(key, CATALOGUE, headers);
      expect(res.headers.get('cache-control')).toBe('public, max-age=60');
      const vary = res.headers
        .get('vary')!
        .split(',')
        .map((v) => v.trim());
      expect(vary).toEqual(expect.arrayContaining(['Authorization', 'Origin']));
    }
    const get = await app.fetch(`/graphql?query=${encodeURIComponent('{ tiers { data { name } } }')}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(get.status).toBe(200);
    expect(get.headers.get('cache-control')).toBe('public, max-age=60');
  });

  it('keeps every refusal of a guest, and every answer to a secret key, private', async () => {
    // a key one character off (its checksum's last character changed, whatever it was)
    const wrong = key.slice(0, -1) + (key.endsWith('0') ? '1' : '0');
    for (const res of [
      await guest(key, '{ customers { data { email } } }'),
      await guest(key, '{ tiers { data { name } } customers { data { email } } }'),
      await guest(key, '{ tiers { data { name } } }', { origin: FOREIGN }),
      await guest(wrong, '{ tiers { data { name } } }'),
      await guest(await newKey(app, merchant.id), CATALOGUE),
    ]) {
      expect(res.headers.get('cache-control')).toBe('private, no-store');
    }
  });
});

describe('rate limits per client address', () => {
  let limited: ReturnType<typeof createApp>;
  beforeAll(() => {
    // one proxy in front: the client is the address it saw (the last of X-Forwarded-For)
    limited = createApp({
      db: app.db,
      config: testConfig({ RATE_LIMIT_PER_GUEST: '2', RATE_LIMIT_PER_KEY: '100', RATE_LIMIT_PER_MERCHANT: '100', TRUST_PROXY: '1' }),
    });
  });
  afterAll(() => limited.close());
  const from = (address: string) =>
    guest(
      key,
      '{ tiers { data { name } } }',
      { 'x-forwarded-for': address },
      { fetch: (path, init) => limited.fetch(`http://loyalty.test${path}`, init) },
    );

  it('gives each address its own budget, apart from the merchant and key budgets', async () => {
    const first = await from('203.0.113.7');
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toBe('"guest";q=2;w=60');
    expect(((await first.json()) as any).extensions.cost.rate_limit).toMatchObject({ policy: 'guest', limit: 2, remaining: 1 });
    expect((await from('203.0.113.7')).status).toBe(200);
    const third = await from('203.0.113.7');
    expect(third.status).toBe(429);
    expect(((await third.json()) as any).errors[0].extensions.code).toBe('rate_limited');
    // another visitor is not affected, nor is the merchant's backend
    expect((await from('198.51.100.9')).status).toBe(200);
    const backend = await limited.fetch('http://loyalty.test/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${await newKey(app, merchant.id)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ tiers { data { name } } }' }),
    });
    expect(backend.status).toBe(200);
    expect(backend.headers.get('ratelimit')).toMatch(/r=99/);
  });
});
