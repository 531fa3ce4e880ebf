// Referrals that cannot be farmed: fraud signals hold a referral (status held, referral.flagged)
// instead of rewarding it, and the merchant approves (rewards issued then, once) or rejects it
// (nothing issued), through the admin API; the shopper reads "held" through REST and GraphQL.
// Driven as the merchant's integration does (admin API: program, referrals, orders, refunds).
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPrisma } from '../../src/db/client.js';
import { createApp } from '../../src/http/app.js';
import { adminOps, RECORD_ORDER, REFUND_ORDER } from '../admin-ops.js';
import { client, newCustomer, newKey, newMerchant, type TestApp, testApp, testConfig } from '../harness.js';

let app: TestApp;
beforeAll(async () => {
  app = await testApp();
});

const DAY = 86_400_000;
const PROGRAM = `mutation ($input: ReferralProgramInput!) { set_referral_program(input: $input) { is_active } }`;
const REFER = `mutation ($input: ReferralEventInput!) {
  record_referral(input: $input) { id status referrer_points signals { signal detail } replayed } }`;
const REFERRAL_FIELDS = `id status referee_email order_id referrer_points held_at review reviewed_at registered_by client_ip
  signals { signal detail } referrer { customer_id } referee { customer_id }`;
const APPROVE = `mutation ($id: ID!) { approve_referral(id: $id) { ${REFERRAL_FIELDS} } }`;
const REJECT = `mutation ($id: ID!) { reject_referral(id: $id) { ${REFERRAL_FIELDS} } }`;
const HELD = `query ($status: ReferralStatus) { referrals(status: $status) { data { ${REFERRAL_FIELDS} } meta { pagination { total } } } }`;

type Identifiers = { client_ip?: string; device_id?: string; payment_fingerprint?: string; shipping_address_hash?: string };

/** A merchant with a referral program (500 points; the friend gets $10 off; min $50), 1 point per $1, and these fraud checks. */
async function shop(fraud_checks?: Record<string, unknown>) {
  const merchant = await newMerchant(app, 'referral-review');
  const admin = adminOps(app, merchant.admin_token);
  const api = client(app, await newKey(app, merchant.id));
  await admin.ok(PROGRAM, {
    input: {
      referrer_reward: { points: 500 },
      referee_reward: { reward_type: 'fixed_discount', reward_rule: { discount_value: 10 } },
      min_order_subtotal: 50,
      ...(fraud_checks && { fraud_checks }),
    },
  });
  await app.db.earningRule.create({
    data: {
      merchantId: merchant.id,
      name: '1 per $1',
      campaignType: 'purchase',
      earningRule: { type: 'variable', value: 1, per_amount: 1 },
    },
  });
  const refer = async (referrer_code: string, referee_email: string, ids: Identifiers = {}) =>
    (await admin.ok(REFER, { input: { referrer_code, referee_email, ...ids } })).record_referral;
  const order = async (customer_id: string, order_id: string, subtotal: number, ids: Identifiers = {}, created_at?: string) =>
    (await admin.ok(RECORD_ORDER, { input: { order_id, customer_id, subtotal, created_at, ...ids } })).record_order;
  const refund = async (order_id: string, amount?: number) => (await admin.ok(REFUND_ORDER, { input: { order_id, amount } })).refund_order;
  /** A referrer (unique email) and, once referred, the friend as a customer. */
  const referrer = (email = `ref-${randomUUID().slice(0, 8)}@example.com`, points?: number) =>
    newCustomer(app, merchant.id, { email, points });
  const friendOf = async (who: { referralCode: string }, email = `pal-${randomUUID().slice(0, 8)}@example.org`, ids: Identifiers = {}) => {
    const referral = await refer(who.referralCode, email, ids);
    return { referral, friend: await newCustomer(app, merchant.id, { email }) };
  };
  const balance = async (customerId: string) =>
    (await api.rest('GET', `/v1/customers/balance?customer_id=${customerId}`)).body.data.points_balance as number;
  const codes = async (customerId: string) =>
    (await api.rest('GET', `/v1/customers/rewards?customer_id=${customerId}`)).body.data as { code: string; status: string }[];
  const referralsOf = async (customerId: string) =>
    (await api.rest('GET', `/v1/customers/referrals?customer_id=${customerId}`)).body.data as { id: string; status: string }[];
  const events = async (type: string) =>
    (await app.db.outboxEvent.findMany({ where: { merchantId: merchant.id, type }, orderBy: { createdAt: 'asc' } })).map(
      (e) => e.payload as Record<string, any>,
    );
  return { merchant, admin, api, refer, order, refund, referrer, friendOf, balance, codes, referralsOf, events };
}

