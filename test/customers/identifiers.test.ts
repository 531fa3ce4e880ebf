// Identifiers a merchant chooses (platform customer ids, emails used as lookups, order and
// event ids, reward ids, referral codes) either match exactly or are refused with 422
// validation_error naming the field; never another record. Found by a hostile tester:
// `customer_id=a-c1%EF%BB%BF` (a trailing U+FEFF) found, and credited, the customer `a-c1`.
// The rule: src/domain/shared/fields.ts (identifierProblem).
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { identifierPattern, lookupRule } from '../../src/domain/shared/fields.js';
import { RECORD_ORDER, RECORD_REFERRAL, REFUND_ORDER } from '../admin-ops.js';
import { adminClient, client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
let merchantId: string;
let api: ReturnType<typeof client>;
let admin: ReturnType<typeof adminClient>;
let victim: Awaited<ReturnType<typeof newCustomer>>;
let reward: { id: string };

const BASE = 'a-c1';
const BALANCE = 500;

/** Each hostile spelling of an identifier `s`, and what the refusal must name. */
const HOSTILE: [label: string, spell: (s: string) => string, names: string][] = [
  ['a trailing U+FEFF (byte order mark)', (s) => `${s}\uFEFF`, 'U+FEFF'],
  ['a leading U+FEFF', (s) => `\uFEFF${s}`, 'U+FEFF'],
  ['a trailing U+3000 (ideographic space)', (s) => `${s}\u3000`, 'U+3000'],
  ['a trailing U+00A0 (no-break space)', (s) => `${s}\u00A0`, 'U+00A0'],
  ['a trailing U+2028 (line separator)', (s) => `${s}\u2028`, 'U+2028'],
  ['a trailing U+200B (zero-width space)', (s) => `${s}\u200B`, 'U+200B'],
  ['a U+200B inside', (s) => `${s.slice(0, 2)}\u200B${s.slice(2)}`, 'U+200B'],
  ['a trailing U+2060 (word joiner)', (s) => `${s}\u2060`, 'U+2060'],
  ['a trailing tab', (s) => `${s}\t`, 'U+0009'],
  ['a trailing newline', (s) => `${s}\n`, 'U+000A'],
  ['a leading space', (s) => ` ${s}`, 'space'],
  ['a trailing space', (s) => `${s} `, 'space'],
];

const enc = encodeURIComponent;

beforeAll(async () => {
  app = await testApp();
  const merchant = await newMerchant(app, 'identifiers');
  merchantId = merchant.id;
  api = client(app, await newKey(app, merchantId));
  admin = adminClient(app, merchant.admin_token);
  victim = await newCustomer(app, merchantId, { customerId: BASE, email: `${BASE}@example.com`, points: BALANCE });
  await app.db.customer.updateMany({ where: { id: victim.id }, data: { referralCode: 'SSSS2345' } });
  reward = await app.db.reward.create({
    data: { merchantId, name: 'Free shipping', rewardType: 'free_shipping', pointsCost: 10, rewardRule: {} },
  });
  // an order of the victim's, so that a hostile refund has something it could wrongly find
  const order = await admin(RECORD_ORDER, { input: { order_id: 'o-1', customer_id: BASE, subtotal: 10 } });
  expect(order.body.errors).toBeUndefined();
});

/** Everything a refused request might have changed at the merchant. */
async function footprint() {
  const where = { merchantId };
  const [customers, transactions, activities, orders, referrals, events, redemptions] = await Promise.all([
    app.db.customer.findMany({
      where,
      orderBy: { id: 'asc' },
      select: { id: true, platformId: true, email: true, pointsBalance: true, referralCode: true, updatedAt: true },
    }),
    app.db.pointsTransaction.count({ where }),
    app.db.activity.count({ where }),
    app.db.order.findMany({ where, orderBy: { id: 'asc' } }),
    app.db.referral.count({ where }),
    app.db.engineEvent.count({ where }),
    app.db.customerReward.count({ where }),
  ]);
  return { customers, transactions, activities, orders, referrals, events, redemptions };
}

/** A REST answer that is 422 validation_error whose details name `field` and say what is wrong. */
function expectRefusedRest(res: { status: number; body: any }, field: string, names: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body.error.code).toBe('validation_error');
  expect(Object.keys(res.body.error.details)).toEqual([field]);
  expect(res.body.error.details[field].join(' ')).toContain(names);
}

