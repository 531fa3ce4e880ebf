// A customer session's lifecycle: ended on its own (sign-out) or renewed into a new token
// before it expires, by the session itself or by the API key that minted it; the old token is
// refused at once on the instance that ended it and, through the database's notification, on
// every other, which keeps the ended sessions in memory and reads no row per request.
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPrisma } from '../../src/db/client.js';
import { purgeEndedSessions } from '../../src/domain/access/ended-sessions.js';
import type { createApp } from '../../src/http/app.js';
import { adminClient, client, countingDb, newCustomer, newKey, newMerchant, type TestApp, testApp, testConfig } from '../harness.js';

let app: TestApp;
let merchantId: string;
let adminToken: string;
let backend: ReturnType<typeof client>;
let shopper: Awaited<ReturnType<typeof newCustomer>>;

type Answer = { status: number; body: { data?: any; errors?: any[] } };

const MINT = `mutation ($customer_id: String, $expires_in: Int) {
  create_customer_session(customer_id: $customer_id, expires_in: $expires_in) { data { token expires_at } }
}`;
const END = `mutation ($token: String) { delete_customer_session(token: $token) { data { ended_at customer { customer_id } } } }`;
const RENEW = `mutation ($token: String, $expires_in: Int) {
  renew_customer_session(token: $token, expires_in: $expires_in) { data { token expires_at customer { customer_id } } }
}`;
const ME = '{ me { customer_id } }';

const codes = (answer: Answer) => (answer.body.errors ?? []).map((e: any) => e.extensions?.code);

async function mint(api = backend, customerId = shopper.platformId, expiresIn = 1800) {
  const res = await api.gql(MINT, { customer_id: customerId, expires_in: expiresIn });
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data.create_customer_session.data as { token: string; expires_at: string };
}

