// Spec 5 and 7: API keys, scopes, 401 invalid_token, 403 insufficient_scope, tenancy.
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../src/domain/access/api-keys.js';
import { fullAccessScopes, readOnlyScopes } from '../../src/domain/access/scopes.js';
import { generateToken } from '../../src/domain/access/tokens.js';
import { client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
let merchantId: string;

beforeAll(async () => {
  app = await testApp();
  merchantId = (await newMerchant(app)).id;
});

const get = (key: string | null, path = '/v1/rewards') => app.fetch(path, { headers: key === null ? {} : { authorization: key } });

describe('authentication (401 invalid_token)', () => {
  it.each([
    ['no header', null],
    ['empty bearer', 'Bearer '],
    ['not bearer', 'Basic dXNlcjpwYXNz'],
    ['garbage', 'Bearer not-a-key'],
    ['right shape, wrong checksum', `Bearer lpk_${'a'.repeat(32)}AAAAAA`],
    ['well-formed but unknown', `Bearer ${generateToken('api_key').token}`],
    ['an admin token', `Bearer ${generateToken('admin').token}`],
  ])('%s → 401 with the envelope', async (_label, header) => {
    const res = await get(header);
    expect(res.status).toBe(401);
    // one answer for every failure, so a caller cannot tell an unknown key from a revoked one
    expect(await res.json()).toEqual({ error: { code: 'invalid_token', message: 'The API key is invalid or revoked' } });
  });

  it('answers 401 on GraphQL with the code in extensions', async () => {
    const res = await app.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer nope' },
      body: JSON.stringify({ query: '{ rewards { data { id } } }' }),
    });
    expect(res.status).toBe(401);
    const [error] = (await res.json()).errors;
    expect(error.extensions.code).toBe('invalid_token');
    expect(error.message).toBe('The API key is invalid or revoked');
  });

  it('checks the key before the arguments: a bad body without a key is 401, not 422', async () => {
    const res = await app.fetch('/v1/customers/transactions', { method: 'POST', body: '{nope' });
    expect(res.status).toBe(401);
  });

  it('refuses a revoked key on the very next request', async () => {
    const key = await createApiKey(app.db, { merchantId, type: 'full' });
    expect((await get(`Bearer ${key.key}`)).status).toBe(200);
    await revokeApiKey(app.db, merchantId, key.id);
    const res = await get(`Bearer ${key.key}`);
    expect(res.status).toBe(401);
    expect((await res.json()).error).toEqual({ code: 'invalid_token', message: 'The API key is invalid or revoked' });
  });
});

describe('key types and scopes', () => {
  it('gives Full Access the highest level of every scope, Read-Only read of every readable scope', () => {
    expect(fullAccessScopes()).toEqual([
      'write:customers',
      'write:orders',
      'write:rewards',
      'write:transactions',
      'read:activities',
      'read:tiers',
      'read:earning_rules',
      'read:referrals',
      'read:points',
      'write:booster_campaigns',
      'read:events',
    ]);
    expect(readOnlyScopes()).not.toContain('read:orders');
    expect(readOnlyScopes()).toHaveLength(10);
    expect(readOnlyScopes()).toContain('read:events');
  });

  it('refuses levels a scope does not have', async () => {
    await expect(createApiKey(app.db, { merchantId, type: 'custom', levels: { activities: 'write' } })).rejects.toMatchObject({
      code: 'validation_error',
    });
    await expect(createApiKey(app.db, { merchantId, type: 'custom', levels: { orders: 'read' } })).rejects.toMatchObject({
      code: 'validation_error',
    });
    await expect(createApiKey(app.db, { merchantId, type: 'custom', levels: { bogus: 'read' } })).rejects.toMatchObject({
      code: 'validation_error',
    });
  });

  it('403 insufficient_scope names the missing scope, before validating arguments', async () => {
    const key = await newKey(app, merchantId, 'custom', { customers: 'read' });
    const api = client(app, key);
    const rewards = await api.rest('GET', '/v1/rewards?per_page=1000');
    expect(rewards.status).toBe(403);
    expect(rewards.body.error.code).toBe('insufficient_scope');
    expect(rewards.body.error.message).toContain('read:rewards');
    const write = await api.rest('POST', '/v1/customers/transactions', { nonsense: true });
    expect(write.status).toBe(403);
    expect(write.body.error.message).toContain('write:transactions');
  });

  it('write:x allows the read endpoints of x; read:x does not allow its writes', async () => {
    const customer = await newCustomer(app, merchantId, { points: 10 });
    const writer = client(app, await newKey(app, merchantId, 'custom', { transactions: 'write' }));
    const reader = client(app, await newKey(app, merchantId, 'custom', { transactions: 'read' }));
    const body = { points: 1, description: 'scope test' };
    const path = `/v1/customers/transactions?customer_id=${customer.platformId}`;
    expect((await writer.rest('POST', path, body)).status).toBe(201);
    expect((await reader.rest('POST', path, body)).status).toBe(403);
  });

  it('a Read-Only key reads but cannot write', async () => {
    const customer = await newCustomer(app, merchantId, { points: 10 });
    const api = client(app, await newKey(app, merchantId, 'read_only'));
    expect((await api.rest('GET', '/v1/rewards')).status).toBe(200);
    const res = await api.rest('POST', `/v1/customers/transactions?customer_id=${customer.platformId}`, { points: 1, description: 'x' });
    expect(res.status).toBe(403);
  });

  it('applies the same scopes over GraphQL', async () => {
    const api = client(app, await newKey(app, merchantId, 'custom', { customers: 'read' }));
    const res = await api.gql('{ rewards { data { id } } }');
    expect(res.body.errors?.[0].extensions.code).toBe('insufficient_scope');
    expect(res.body.errors?.[0].message).toContain('read:rewards');
  });
});

describe('tenancy', () => {
  it("never shows or changes another merchant's data", async () => {
    const other = await newMerchant(app, 'other');
    const theirs = await newCustomer(app, other.id, { points: 50 });
    const reward = await app.db.reward.create({
      data: { merchantId: other.id, name: 'Theirs', rewardType: 'free_shipping', pointsCost: 10, rewardRule: {} },
    });
    const api = client(app, await newKey(app, merchantId));
    expect((await api.rest('GET', `/v1/rewards/${reward.id}`)).status).toBe(404);
    expect((await api.rest('GET', '/v1/rewards')).body.data.map((r: { id: string }) => r.id)).not.toContain(reward.id);
    expect((await api.rest('GET', `/v1/customers/balance?customer_id=${theirs.platformId}`)).status).toBe(404);
    const debit = await api.rest('POST', `/v1/customers/transactions?customer_id=${theirs.platformId}`, { points: -50, description: 'x' });
    expect(debit.status).toBe(404);
    expect((await app.db.customer.findFirstOrThrow({ where: { id: theirs.id } })).pointsBalance).toBe(50);
  });
});

describe('routing', () => {
  it('answers unknown paths, trailing slashes and wrong methods with the envelope', async () => {
    const api = client(app, await newKey(app, merchantId));
    const unknown = await api.rest('GET', '/v1/nothing-here');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    expect((await api.rest('GET', '/v1/rewards/')).status).toBe(404);
    const wrong = await api.rest('DELETE', '/v1/rewards');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
    expect(wrong.body.error.code).toBe('method_not_allowed');
  });
});