const signalsOf = (r: { signals: { signal: string }[] }) => r.signals.map((s) => s.signal);

describe('signals at registration', () => {
  it('hold the referrer’s own mailbox: case, plus-tags, dots where the provider ignores them, similar local parts', async () => {
    const s = await shop();
    const ada = await s.referrer('Ada.Lovelace@gmail.com');
    for (const email of ['ada.lovelace+friend@gmail.com', 'adalovelace@googlemail.com', 'ada.lovelace1@example.net']) {
      const held = await s.refer(ada.referralCode, email);
      expect(held, email).toMatchObject({ status: 'held', referrer_points: null, replayed: false });
      expect(signalsOf(held), email).toEqual(['similar_email']);
    }
    // someone else entirely, and a short local part compared whole: pending
    expect(await s.refer(ada.referralCode, 'grace.hopper@example.net')).toMatchObject({ status: 'pending', signals: [] });
    const al = await s.referrer('al@example.com');
    expect(await s.refer(al.referralCode, 'ab@example.com')).toMatchObject({ status: 'pending' });
    // the same address exactly stays a refusal
    expect((await s.admin.fails(REFER, { input: { referrer_code: ada.referralCode, referee_email: 'ada.lovelace@gmail.com' } })).code).toBe(
      'referral_rejected',
    );
    // the shopper reads "held", not an error, through REST and GraphQL
    const listed = await s.referralsOf(ada.platformId);
    expect(listed.map((r) => r.status).sort()).toEqual(['held', 'held', 'held', 'pending']);
    const gql = await s.api.gql(`{ customer_referrals(customer_id: "${ada.platformId}") { data { status referee_email } } }`);
    expect(gql.body.data.customer_referrals.data).toContainEqual({ status: 'held', referee_email: 'adalovelace@googlemail.com' });
    // one referral.flagged per held referral, with its signals
    const flagged = await s.events('referral.flagged');
    expect(flagged).toHaveLength(3);
    expect(flagged[0]).toMatchObject({
      referrer: { customer_id: ada.platformId },
      referee: null,
      referee_email: 'ada.lovelace+friend@gmail.com',
      order_id: null,
      signals: [{ signal: 'similar_email', detail: expect.stringMatching(/mailbox/) }],
    });
  });

  it('follow the merchant’s thresholds and switches', async () => {
    const strict = await shop({ similar_email: { similarity: 0.95 } });
    const ada = await strict.referrer('adalovelace@example.com');
    // 1 − 1/12 = 0.92: under 0.95
    expect((await strict.refer(ada.referralCode, 'adalovelace1@example.net')).status).toBe('pending');
    const off = await shop({ similar_email: { enabled: false } });
    const bea = await off.referrer('bea@example.com');
    expect((await off.refer(bea.referralCode, 'bea+2@example.com')).status).toBe('pending');
  });

  it('hold a blocklisted email, domain (and its subdomains) or client address', async () => {
    const s = await shop({
      blocklist: { emails: ['Spam.Me+x@gmail.com'], domains: ['mailinator.com'], addresses: ['203.0.113.0/24', '2001:db8::1'] },
    });
    const ada = await s.referrer();
    const held = async (email: string, ids: Identifiers = {}) => signalsOf(await s.refer(ada.referralCode, email, ids));
    expect(await held('spamme@gmail.com')).toEqual(['blocklist']);
    expect(await held('x@eu.mailinator.com')).toEqual(['blocklist']);
    expect(await held('y@example.org', { client_ip: '203.0.113.77' })).toEqual(['blocklist']);
    expect(await held('z@example.org', { client_ip: '::ffff:203.0.113.8' })).toEqual(['blocklist']);
    expect(await held('w@example.org', { client_ip: '2001:DB8::1' })).toEqual(['blocklist']);
    expect(await held('v@notmailinator.com', { client_ip: '198.51.100.1' })).toEqual([]);
  });

  it('hold a referrer’s referral past its limit in the window, and referrals from one client address past theirs', async () => {
    const s = await shop({
      referrer_velocity: { max_referrals: 2, window_days: 7 },
      address_velocity: { max_referrals: 3, window_days: 1 },
    });
    const ada = await s.referrer();
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await s.refer(ada.referralCode, `a${i}-${randomUUID().slice(0, 6)}@example.org`)).status);
    expect(statuses).toEqual(['pending', 'pending', 'held']);
    // referrals older than the window do not count
    await app.db.referral.updateMany({ where: { referrerId: ada.id }, data: { createdAt: new Date(Date.now() - 8 * DAY) } });
    expect((await s.refer(ada.referralCode, `later-${randomUUID().slice(0, 6)}@example.org`)).status).toBe('pending');

    // three referrers from one address: the fourth referral from it is held, whoever sends it
    const fromOne = [];
    for (let i = 0; i < 4; i++) {
      const who = await s.referrer();
      fromOne.push(await s.refer(who.referralCode, `b${i}-${randomUUID().slice(0, 6)}@example.org`, { client_ip: '198.51.100.9' }));
    }
    expect(fromOne.map((r) => r.status)).toEqual(['pending', 'pending', 'pending', 'held']);
    expect(fromOne[3].signals[0]).toMatchObject({
      signal: 'address_velocity',
      detail: expect.stringMatching(/^3 referrals .* last 1 days/),
    });
  });

  it('refuse bad identifiers and bad settings with 422, changing nothing', async () => {
    const s = await shop();
    const ada = await s.referrer();
    const bad = await s.admin.fails(REFER, {
      input: { referrer_code: ada.referralCode, referee_email: 'q@example.org', client_ip: '300.1.1.1' },
    });
    expect(bad).toMatchObject({ code: 'validation_error', details: { client_ip: [expect.any(String)] } });
    expect(await s.referralsOf(ada.platformId)).toEqual([]);
    const input = { referrer_reward: { points: 1 }, referee_reward: { reward_type: 'free_shipping' } };
    for (const [fraud_checks, field] of [
      [{ similar_email: { similarity: 1.5 } }, 'fraud_checks.similar_email.similarity'],
      [{ referrer_velocity: { max_referrals: 0 } }, 'fraud_checks.referrer_velocity.max_referrals'],
      [{ blocklist: { addresses: ['10.0.0.0/33'] } }, 'fraud_checks.blocklist.addresses.0'],
      [{ blocklist: { domains: ['not a domain'] } }, 'fraud_checks.blocklist.domains.0'],
    ] as const) {
      const refused = await s.admin.fails(PROGRAM, { input: { ...input, fraud_checks } });
      expect(refused.code).toBe('validation_error');
      expect(Object.keys(refused.details!)).toEqual([field]);
    }
    const { referral_program } = await s.admin.ok('{ referral_program { referrer_reward { points } } }');
    expect(referral_program.referrer_reward.points).toBe(500);
  });
});