/** A GraphQL request with a bearer token, on `fetcher` (this app by default). */
function asBearer(token: string, fetcher: (url: string, init: RequestInit) => Promise<Response> = app.fetch) {
  return async (query: string, variables?: Record<string, unknown>): Promise<Answer> => {
    const res = await fetcher('/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    return { status: res.status, body: (await res.json()) as Answer['body'] };
  };
}

const signedIn = async (token: string) => (await asBearer(token)(ME)).status;

beforeAll(async () => {
  app = await testApp();
  const merchant = await newMerchant(app, 'lifecycle');
  merchantId = merchant.id;
  adminToken = merchant.admin_token;
  backend = client(app, await newKey(app, merchantId));
  shopper = await newCustomer(app, merchantId);
});

describe('sign-out', () => {
  it('ends the session that asks, and only it', async () => {
    const [session, other] = [await mint(), await mint()];
    expect(await signedIn(session.token)).toBe(200);
    const ended = await asBearer(session.token)(END);
    expect(ended.body.errors).toBeUndefined();
    expect(ended.body.data.delete_customer_session.data).toMatchObject({ customer: { customer_id: shopper.platformId } });
    const after = await asBearer(session.token)(ME);
    expect([after.status, codes(after)]).toEqual([401, ['invalid_token']]);
    expect(await signedIn(other.token)).toBe(200);
  });

  it('lets the API key that minted a session end it by its token, and no other key', async () => {
    const session = await mint();
    const otherKey = client(app, await newKey(app, merchantId));
    const foreign = await otherKey.gql(END, { token: session.token });
    expect(codes(foreign)).toEqual(['not_found']);
    const readOnly = client(app, await newKey(app, merchantId, 'custom', { customers: 'read' }));
    expect(codes(await readOnly.gql(END, { token: session.token }))).toEqual(['insufficient_scope']);
    expect(await signedIn(session.token)).toBe(200);
    const ended = await backend.gql(END, { token: session.token });
    expect(ended.body.errors).toBeUndefined();
    expect(await signedIn(session.token)).toBe(401);
    // an ended (or forged) token names no live session: 422, and nothing changes
    const again = await backend.gql(END, { token: session.token });
    expect([again.status, codes(again)]).toEqual([422, ['validation_error']]);
    expect(codes(await backend.gql(END, { token: `${session.token.slice(0, -4)}AAAA` }))).toEqual(['validation_error']);
    expect(codes(await backend.gql(END, {}))).toEqual(['validation_error']);
  });

  it("refuses a session naming another session's token, even its own customer's", async () => {
    const [mine, theirs] = [await mint(), await mint()];
    const res = await asBearer(mine.token)(END, { token: theirs.token });
    expect(codes(res)).toEqual(['not_found']);
    expect([await signedIn(mine.token), await signedIn(theirs.token)]).toEqual([200, 200]);
  });
});

describe('renewal', () => {
  it('gives a session a new token as long-lived as the old, and refuses the old one from then on', async () => {
    const session = await mint(backend, shopper.platformId, 600);
    const res = await asBearer(session.token)(RENEW);
    expect(res.body.errors).toBeUndefined();
    const renewed = res.body.data.renew_customer_session.data;
    expect(renewed.customer.customer_id).toBe(shopper.platformId);
    expect(renewed.token).not.toBe(session.token);
    const lifetime = (Date.parse(renewed.expires_at) - Date.now()) / 1000;
    expect(lifetime).toBeGreaterThan(590);
    expect(lifetime).toBeLessThanOrEqual(600);
    expect(await signedIn(session.token)).toBe(401);
    expect(await signedIn(renewed.token)).toBe(200);
    // the renewed token again: a chain of renewals, each ending the one before
    const second = (await asBearer(renewed.token)(RENEW, { expires_in: 120 })).body.data.renew_customer_session.data;
    expect(await signedIn(renewed.token)).toBe(401);
    expect(await signedIn(second.token)).toBe(200);
  });

  it('changes nothing when the new lifetime is refused', async () => {
    const session = await mint();
    const res = await asBearer(session.token)(RENEW, { expires_in: 10 });
    expect([res.status, codes(res)]).toEqual([422, ['validation_error']]);
    expect(await signedIn(session.token)).toBe(200);
  });

  it('lets the minting key renew by token, and the new token stays that key’s to end', async () => {
    const session = await mint();
    const res = await backend.gql(RENEW, { token: session.token });
    expect(res.body.errors).toBeUndefined();
    const renewed = res.body.data.renew_customer_session.data;
    expect(await signedIn(session.token)).toBe(401);
    expect((await backend.gql(END, { token: renewed.token })).body.errors).toBeUndefined();
    expect(await signedIn(renewed.token)).toBe(401);
  });

  it('renews a token once when five renewals race: the others are refused as the old token', async () => {
    const session = await mint();
    const answers = await Promise.all(Array.from({ length: 5 }, () => asBearer(session.token)(RENEW)));
    const won = answers.filter((a) => a.body.data?.renew_customer_session);
    expect(won).toHaveLength(1);
    for (const lost of answers.filter((a) => !a.body.data?.renew_customer_session)) expect(codes(lost)).toEqual(['invalid_token']);
    expect(await signedIn(won[0]!.body.data.renew_customer_session.data.token)).toBe(200);
    expect(await signedIn(session.token)).toBe(401);
  });
});

describe('two instances on one database', () => {
  let other: ReturnType<typeof createApp>;
  let otherDb: ReturnType<typeof createPrisma>;
  const calls: string[] = [];
  const loads = () => calls.filter((c) => c.startsWith('EndedCustomerSession.')).length;
  const onOther = (url: string, init: RequestInit) => other.fetch(`http://loyalty.test${url}`, init);

  beforeAll(async () => {
    // the other instance's modules of its own, as in another process: what one instance tells
    // the others in its process directly cannot reach it, only the database's notification
    vi.resetModules();
    const { createApp: createOtherApp } = await import('../../src/http/app.js');
    otherDb = createPrisma(app.url, 2);
    other = createOtherApp({ db: countingDb(otherDb, calls), databaseUrl: app.url, config: testConfig() });
  });

  afterAll(async () => {
    await other.close();
    await otherDb.$disconnect();
  });

  it('refuses on the other instance a session ended or renewed on this one, reading no row per request', async () => {
    const [signedOut, renewedAway] = [await mint(), await mint()];
    const meOnOther = async (token: string) => (await asBearer(token, onOther)(ME)).status;
    // once its notification feed is up, the other instance keeps the merchant's list: requests read nothing
    await expect
      .poll(async () => {
        const before = loads();
        expect(await meOnOther(signedOut.token)).toBe(200);
        return loads() - before;
      })
      .toBe(0);
    const held = loads();
    for (let i = 0; i < 10; i++) expect(await meOnOther(renewedAway.token)).toBe(200);
    expect(loads()).toBe(held);

    expect((await asBearer(signedOut.token)(END)).body.errors).toBeUndefined();
    const renewed = (await asBearer(renewedAway.token)(RENEW)).body.data.renew_customer_session.data;
    await expect.poll(() => meOnOther(signedOut.token)).toBe(401);
    await expect.poll(() => meOnOther(renewedAway.token)).toBe(401);
    expect(await meOnOther(renewed.token)).toBe(200);
    // learnt from the notifications, not by reading the list again
    expect(loads()).toBe(held);
  });
});

describe('ended sessions kept', () => {
  it('keeps a row only until its token would have expired anyway', async () => {
    const session = await mint(backend, shopper.platformId, 60);
    expect((await asBearer(session.token)(END)).body.errors).toBeUndefined();
    const row = () => app.db.endedCustomerSession.count({ where: { merchantId, id: decodeJwt(session.token).jti } });
    expect(await row()).toBe(1);
    await purgeEndedSessions(app.db, new Date());
    expect(await row()).toBe(1);
    await purgeEndedSessions(app.db, new Date(Date.now() + 61_000));
    expect(await row()).toBe(0);
  });
});

describe('erasure', () => {
  it('ends every session of the erased customer, and only theirs', async () => {
    const erased = await newCustomer(app, merchantId);
    const [session, renewed] = [await mint(backend, erased.platformId), await mint(backend, erased.platformId)];
    const theirs = await asBearer(renewed.token)(RENEW);
    expect(theirs.body.errors).toBeUndefined();
    const other = await mint();
    const admin = adminClient(app, adminToken);
    const erasure = await admin(`mutation ($id: ID!) { erase_customer(id: $id) { erased_now } }`, { id: erased.id });
    expect(erasure.body.errors).toBeUndefined();
    for (const token of [session.token, theirs.body.data.renew_customer_session.data.token]) {
      const after = await asBearer(token)(ME);
      expect([after.status, codes(after)]).toEqual([401, ['invalid_token']]);
    }
    expect(await signedIn(other.token)).toBe(200);
  });
});
