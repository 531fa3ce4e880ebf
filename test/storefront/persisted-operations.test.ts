// Operations storefronts can pin: automatic persisted queries (a hash
// instead of the document, GET-able) and the merchant's persisted-operations-only mode.
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminClient, client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
let key: string;

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const persisted = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });

async function post(bearer: string, body: Record<string, unknown>) {
  const res = await app.fetch('/graphql', {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as { data?: any; errors?: any[] } };
}

async function get(bearer: string, params: Record<string, unknown>) {
  const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  const res = await app.fetch(`/graphql?${query}`, { headers: { authorization: `Bearer ${bearer}`, accept: 'application/json' } });
  return { status: res.status, headers: res.headers, body: (await res.json()) as { data?: any; errors?: any[] } };
}

beforeAll(async () => {
  app = await testApp();
  key = await newKey(app, (await newMerchant(app, 'apq')).id);
});

describe('automatic persisted queries', () => {
  it('answers an unknown hash PersistedQueryNotFound, learns the document, then runs it by hash over GET', async () => {
    const query = `{ tiers { data { id } } } # ${Math.random()}`;
    const hash = sha256(query);
    const miss = await get(key, { extensions: persisted(hash) });
    expect(miss.body.errors?.[0]).toMatchObject({ message: 'PersistedQueryNotFound', extensions: { code: 'persisted_query_not_found' } });
    expect(miss.headers.get('cache-control')).toBe('private, no-store');
    const register = await post(key, { query, extensions: persisted(hash) });
    expect(register.body).toEqual({
      data: { tiers: { data: [] } },
      extensions: { cost: expect.anything(), responseCache: expect.anything() },
    });
    const hit = await get(key, { extensions: persisted(hash) });
    expect(hit.status).toBe(200);
    expect(hit.body).toEqual({ data: { tiers: { data: [] } }, extensions: { cost: expect.anything(), responseCache: expect.anything() } });
    // about the key's merchant, as every answer to a key: no cache keeps it, whatever its URL
    expect(hit.headers.get('cache-control')).toBe('private, no-store');
    expect(hit.headers.get('vary')).toContain('Authorization');
    // variables travel beside the hash
    const withVars = `query ($n: Int) { rewards(per_page: $n) { meta { pagination { per_page } } } }`;
    await post(key, { query: withVars, extensions: persisted(sha256(withVars)), variables: { n: 3 } });
    const byHash = await get(key, { extensions: persisted(sha256(withVars)), variables: { n: 7 } });
    expect(byHash.body.data.rewards.meta.pagination.per_page).toBe(7);
  });

  it('refuses a document whose hash is not its sha256, and registers nothing', async () => {
    const query = `{ tiers { data { name } } } # ${Math.random()}`;
    const wrong = sha256('something else');
    const res = await post(key, { query, extensions: persisted(wrong) });
    expect(res.status).toBe(422);
    expect(res.body.errors?.[0].extensions.code).toBe('validation_error');
    expect((await get(key, { extensions: persisted(wrong) })).body.errors?.[0].message).toBe('PersistedQueryNotFound');
  });

  it('still needs a valid credential', async () => {
    const res = await get('lpk_nope', { extensions: persisted(sha256('{ tiers { data { id } } }')) });
    expect(res.status).toBe(401);
  });

  it('works for customer sessions (the storefront case)', async () => {
    const merchant = await newMerchant(app, 'apq-session');
    const customer = await newCustomer(app, merchant.id, { points: 40 });
    const minted = await client(app, await newKey(app, merchant.id)).gql(
      'mutation ($c: String) { create_customer_session(customer_id: $c) { data { token } } }',
      { c: customer.platformId },
    );
    const token = minted.body.data.create_customer_session.data.token as string;
    const panel = '{ me { points_balance } }';
    expect((await get(token, { extensions: persisted(sha256(panel)) })).body.errors?.[0].message).toBe('PersistedQueryNotFound');
    await post(token, { query: panel, extensions: persisted(sha256(panel)) });
    expect((await get(token, { extensions: persisted(sha256(panel)) })).body).toEqual({
      data: { me: { points_balance: 40 } },
      extensions: { cost: expect.anything(), responseCache: expect.anything() },
    });
  });
});

describe('persisted operations only (the merchant allow-list)', () => {
  it('runs only the listed documents, by hash or in full, and refuses any other', async () => {
    const merchant = await newMerchant(app, 'allow-list');
    const admin = adminClient(app, merchant.admin_token);
    const shopKey = await newKey(app, merchant.id);
    const listed = '{ tiers { data { id name } } }';
    const other = '{ rewards { data { id } } }';

    const added = await admin('mutation ($q: String!) { add_persisted_operation(query: $q, name: "tiers") { hash name } }', { q: listed });
    expect(added.body.data.add_persisted_operation).toEqual({ hash: sha256(listed), name: 'tiers' });
    const list = await admin('{ persisted_operations { data { hash name query } meta { pagination { total } } } }');
    expect(list.body.data.persisted_operations.data).toEqual([{ hash: sha256(listed), name: 'tiers', query: listed }]);

    // before the mode is on, anything runs
    expect((await post(shopKey, { query: other })).status).toBe(200);
    const on = await admin('mutation { update_storefront_settings(persisted_operations_only: true) { persisted_operations_only } }');
    expect(on.body.data.update_storefront_settings.persisted_operations_only).toBe(true);

    expect((await get(shopKey, { extensions: persisted(sha256(listed)) })).body).toEqual({
      data: { tiers: { data: [] } },
      extensions: { cost: expect.anything(), responseCache: expect.anything() },
    });
    expect((await post(shopKey, { query: listed })).status).toBe(200);
    const refused = await post(shopKey, { query: other });
    expect(refused.status).toBe(403);
    expect(refused.body.errors?.[0].extensions.code).toBe('operation_not_allowed');
    // APQ cannot sneak a document onto the list
    const sneaked = await post(shopKey, { query: other, extensions: persisted(sha256(other)) });
    expect(sneaked.body.errors?.[0].extensions.code).toBe('operation_not_allowed');
    expect((await get(shopKey, { extensions: persisted(sha256(other)) })).body.errors?.[0].message).toBe('PersistedQueryNotFound');

    // removing an operation takes it off the list at once
    const removed = await admin('mutation ($h: String!) { remove_persisted_operation(hash: $h) { removed } }', { h: sha256(listed) });
    expect(removed.body.data.remove_persisted_operation.removed).toBe(true);
    expect((await post(shopKey, { query: listed })).body.errors?.[0].extensions.code).toBe('operation_not_allowed');
    const again = await admin('mutation ($h: String!) { remove_persisted_operation(hash: $h) { removed } }', { h: sha256(listed) });
    expect(again.body.errors?.[0].extensions.code).toBe('not_found');

    // another merchant is not affected
    expect((await post(key, { query: other })).status).toBe(200);
  });

  it('refuses to list a document that is not GraphQL', async () => {
    const merchant = await newMerchant(app, 'allow-bad');
    const res = await adminClient(app, merchant.admin_token)('mutation { add_persisted_operation(query: "{ nope") { hash } }');
    expect(res.body.errors?.[0].extensions.code).toBe('validation_error');
  });
});