/** A GraphQL answer whose error is validation_error naming `field`, with no data. */
function expectRefusedGql(res: { status: number; body: { data?: any; errors?: any[] } }, field: string, names: string) {
  expect(res.body.errors?.length, JSON.stringify(res.body)).toBe(1);
  const extensions = res.body.errors![0].extensions;
  expect(extensions.code).toBe('validation_error');
  expect(Object.keys(extensions.details)).toEqual([field]);
  expect(extensions.details[field].join(' ')).toContain(names);
}

describe.each(HOSTILE)('an identifier with %s', (_label, spell, names) => {
  const id = spell(BASE);
  const email = spell(`${BASE}@example.com`);

  it('is refused by the REST lookups: balance, list filter, one customer, by customer_id and by email', async () => {
    const before = await footprint();
    expectRefusedRest(await api.rest('GET', `/v1/customers/balance?customer_id=${enc(id)}`), 'customer_id', names);
    expectRefusedRest(await api.rest('GET', `/v1/customers/transactions?customer_id=${enc(id)}`), 'customer_id', names);
    expectRefusedRest(await api.rest('GET', `/v1/customers?customer_id=${enc(id)}`), 'customer_id', names);
    expectRefusedRest(await api.rest('GET', `/v1/customers/${enc(id)}`), 'id', names);
    expectRefusedRest(await api.rest('GET', `/v1/customers/balance?email=${enc(email)}`), 'email', names);
    expectRefusedRest(await api.rest('GET', `/v1/customers?email=${enc(email)}`), 'email', names);
    expect(await footprint()).toEqual(before);
  });

  it('is refused by REST writes and changes nothing: a credit, a redemption, an estimate', async () => {
    const before = await footprint();
    const credit = await api.rest('POST', `/v1/customers/transactions?customer_id=${enc(id)}`, { points: 100, description: 'hostile' });
    expectRefusedRest(credit, 'customer_id', names);
    const byBody = await api.rest('POST', '/v1/customers/transactions', { customer_id: id, points: 100, description: 'hostile' });
    expectRefusedRest(byBody, 'customer_id', names);
    const redeem = await api.rest('POST', `/v1/customers/rewards/redeem?customer_id=${enc(id)}`, { reward_id: reward.id });
    expectRefusedRest(redeem, 'customer_id', names);
    const rewardId = await api.rest('POST', `/v1/customers/rewards/redeem?customer_id=${BASE}`, { reward_id: spell(reward.id) });
    expectRefusedRest(rewardId, 'reward_id', names);
    expectRefusedRest(await api.rest('POST', '/v1/points/estimate', { customer_id: id, subtotal: 10 }), 'customer_id', names);
    const after = await footprint();
    expect(after).toEqual(before);
    expect(after.customers.find((c) => c.id === victim.id)!.pointsBalance).toBe(BALANCE);
  });

  it('is refused by GraphQL lookups and writes, and changes nothing', async () => {
    const before = await footprint();
    const q = (query: string, variables: Record<string, unknown>) => api.gql(query, variables);
    const balance = await q('query ($id: String) { customer_balance(customer_id: $id) { data { points_balance } } }', { id });
    expectRefusedGql(balance, 'customer_id', names);
    const byEmail = await q('query ($e: String) { customer_balance(email: $e) { data { points_balance } } }', { e: email });
    expectRefusedGql(byEmail, 'email', names);
    expectRefusedGql(await q('query ($id: ID!) { customer(id: $id) { data { id } } }', { id }), 'id', names);
    const listed = await q('query ($id: String) { customers(customer_id: $id) { data { id } } }', { id });
    expectRefusedGql(listed, 'customer_id', names);
    const credit = await q(
      'mutation ($id: String!) { create_customer_transaction(customer_id: $id, points: 100, description: "hostile") { data { transaction_id } } }',
      { id },
    );
    expectRefusedGql(credit, 'customer_id', names);
    const session = await q('mutation ($id: String) { create_customer_session(customer_id: $id) { data { token } } }', { id });
    expectRefusedGql(session, 'customer_id', names);
    const estimate = await q('query ($id: String) { points_estimate(customer_id: $id, subtotal: 10) { data { points } } }', { id });
    expectRefusedGql(estimate, 'customer_id', names);
    const after = await footprint();
    expect(after).toEqual(before);
    expect(after.customers.find((c) => c.id === victim.id)!.pointsBalance).toBe(BALANCE);
  });

  it('is refused by the admin API: creating or renaming a customer, looking one up, adjusting points', async () => {
    const before = await footprint();
    const fresh = `new-${randomUUID().slice(0, 8)}`;
    const create = await admin('mutation ($input: CustomerInput!) { create_customer(input: $input) { id } }', {
      input: { customer_id: spell(fresh), email: `${fresh}@example.com` },
    });
    expectRefusedGql(create, 'customer_id', names);
    // the trimmed spelling of an existing id too: refused as a spelling, not 409 conflict as if it named a-c1
    const taken = await admin('mutation ($input: CustomerInput!) { create_customer(input: $input) { id } }', {
      input: { customer_id: id, email: `${fresh}@example.com` },
    });
    expectRefusedGql(taken, 'customer_id', names);
    const rename = await admin('mutation ($id: ID!, $input: CustomerPatch!) { update_customer(id: $id, input: $input) { id } }', {
      id: victim.id,
      input: { customer_id: spell('renamed') },
    });
    expectRefusedGql(rename, 'customer_id', names);
    expectRefusedGql(await admin('query ($id: ID!) { customer(id: $id) { id } }', { id }), 'id', names);
    expectRefusedGql(await admin('query ($id: String) { customers(customer_id: $id) { data { id } } }', { id }), 'customer_id', names);
    const adjust = await admin('mutation ($id: ID!) { adjust_points(id: $id, points: 100, description: "hostile") { transaction_id } }', {
      id,
    });
    expectRefusedGql(adjust, 'id', names);
    expect(await footprint()).toEqual(before);
  });

  it('is refused by the engine events: order, refund, activity and referral ids', async () => {
    const before = await footprint();
    const order = (input: Record<string, unknown>) =>
      admin(RECORD_ORDER, { input: { order_id: 'o-2', customer_id: BASE, subtotal: 10, ...input } });
    expectRefusedGql(await order({ customer_id: id }), 'customer_id', names);
    expectRefusedGql(await order({ order_id: spell('o-1') }), 'order_id', names);
    expectRefusedGql(await order({ event_id: spell('evt-1') }), 'event_id', names);
    expectRefusedGql(await admin(REFUND_ORDER, { input: { order_id: spell('o-1') } }), 'order_id', names);
    const activity = (input: Record<string, unknown>) =>
      admin('mutation ($input: ActivityEventInput!) { record_activity(input: $input) { points_awarded } }', {
        input: { campaign_type: 'review', customer_id: BASE, event_id: 'review-1', ...input },
      });
    expectRefusedGql(await activity({ customer_id: id }), 'customer_id', names);
    expectRefusedGql(await activity({ event_id: spell('review-1') }), 'event_id', names);
    const referral = await admin(RECORD_REFERRAL, { input: { referrer_code: spell('SSSS2345'), referee_email: 'friend@example.com' } });
    expectRefusedGql(referral, 'referrer_code', names);
    expect(await footprint()).toEqual(before);
  });
});