describe('the fraud checks in the program', () => {
  const CHECKS = `{ referral_program { fraud_checks {
    similar_email { enabled similarity } shared_identifier { enabled window_days } not_first_order { enabled }
    referrer_velocity { enabled max_referrals window_days } address_velocity { enabled max_referrals window_days }
    blocklist { enabled emails domains addresses } } } }`;

  it('default to on (but not_first_order), are replaced whole when given and kept when left out', async () => {
    const s = await shop();
    expect((await s.admin.ok(CHECKS)).referral_program.fraud_checks).toEqual({
      similar_email: { enabled: true, similarity: 0.8 },
      shared_identifier: { enabled: true, window_days: 30 },
      not_first_order: { enabled: false },
      referrer_velocity: { enabled: true, max_referrals: 10, window_days: 7 },
      address_velocity: { enabled: true, max_referrals: 10, window_days: 7 },
      blocklist: { enabled: true, emails: [], domains: [], addresses: [] },
    });
    const base = { referrer_reward: { points: 500 }, referee_reward: { reward_type: 'free_shipping' } };
    await s.admin.ok(PROGRAM, {
      input: { ...base, fraud_checks: { not_first_order: { enabled: true }, blocklist: { domains: ['@Spam.example'] } } },
    });
    await s.admin.ok(PROGRAM, { input: { ...base, referrer_reward: { points: 600 } } });
    const kept = (await s.admin.ok(CHECKS)).referral_program.fraud_checks;
    expect(kept).toMatchObject({
      not_first_order: { enabled: true },
      blocklist: { domains: ['spam.example'] },
      similar_email: { similarity: 0.8 },
    });
    // the public program shows no checks
    const open = await s.api.gql('{ referral_program { data { fraud_checks { blocklist { domains } } } } }');
    expect(open.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});

describe('signals at the friend’s order', () => {
  it('hold a referral whose friend’s order shares the referrer’s device: no code, no points, until approved', async () => {
    const s = await shop();
    const ada = await s.referrer();
    await s.order(ada.platformId, 'ada-1', 20, { device_id: 'dev-ada', client_ip: '192.0.2.10' });
    const { referral, friend } = await s.friendOf(ada);
    expect(referral.status).toBe('pending');
    const placed = await s.order(friend.platformId, 'pal-1', 80, { device_id: 'dev-ada', payment_fingerprint: 'card-1' });
    expect(placed.points_awarded).toBe(80); // the friend's own earning is not held
    expect(await s.codes(friend.platformId)).toEqual([]);
    expect(await s.balance(ada.platformId)).toBe(20);
    const { referrals } = await s.admin.ok(HELD, { status: 'held' });
    expect(referrals.data).toEqual([
      expect.objectContaining({
        id: referral.id,
        status: 'held',
        order_id: 'pal-1',
        referrer_points: null,
        referrer: { customer_id: ada.platformId },
        referee: { customer_id: friend.platformId },
        signals: [{ signal: 'shared_identifier', detail: "The friend's order pal-1 shares the device of the referrer's order ada-1" }],
      }),
    ]);
    expect(await s.events('referral.flagged')).toEqual([expect.objectContaining({ id: referral.id, order_id: 'pal-1' })]);
    // a later order of the friend neither completes nor holds it again
    await s.order(friend.platformId, 'pal-2', 90);
    expect(await s.codes(friend.platformId)).toEqual([]);
    expect(await s.events('referral.flagged')).toHaveLength(1);

    const approved = (await s.admin.ok(APPROVE, { id: referral.id })).approve_referral;
    expect(approved).toMatchObject({ status: 'completed', order_id: 'pal-1', referrer_points: 500, review: 'approved' });
    expect(await s.codes(friend.platformId)).toEqual([expect.objectContaining({ status: 'issued' })]);
    expect(await s.balance(ada.platformId)).toBe(520);
    expect(await s.events('referral.completed')).toEqual([expect.objectContaining({ id: referral.id, referrer_points: 500 })]);
    // audited: who, which referral, held before and completed after
    const { audit_log } = await s.admin.ok(
      `{ audit_log(action: "approve_referral") { data { actor resource_type resource_id before after } } }`,
    );
    expect(audit_log.data).toEqual([
      expect.objectContaining({
        resource_type: 'Referral',
        resource_id: referral.id,
        before: expect.objectContaining({ status: 'held' }),
        after: expect.objectContaining({ status: 'completed', review: 'approved' }),
      }),
    ]);
  });

  it('compare with the referrer’s orders within the window only', async () => {
    const s = await shop({ shared_identifier: { window_days: 10 } });
    const ada = await s.referrer();
    await s.order(ada.platformId, 'old', 20, { client_ip: '192.0.2.20' }, new Date(Date.now() - 11 * DAY).toISOString());
    const { friend } = await s.friendOf(ada);
    await s.order(friend.platformId, 'f-1', 60, { client_ip: '192.0.2.20' });
    expect(await s.codes(friend.platformId)).toHaveLength(1);
    expect(await s.balance(ada.platformId)).toBe(520);
  });

  it('hold an order that is not the friend’s first, when that check is on', async () => {
    const s = await shop({ not_first_order: { enabled: true } });
    const ada = await s.referrer();
    const { referral, friend } = await s.friendOf(ada);
    await s.order(friend.platformId, 'small', 10);
    await s.order(friend.platformId, 'big', 60);
    const [held] = (await s.admin.ok(HELD, { status: 'held' })).referrals.data;
    expect(held).toMatchObject({ id: referral.id, order_id: 'big', signals: [{ signal: 'not_first_order' }] });
  });

  it('let a referral held at registration take the friend’s order, still held; approval then completes it with that order', async () => {
    const s = await shop();
    const ada = await s.referrer('ada@example.com');
    const { referral, friend } = await s.friendOf(ada, 'ada+me@example.com');
    expect(referral.status).toBe('held');
    // two qualifying orders at once: one of them is the referral's
    await Promise.all([s.order(friend.platformId, 'r-1', 60), s.order(friend.platformId, 'r-2', 70)]);
    const [held] = (await s.admin.ok(HELD, { status: 'held' })).referrals.data;
    expect(['r-1', 'r-2']).toContain(held.order_id);
    expect(held.referee).toEqual({ customer_id: friend.platformId });
    expect(await s.events('referral.flagged')).toHaveLength(1);
    expect(await s.codes(friend.platformId)).toEqual([]);
    expect((await s.admin.ok(APPROVE, { id: referral.id })).approve_referral).toMatchObject({
      status: 'completed',
      order_id: held.order_id,
    });
    expect(await s.balance(ada.platformId)).toBe(500);
  });
});

describe('the merchant’s review', () => {
  it('approving before the friend’s order makes it pending again, and that order completes it unjudged', async () => {
    const s = await shop();
    const ada = await s.referrer('ada@example.com');
    await s.order(ada.platformId, 'ada-1', 5, { device_id: 'shared' });
    const { referral, friend } = await s.friendOf(ada, 'ada+2@example.com');
    expect((await s.admin.ok(APPROVE, { id: referral.id })).approve_referral).toMatchObject({ status: 'pending', review: 'approved' });
    await s.order(friend.platformId, 'f-1', 50, { device_id: 'shared' });
    expect((await s.referralsOf(ada.platformId))[0]).toMatchObject({ status: 'completed' });
    expect(await s.balance(ada.platformId)).toBe(505);
  });

  it('rejecting issues nothing, answers the same again, and cannot be undone by an approval (409)', async () => {
    const s = await shop({ shared_identifier: { enabled: true } });
    const ada = await s.referrer();
    await s.order(ada.platformId, 'ada-1', 5, { shipping_address_hash: 'home' });
    const { referral, friend } = await s.friendOf(ada);
    await s.order(friend.platformId, 'f-1', 50, { shipping_address_hash: 'home' });
    const rejected = (await s.admin.ok(REJECT, { id: referral.id })).reject_referral;
    expect(rejected).toMatchObject({ status: 'rejected', review: 'rejected', reviewed_at: expect.any(String) });
    expect((await s.admin.ok(REJECT, { id: referral.id })).reject_referral).toEqual(rejected);
    expect(await s.admin.fails(APPROVE, { id: referral.id })).toMatchObject({ code: 'conflict' });
    expect(await s.codes(friend.platformId)).toEqual([]);
    expect(await s.balance(ada.platformId)).toBe(5);
    expect(await s.events('referral.completed')).toEqual([]);
    // a referral that was never held is no one's to review; an unknown id is 404
    const other = await s.friendOf(await s.referrer());
    expect(await s.admin.fails(APPROVE, { id: other.referral.id })).toMatchObject({ code: 'conflict' });
    expect(await s.admin.fails(REJECT, { id: randomUUID() })).toMatchObject({ code: 'not_found' });
    expect(await s.admin.fails(REJECT, { id: 'nope' })).toMatchObject({ code: 'not_found' });
  });

  it('approving after the friend’s order was refunded follows the refund rules: reversed at once, or standing while it qualifies', async () => {
    const s = await shop();
    const ada = await s.referrer('ada@example.com');
    const full = await s.friendOf(ada, 'ada+1@example.com');
    await s.order(full.friend.platformId, 'full', 80);
    await s.refund('full');
    const reversed = (await s.admin.ok(APPROVE, { id: full.referral.id })).approve_referral;
    expect(reversed).toMatchObject({ status: 'rejected', review: 'approved' });
    expect(await s.balance(ada.platformId)).toBe(0);
    const ledger = await s.api.rest('GET', `/v1/customers/transactions?customer_id=${ada.platformId}`);
    // credited and taken back in the approval's one transaction (one timestamp, so in either order)
    expect(ledger.body.data.map((t: { points: number }) => t.points).sort()).toEqual([-500, 500]);
    // approving it again answers it as it stands
    expect((await s.admin.ok(APPROVE, { id: full.referral.id })).approve_referral).toEqual(reversed);

    const part = await s.friendOf(ada, 'ada+2@example.com');
    await s.order(part.friend.platformId, 'part', 80);
    await s.refund('part', 20); // 60 left: still at least the minimum
    expect((await s.admin.ok(APPROVE, { id: part.referral.id })).approve_referral).toMatchObject({ status: 'completed' });
    expect(await s.balance(ada.platformId)).toBe(500);
  });
});

describe('exact under concurrency', () => {
  /** A referral held with its friend's order: the friend's order shares the referrer's device. */
  async function heldWithOrder(s: Awaited<ReturnType<typeof shop>>) {
    const ada = await s.referrer();
    await s.order(ada.platformId, `ada-${randomUUID().slice(0, 6)}`, 1, { device_id: 'same' });
    const { referral, friend } = await s.friendOf(ada);
    await s.order(friend.platformId, `f-${randomUUID().slice(0, 6)}`, 50, { device_id: 'same' });
    return { ada, friend, referral };
  }

  it('approved many times at once: each reward once', async () => {
    const s = await shop();
    const { ada, friend, referral } = await heldWithOrder(s);
    const answers = await Promise.all(Array.from({ length: 6 }, () => s.admin.ok(APPROVE, { id: referral.id })));
    for (const a of answers) expect(a.approve_referral).toMatchObject({ status: 'completed', review: 'approved' });
    expect(await s.codes(friend.platformId)).toHaveLength(1);
    expect(await s.balance(ada.platformId)).toBe(501);
    expect(await s.events('referral.completed')).toHaveLength(1);
  });

  it('approved on two instances at once: each reward once; approved and rejected at once: one decision wins', async () => {
    const s = await shop();
    const otherDb = createPrisma(app.url, 4);
    const other = createApp({ db: otherDb, databaseUrl: app.url, config: testConfig() });
    const on = (instance: 'one' | 'two', query: string, id: string) =>
      (instance === 'one'
        ? app.fetch('/admin/graphql', post(query, id))
        : other.fetch('http://loyalty.test/admin/graphql', post(query, id))
      ).then((r) => r.json() as Promise<{ data?: any; errors?: any[] }>);
    const post = (query: string, id: string) => ({
      method: 'POST',
      headers: { authorization: `Bearer ${s.merchant.admin_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables: { id } }),
    });
    try {
      const first = await heldWithOrder(s);
      const both = await Promise.all([on('one', APPROVE, first.referral.id), on('two', APPROVE, first.referral.id)]);
      expect(both.map((b) => b.data?.approve_referral?.status)).toEqual(['completed', 'completed']);
      expect(await s.codes(first.friend.platformId)).toHaveLength(1);
      expect(await s.balance(first.ada.platformId)).toBe(501);

      const second = await heldWithOrder(s);
      const raced = await Promise.all([on('one', APPROVE, second.referral.id), on('two', REJECT, second.referral.id)]);
      const won = raced.filter((r) => !r.errors);
      expect(won).toHaveLength(1);
      expect(raced.filter((r) => r.errors?.[0]?.extensions?.code === 'conflict')).toHaveLength(1);
      const approvedWon = Boolean(won[0]!.data.approve_referral);
      expect(await s.codes(second.friend.platformId)).toHaveLength(approvedWon ? 1 : 0);
      expect(await s.balance(second.ada.platformId)).toBe(approvedWon ? 501 : 1);
    } finally {
      await other.close();
      await otherDb.$disconnect();
    }
  });

  it('a retried approval with one Idempotency-Key answers the first answer and rewards once', async () => {
    const s = await shop();
    const { ada, referral } = await heldWithOrder(s);
    const send = () =>
      app.fetch('/admin/graphql', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${s.merchant.admin_token}`,
          'content-type': 'application/json',
          'idempotency-key': `approve-${referral.id}`,
        },
        body: JSON.stringify({ query: APPROVE, variables: { id: referral.id } }),
      });
    const first = await send();
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    expect(await s.balance(ada.platformId)).toBe(501);
    const { audit_log } = await s.admin.ok(`{ audit_log(action: "approve_referral") { meta { pagination { total } } } }`);
    expect(audit_log.meta.pagination.total).toBe(1);
  });

  it('two friends’ orders racing: each referral held or completed once, each reward once', async () => {
    const s = await shop();
    const ada = await s.referrer();
    await s.order(ada.platformId, 'ada-1', 1, { device_id: 'dev-x' });
    const clean = await s.friendOf(ada);
    const shared = await s.friendOf(ada);
    await Promise.all([
      ...['c-1', 'c-2', 'c-3'].map((id) => s.order(clean.friend.platformId, id, 60)),
      ...['s-1', 's-2', 's-3'].map((id) => s.order(shared.friend.platformId, id, 60, { device_id: 'dev-x' })),
    ]);
    expect(await s.codes(clean.friend.platformId)).toHaveLength(1);
    expect(await s.codes(shared.friend.platformId)).toEqual([]);
    expect(await s.balance(ada.platformId)).toBe(501);
    expect(await s.events('referral.flagged')).toHaveLength(1);
    await Promise.all([s.admin.ok(APPROVE, { id: shared.referral.id }), s.admin.ok(APPROVE, { id: shared.referral.id })]);
    expect(await s.codes(shared.friend.platformId)).toHaveLength(1);
    expect(await s.balance(ada.platformId)).toBe(1001);
  });
});

describe('a shopper referring a friend from the storefront', () => {
  const REFER_FRIEND = `mutation ($email: String!, $device: String) {
    refer_friend(referee_email: $email, device_id: $device) { data { id status referee_email referrer_points } } }`;

  /** The service behind one proxy (TRUST_PROXY=1): X-Forwarded-For names the shopper's address. */
  async function storefront(s: Awaited<ReturnType<typeof shop>>, who: { platformId: string }, trustProxy = '1') {
    const behindProxy = createApp({ db: app.db, config: testConfig({ TRUST_PROXY: trustProxy }) });
    const minted = await s.api.gql(`mutation { create_customer_session(customer_id: "${who.platformId}") { data { token } } }`);
    const token = minted.body.data.create_customer_session.data.token as string;
    const ask = async (query: string, variables: Record<string, unknown>, address = '203.0.113.5') => {
      const res = await behindProxy.fetch('http://loyalty.test/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-forwarded-for': address },
        body: JSON.stringify({ query, variables }),
      });
      return (await res.json()) as { data?: any; errors?: any[] };
    };
    return { ask, close: () => behindProxy.close() };
  }

  it('answers under review (status held), not an error, and the shopper reads it so', async () => {
    const s = await shop();
    const ada = await s.referrer('ada@example.com');
    const shopper = await storefront(s, ada);
    try {
      const clean = await shopper.ask(REFER_FRIEND, { email: 'grace@example.org', device: 'dev-ada' });
      expect(clean.errors).toBeUndefined();
      expect(clean.data.refer_friend.data).toMatchObject({ status: 'pending', referrer_points: null });
      const held = await shopper.ask(REFER_FRIEND, { email: 'ADA+friend@example.com' });
      expect(held.errors).toBeUndefined();
      expect(held.data.refer_friend.data).toMatchObject({ status: 'held', referee_email: 'ada+friend@example.com' });
      const me = await shopper.ask('{ me { referrals { data { referee_email status } } } }', {});
      expect(me.data.me.referrals.data).toEqual([
        { referee_email: 'ada+friend@example.com', status: 'held' },
        { referee_email: 'grace@example.org', status: 'pending' },
      ]);
      // the program's refusals stay errors
      const self = await shopper.ask(REFER_FRIEND, { email: 'ada@example.com' });
      expect(self.errors?.[0]?.extensions?.code).toBe('referral_rejected');
    } finally {
      await shopper.close();
    }
    // the address and device the referrer sent it from, as TRUST_PROXY decided
    const [pending] = (await s.admin.ok(HELD, { status: 'pending' })).referrals.data;
    expect(pending).toMatchObject({ referee_email: 'grace@example.org', registered_by: 'referrer', client_ip: '203.0.113.5' });
    // GraphQL only, and a session's only: an API key may not, REST has no route
    expect((await s.api.gql(REFER_FRIEND, { email: 'x@example.org' })).body.errors?.[0]?.extensions?.code).toBe('insufficient_scope');
    expect((await s.api.rest('POST', '/v1/refer_friend', { referee_email: 'x@example.org' })).status).toBe(404);
  });

  it('holds the referral when the friend orders from the address the referrer sent it from', async () => {
    const s = await shop();
    const ada = await s.referrer();
    const shopper = await storefront(s, ada);
    // behind one proxy the client is the address that proxy saw (the last one); the first is whatever the client wrote
    const sent = await shopper.ask(REFER_FRIEND, { email: 'pal@example.org' }, '198.51.100.7, 203.0.113.23');
    await shopper.close();
    expect(sent.data.refer_friend.data.status).toBe('pending');
    const friend = await newCustomer(app, s.merchant.id, { email: 'pal@example.org' });
    await s.order(friend.platformId, 'p-1', 60, { client_ip: '203.0.113.23' });
    expect(await s.codes(friend.platformId)).toEqual([]);
    expect((await s.admin.ok(HELD, { status: 'held' })).referrals.data[0]).toMatchObject({
      client_ip: '203.0.113.23',
      signals: [
        {
          signal: 'shared_identifier',
          detail: "The friend's order p-1 shares the client address of the referrer's registration of the referral",
        },
      ],
    });
  });
});

describe('finance', () => {
  const LIABILITY = `query ($from: Date!, $to: Date!) { points_liability(from: $from, to: $to, grouping: day) {
    total { issued { referrals } } held_referrals { referrals points } } }`;
  const REPLAY = `query ($from: Date!, $to: Date!, $draft: JSON!) {
    program_replay(from: $from, to: $to, draft: $draft) { customers_most_affected { customer_id actual draft } } }`;
  const today = () => new Date().toISOString().slice(0, 10);

  it('counts a held referral’s points as not issued until it is approved, in the liability and in a replay', async () => {
    const s = await shop();
    const ada = await s.referrer('ada@example.com');
    const { referral, friend } = await s.friendOf(ada, 'ada+1@example.com');
    await s.order(friend.platformId, 'f-1', 60);
    const range = { from: today(), to: today() };
    expect((await s.admin.ok(LIABILITY, range)).points_liability).toEqual({
      total: { issued: { referrals: 0 } },
      held_referrals: { referrals: 1, points: 500 },
    });
    // a draft ladder with a tier at 400 points that doubles: the held 500 do not lift ada into it
    const draft = {
      tiers: [
        { name: 'Member', position: 0, threshold: 0, is_default: true },
        { name: 'Big', position: 1, threshold: 400, earn_multiplier: 2 },
      ],
    };
    await s.order(ada.platformId, 'ada-before', 100);
    await s.admin.ok(APPROVE, { id: referral.id });
    await s.order(ada.platformId, 'ada-after', 100);
    const { program_replay } = await s.admin.ok(REPLAY, { ...range, draft });
    // 100 before the approval at Member, 200 after it at Big
    expect(program_replay.customers_most_affected).toContainEqual({ customer_id: ada.platformId, actual: 200, draft: 300 });
    expect((await s.admin.ok(LIABILITY, range)).points_liability).toEqual({
      total: { issued: { referrals: 500 } },
      held_referrals: { referrals: 0, points: 0 },
    });
  });
});

describe('a privacy export', () => {
  it('holds the identifiers its customer registered a referral with, never the other party’s, and no signal', async () => {
    const s = await shop();
    const ada = await s.referrer('ada@example.com');
    const { friend } = await s.friendOf(ada, 'ada+pal@example.com', { client_ip: '192.0.2.88', device_id: 'pal-phone' });
    const EXPORT = `query ($id: ID!) { customer_export(id: $id) }`;
    const mine = (await s.admin.ok(EXPORT, { id: ada.platformId })).customer_export.referrals.made;
    expect(mine).toEqual([
      expect.objectContaining({ referee_email: 'ada+pal@example.com', status: 'held', client_ip: null, device_id: null }),
    ]);
    expect(mine[0]).not.toHaveProperty('signals');
    const theirs = (await s.admin.ok(EXPORT, { id: friend.platformId })).customer_export.referrals.received;
    expect(theirs).toEqual([expect.objectContaining({ client_ip: '192.0.2.88', device_id: 'pal-phone', registered_by: 'referee' })]);
  });
});

describe('a privacy erasure', () => {
  it('takes the customer’s identifiers out of their orders, their referrals and the audit log’s arguments', async () => {
    const s = await shop();
    const ada = await s.referrer();
    const { friend } = await s.friendOf(ada, 'pal@example.org', { client_ip: '192.0.2.77', device_id: 'pal-phone' });
    await s.order(friend.platformId, 'p-1', 60, { client_ip: '192.0.2.77', payment_fingerprint: 'pal-card' });
    await s.admin.ok(`mutation ($id: ID!) { erase_customer(id: $id) { erased_now } }`, { id: friend.platformId });
    const order = await app.db.order.findFirstOrThrow({ where: { merchantId: s.merchant.id, platformOrderId: 'p-1' } });
    expect([order.clientIp, order.deviceId, order.paymentFingerprint]).toEqual([null, null, null]);
    const referral = await app.db.referral.findFirstOrThrow({ where: { merchantId: s.merchant.id, referrerId: ada.id } });
    expect([referral.clientIp, referral.deviceId]).toEqual([null, null]);
    const audit = JSON.stringify(await app.db.auditEntry.findMany({ where: { merchantId: s.merchant.id } }));
    expect(audit).toContain('record_order');
    for (const value of ['192.0.2.77', 'pal-phone', 'pal-card']) expect(audit).not.toContain(value);
  });
});