describe('identifiers that are legitimate', () => {
  const LEGITIMATE = ['kund-åäö', '顧客-1', 'a c1', 'Ünïcødé/ok#1'];

  it.each(LEGITIMATE)('%s is created, found and credited exactly', async (id) => {
    const created = await admin('mutation ($input: CustomerInput!) { create_customer(input: $input) { id customer_id } }', {
      input: { customer_id: id, email: `${randomUUID().slice(0, 8)}@example.com` },
    });
    expect(created.body.errors).toBeUndefined();
    const customer = created.body.data.create_customer;
    expect(customer.customer_id).toBe(id);

    const one = await api.rest('GET', `/v1/customers/${enc(id)}`);
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({ id: customer.id, customer_id: id });
    const listed = await api.rest('GET', `/v1/customers?customer_id=${enc(id)}`);
    expect(listed.body.data.map((c: any) => c.id)).toEqual([customer.id]);
    const credit = await api.rest('POST', `/v1/customers/transactions?customer_id=${enc(id)}`, { points: 7, description: 'welcome' });
    expect(credit.status).toBe(201);
    expect(credit.body.data.customer_id).toBe(customer.id);
    const balance = await api.rest('GET', `/v1/customers/balance?customer_id=${enc(id)}`);
    expect(balance.body.data).toMatchObject({ customer_id: customer.id, points_balance: 7 });
    const gql = await api.gql('query ($id: ID!) { customer(id: $id) { data { id points_balance } } }', { id });
    expect(gql.body.data.customer.data).toEqual({ id: customer.id, points_balance: 7 });
    // the victim is untouched
    expect((await app.db.customer.findFirstOrThrow({ where: { id: victim.id } })).pointsBalance).toBe(BALANCE);
  });

  it('compares exactly: no Unicode normalisation, no case folding of ids', async () => {
    const nfc = 'kund-\u00E5\u00E4\u00F6';
    const nfd = nfc.normalize('NFD');
    expect(nfd).not.toBe(nfc);
    // created above in NFC; the NFD spelling is another id, which names no customer
    const missing = await api.rest('GET', `/v1/customers/balance?customer_id=${enc(nfd)}`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
    expect((await api.rest('GET', `/v1/customers/${enc(nfd)}`)).status).toBe(404);
    const credit = await api.rest('POST', `/v1/customers/transactions?customer_id=${enc(nfd)}`, { points: 5, description: 'nfd' });
    expect(credit.status).toBe(404);
    // nor does another case
    expect((await api.rest('GET', `/v1/customers/balance?customer_id=${BASE.toUpperCase()}`)).status).toBe(404);
  });

  it('emails are matched ignoring the case of ASCII letters only', async () => {
    const kim = await newCustomer(app, merchantId, { customerId: 'kim', email: 'kim@example.com' });
    const upper = await api.rest('GET', `/v1/customers/balance?email=${enc('KIM@Example.COM')}`);
    expect(upper.body.data.customer_id).toBe(kim.id);
    // U+212A KELVIN SIGN lower-cases to k in Unicode: it must not name kim@example.com
    for (const lookalike of ['\u212Aim@example.com', 'k\u0130m@example.com']) {
      const res = await api.rest('GET', `/v1/customers/balance?email=${enc(lookalike)}`);
      expect(res.status, lookalike).toBe(404);
      const listed = await api.rest('GET', `/v1/customers?email=${enc(lookalike)}`);
      expect(listed.body.data, lookalike).toEqual([]);
    }
  });

  it('referral codes are matched ignoring the case of ASCII letters only', async () => {
    const before = await footprint();
    // U+017F LATIN SMALL LETTER LONG S upper-cases to S in Unicode: not the code SSSS2345
    const longS = await admin(RECORD_REFERRAL, {
      input: { referrer_code: '\u017F\u017F\u017F\u017F2345', referee_email: 'f1@example.com' },
    });
    expect(longS.body.errors?.[0].extensions.code).toBe('not_found');
    expect(await footprint()).toEqual(before);
    // lower-case ASCII finds the referrer (then meets the merchant's inactive program)
    const lower = await admin(RECORD_REFERRAL, { input: { referrer_code: 'ssss2345', referee_email: 'f2@example.com' } });
    expect(lower.body.errors?.[0]).toMatchObject({ message: 'The referral program is not active.' });
  });
});

describe('the identifier rule as the OpenAPI document states it (identifierPattern)', () => {
  it('accepts and refuses exactly what the service does, for every code point, inside and at either end', () => {
    const pattern = new RegExp(identifierPattern, 'u');
    const differ: string[] = [];
    for (let c = 0; c <= 0x10ffff; c++) {
      const char = String.fromCodePoint(c);
      for (const id of [`a${char}b`, `${char}b`, `a${char}`]) {
        const service = lookupRule.safeParse(id).success;
        if (pattern.test(id) !== service) differ.push(`U+${c.toString(16).toUpperCase()} in ${JSON.stringify(id)}`);
      }
      if (differ.length > 5) break;
    }
    expect(differ).toEqual([]);
  });
});
