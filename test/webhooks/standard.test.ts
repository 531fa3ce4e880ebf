// Webhooks as an integrator verifies them: real deliveries to a receiver on 127.0.0.1, checked
// with the Standard Webhooks reference library (npm `standardwebhooks`, not our own verifier)
// and against the bodies openapi.json's `webhooks` section describes; secret rotation with its
// overlap, ping, 410 Gone, Retry-After, customer.updated and customer.erased.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordOrder } from '../../src/domain/events/orders.js';
import { expirePoints, remindExpiringPoints } from '../../src/domain/ledger/expiry.js';
import { recordReferral } from '../../src/domain/referrals/referrals.js';
import { rowKey } from '../../src/domain/shared/keys.js';
import { RETRY_AFTER_MAX_SECONDS } from '../../src/domain/webhooks/deliveries.js';
import { verifySignature } from '../../src/domain/webhooks/signature.js';
import type { JobsRuntime } from '../../src/jobs/queue.js';
import { adminClient, client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';
import { eventually, type Received, startReceiver, workers } from './receiver.js';

let app: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let jobs: JobsRuntime | undefined;

beforeAll(async () => {
  process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'true';
  app = await testApp();
  receiver = await startReceiver();
  jobs = await workers(app);
});

afterAll(async () => {
  await jobs?.stop();
  await receiver.close();
});

const ENDPOINT = `id url enabled disabled_reason previous_secret_expires_at`;

/** A merchant with an endpoint on the receiver at `path`. */
async function shop(path: string, types?: string[]) {
  const merchant = await newMerchant(app, 'std');
  const admin = adminClient(app, merchant.admin_token);
  const created = await admin(
    `mutation($url: String!, $types: [String!]) { create_webhook_endpoint(url: $url, event_types: $types) { secret ${ENDPOINT} } }`,
    { url: receiver.url(path), types },
  );
  expect(created.body.errors).toBeUndefined();
  return { merchant, admin, endpoint: created.body.data.create_webhook_endpoint as { id: string; secret: string } };
}

const at = (path: string) => receiver.received.filter((r) => r.path === path);
const headersOf = (r: Received) => r.headers as Record<string, string>;

/** What a receiver with the library does: the parsed body, or the library's error. */
function verified(secret: string, r: Received) {
  try {
    return new Webhook(secret).verify(r.body, headersOf(r));
  } catch (err) {
    return err as Error;
  }
}

/** The served document's schema of each event type's body, made closed: a field it does not describe fails. */
async function deliverySchemas() {
  const doc = (await (await app.fetch('/v1/openapi.json')).json()) as { openapi: string; webhooks: Record<string, any> };
  expect(doc.openapi).toBe('3.1.0');
  const close = (node: any): any => {
    if (Array.isArray(node)) return node.map(close);
    if (!node || typeof node !== 'object') return node;
    const copy = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, close(v)]));
    return copy.type === 'object' && copy.properties ? { ...copy, additionalProperties: false } : copy;
  };
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats.default(ajv);
  return Object.fromEntries(
    Object.entries(doc.webhooks).map(([type, item]) => [
      type,
      ajv.compile(close(item.post.requestBody.content['application/json'].schema)),
    ]),
  );
}

describe('every event type', () => {
  it('arrives signed for the standardwebhooks library and for Loyalty-Signature, its body as openapi.json describes', async () => {
    const { merchant, admin, endpoint } = await shop('/all');
    const api = client(app, await newKey(app, merchant.id));
    // a program where each event type happens
    await app.db.merchant.update({ where: { id: merchant.id }, data: { pointsExpiryDays: 30 } });
    await app.db.earningRule.create({
      data: {
        merchantId: merchant.id,
        name: 'Per dollar',
        campaignType: 'purchase',
        earningRule: { type: 'variable', value: 1, per_amount: 1 },
      },
    });
    const reward = await app.db.reward.create({
      data: { merchantId: merchant.id, name: '$5 off', rewardType: 'fixed_discount', pointsCost: 100, rewardRule: { discount_value: 5 } },
    });
    await app.db.tier.create({ data: { merchantId: merchant.id, name: 'Bronze', position: 0, threshold: 0, isDefault: true } });
    await app.db.tier.create({ data: { merchantId: merchant.id, name: 'Silver', position: 1, threshold: 100 } });
    await app.db.referralProgram.create({
      data: { merchantId: merchant.id, referrerPoints: 50, refereeRewardType: 'fixed_discount', refereeRewardRule: { discount_value: 10 } },
    });
    const ada = await newCustomer(app, merchant.id, { email: 'ada@example.com' });
    await recordReferral(app.db, merchant.id, { referrer_code: ada.referralCode, referee_email: 'friend@example.com' });
    // the referrer's own mailbox under a plus-tag: held for review (referral.flagged)
    await recordReferral(app.db, merchant.id, { referrer_code: ada.referralCode, referee_email: 'ada+2@example.com' });
    const friend = await newCustomer(app, merchant.id, { email: 'friend@example.com' });
    await recordOrder(app.db, merchant.id, { order_id: 'o-1', customer_id: friend.platformId, subtotal: 150 });
    expect((await api.rest('POST', `/v1/customers/rewards/redeem?customer_id=${friend.platformId}`, { reward_id: reward.id })).status).toBe(
      201,
    );
    expect(
      (await api.rest('POST', `/v1/customers/transactions?customer_id=${friend.platformId}`, { points: -5, description: 'fix' })).status,
    ).toBe(201);

    const bob = await newCustomer(app, merchant.id);
    const update = `mutation($id: ID!, $input: CustomerPatch!) { update_customer(id: $id, input: $input) { id } }`;
    expect((await admin(update, { id: bob.platformId, input: { first_name: 'Bob', status: 'guest' } })).body.errors).toBeUndefined();
    // the same values again: nothing changed, so no event
    expect((await admin(update, { id: bob.platformId, input: { first_name: 'Bob', status: 'guest' } })).body.errors).toBeUndefined();

    const DAY = 86_400_000;
    const soon = await newCustomer(app, merchant.id, { points: 40 });
    await app.db.customer.update({ where: rowKey(merchant.id, soon.id), data: { lastActivityAt: new Date(Date.now() - 27 * DAY) } });
    await app.db.customer.update({ where: rowKey(merchant.id, ada.id), data: { lastActivityAt: new Date(Date.now() - 31 * DAY) } });
    await remindExpiringPoints(app.db, { days: 7, merchantId: merchant.id });
    await expirePoints(app.db, { merchantId: merchant.id });

    const gone = await newCustomer(app, merchant.id, { customerId: 'grace-1906', email: 'grace@example.com' });
    expect(
      (await admin(`mutation($id: ID!) { erase_customer(id: $id) { erased_now } }`, { id: gone.platformId })).body.errors,
    ).toBeUndefined();
    const ping = await admin(`mutation($id: ID!) { ping_webhook_endpoint(id: $id) { id event_id event_type status } }`, {
      id: endpoint.id,
    });
    expect(ping.body.data.ping_webhook_endpoint).toMatchObject({ event_type: 'webhook.ping', status: 'pending' });

    const written = await app.db.outboxEvent.findMany({ where: { merchantId: merchant.id } });
    await eventually(() => expect(new Set(at('/all').map((r) => r.json.id)).size).toBe(written.length));

    const schemas = await deliverySchemas();
    const types = new Set(at('/all').map((r) => r.json.type));
    expect([...types].sort()).toEqual(Object.keys(schemas).sort());
    for (const r of at('/all')) {
      expect(verified(endpoint.secret, r)).toEqual(r.json);
      expect(verified(`whsec_${Buffer.alloc(24, 7).toString('base64')}`, r)).toBeInstanceOf(Error);
      expect(verifySignature(endpoint.secret, r.body, headersOf(r)['loyalty-signature']!)).toBe(true);
      expect(r.headers['webhook-id']).toBe(r.json.id);
      expect(r.headers['loyalty-event-id']).toBe(r.json.id);
      expect(r.headers['webhook-timestamp']).toBe(headersOf(r)['loyalty-signature']!.match(/^t=(\d+),/)![1]);
      const validate = schemas[r.json.type]!;
      expect(validate(r.json) ? [] : validate.errors).toEqual([]);
      expect((r.json as { version?: number }).version).toBe(1);
    }

    const ofType = (type: string) =>
      at('/all')
        .filter((r) => r.json.type === type)
        .map((r) => r.json.data);
    expect(ofType('customer.updated')).toEqual([
      expect.objectContaining({ id: bob.id, first_name: 'Bob', status: 'guest', changed: ['first_name', 'status'] }),
    ]);
    expect(ofType('customer.erased')).toEqual([{ id: gone.id, erased_at: expect.any(String) }]);
    const erasedBody = at('/all').find((r) => r.json.type === 'customer.erased')!.body;
    expect(erasedBody).not.toMatch(/grace/i);
    expect(ofType('webhook.ping')).toEqual([{ endpoint_id: endpoint.id }]);
  });

  it('raises nothing for an update that changes no profile field, and nothing when points move', async () => {
    const { merchant, admin } = await shop('/quiet');
    const c = await newCustomer(app, merchant.id, { points: 10 });
    await app.db.customer.update({ where: rowKey(merchant.id, c.id), data: { email: c.email, lastActivityAt: new Date() } });
    const same = await admin(`mutation($id: ID!, $input: CustomerPatch!) { update_customer(id: $id, input: $input) { id } }`, {
      id: c.platformId,
      input: { email: c.email },
    });
    expect(same.body.errors).toBeUndefined();
    const types = (await app.db.outboxEvent.findMany({ where: { merchantId: merchant.id } })).map((e) => e.type).sort();
    expect(types).toEqual(['customer.created', 'points.credited']);
  });
});

describe('delivery', () => {
  it('keeps webhook-id across retries; each attempt is signed again with its own timestamp', async () => {
    const { merchant, endpoint } = await shop('/flaky');
    let refused = 0;
    receiver.state.answer = (r) => {
      if (r.path !== '/flaky' || refused >= 1) return 200;
      refused++;
      return 500;
    };
    await newCustomer(app, merchant.id);
    await eventually(() => expect(at('/flaky')).toHaveLength(1));
    receiver.state.answer = () => 200;
    const attempts = receiver.requests.filter((r) => r.path === '/flaky');
    expect(attempts.map((r) => r.status)).toEqual([500, 200]);
    expect(new Set(attempts.map((r) => r.headers['webhook-id']))).toEqual(new Set([attempts[0]!.json.id]));
    for (const r of attempts) expect(verified(endpoint.secret, r)).toEqual(r.json);
  });

  it('a 410 Gone disables the endpoint at once, saying so', async () => {
    const { merchant, admin } = await shop('/gone');
    receiver.state.answer = (r) => (r.path === '/gone' ? 410 : 200);
    await newCustomer(app, merchant.id);
    const state = await eventually(async () => {
      const res = await admin(
        `{ webhook_endpoints { enabled disabled_reason } webhook_deliveries { data { status attempts last_status } } }`,
      );
      // both in one poll: the two fields are read by two statements, either side of the attempt's commit
      expect(res.body.data.webhook_endpoints[0].enabled).toBe(false);
      expect(res.body.data.webhook_deliveries.data).toEqual([{ status: 'failed', attempts: 1, last_status: 410 }]);
      return res.body.data;
    });
    receiver.state.answer = () => 200;
    expect(state.webhook_endpoints[0].disabled_reason).toMatch(/410 Gone/);
  });

  /** The first attempt to `path` answered with `answer`; then 200. Returns the delivery after its first attempt. */
  async function answeredOnce(path: string, status: number, retryAfter: string) {
    const { merchant } = await shop(path);
    let answered = false;
    receiver.state.answer = (r) => {
      if (r.path !== path || answered) return 200;
      answered = true;
      return { status, headers: { 'Retry-After': retryAfter } };
    };
    await newCustomer(app, merchant.id);
    const delivery = await eventually(async () => {
      const d = await app.db.webhookDelivery.findFirstOrThrow({ where: { merchantId: merchant.id } });
      expect(d.retryAt).not.toBeNull();
      expect(d.jobId).not.toBeNull(); // queued again by the dispatcher
      return d;
    });
    const [job] = await app.db.$queryRawUnsafe<{ start_after: Date }[]>(
      `SELECT start_after FROM pgboss.job WHERE id = $1::uuid`,
      delivery.jobId,
    );
    return { merchant, delivery, job: job! };
  }

  it('honours Retry-After in seconds on a 503: the next attempt starts then', async () => {
    const { merchant, delivery, job } = await answeredOnce('/busy', 503, '3');
    expect(delivery.retryAt!.getTime() - delivery.lastAttemptAt!.getTime()).toBe(3000);
    expect(job.start_after.getTime()).toBe(delivery.retryAt!.getTime());
    await eventually(() => expect(at('/busy')).toHaveLength(1));
    receiver.state.answer = () => 200;
    const [first, second] = receiver.requests.filter((r) => r.path === '/busy');
    expect(first!.status).toBe(503);
    expect(second!.at.getTime()).toBeGreaterThanOrEqual(delivery.retryAt!.getTime());
    // the receiver has the request before the service has its answer: the row is written after
    await eventually(async () => {
      expect(receiver.requests.filter((r) => r.path === '/busy').map((r) => r.status)).toEqual([503, 200]);
      expect(await app.db.webhookDelivery.findFirstOrThrow({ where: { merchantId: merchant.id } })).toMatchObject({
        status: 'succeeded',
        attempts: 2,
        retryAt: null,
      });
    });
  });

  it('honours Retry-After as an HTTP date on a 429, and caps a long one at an hour', async () => {
    const date = new Date(Math.ceil(Date.now() / 1000) * 1000 + 4000);
    const dated = await answeredOnce('/limited', 429, date.toUTCString());
    expect(dated.delivery.retryAt!.getTime()).toBe(date.getTime());
    await eventually(() => expect(at('/limited')).toHaveLength(1));

    const capped = await answeredOnce('/later', 503, '999999');
    receiver.state.answer = () => 200;
    expect(capped.delivery.retryAt!.getTime() - capped.delivery.lastAttemptAt!.getTime()).toBe(RETRY_AFTER_MAX_SECONDS * 1000);
    expect(capped.job.start_after.getTime()).toBe(capped.delivery.retryAt!.getTime());
  });
});

describe('secret rotation', () => {
  const ROTATE = `mutation($id: ID!, $hours: Int) { rotate_webhook_secret(id: $id, overlap_hours: $hours) { secret ${ENDPOINT} } }`;

  it('signs with both secrets during the overlap, then with the new one only; audited without the secrets', async () => {
    const { merchant, admin, endpoint } = await shop('/rotated');
    const rotated = await admin(ROTATE, { id: endpoint.id });
    expect(rotated.body.errors).toBeUndefined();
    const now = rotated.body.data.rotate_webhook_secret as { secret: string; previous_secret_expires_at: string };
    expect(now.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(now.secret).not.toBe(endpoint.secret);
    const hours = (Date.parse(now.previous_secret_expires_at) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);

    await newCustomer(app, merchant.id);
    await eventually(() => expect(at('/rotated')).toHaveLength(1));
    const during = at('/rotated')[0]!;
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verified(now.secret, during)).toEqual(during.json);
    expect(verified(endpoint.secret, during)).toEqual(during.json);
    expect(verifySignature(now.secret, during.body, headersOf(during)['loyalty-signature']!)).toBe(true);
    expect(verifySignature(endpoint.secret, during.body, headersOf(during)['loyalty-signature']!)).toBe(true);

    // the overlap ends
    await app.db.webhookEndpoint.update({
      where: rowKey(merchant.id, endpoint.id),
      data: { previousSecretExpiresAt: new Date(Date.now() - 1000) },
    });
    await newCustomer(app, merchant.id);
    await eventually(() => expect(at('/rotated')).toHaveLength(2));
    const after = at('/rotated')[1]!;
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verified(now.secret, after)).toEqual(after.json);
    expect(verified(endpoint.secret, after)).toBeInstanceOf(Error);
    expect(verifySignature(endpoint.secret, after.body, headersOf(after)['loyalty-signature']!)).toBe(false);
    const listed = await admin(`{ webhook_endpoints { previous_secret_expires_at } }`);
    expect(listed.body.data.webhook_endpoints).toEqual([{ previous_secret_expires_at: null }]);

    const audit = await admin(
      `{ audit_log(action: "rotate_webhook_secret") { data { actor resource_type resource_id args before after } } }`,
    );
    const [entry] = audit.body.data.audit_log.data;
    expect(entry).toMatchObject({ resource_type: 'WebhookEndpoint', resource_id: endpoint.id });
    expect(JSON.stringify(entry)).not.toContain(endpoint.secret.slice(6));
    expect(JSON.stringify(entry)).not.toContain(now.secret.slice(6));
  });

  it('overlap_hours 0 stops the old secret at once; out of bounds changes nothing', async () => {
    const { merchant, admin, endpoint } = await shop('/rotated-now');
    for (const hours of [-1, 169]) {
      const refused = await admin(ROTATE, { id: endpoint.id, hours });
      expect(refused.body.errors?.[0]?.extensions.code).toBe('validation_error');
    }
    const missing = await admin(ROTATE, { id: '00000000-0000-4000-8000-000000000000' });
    expect(missing.body.errors?.[0]?.extensions.code).toBe('not_found');
    const rotated = (await admin(ROTATE, { id: endpoint.id, hours: 0 })).body.data.rotate_webhook_secret;
    expect(rotated.previous_secret_expires_at).toBeNull();
    await newCustomer(app, merchant.id);
    await eventually(() => expect(at('/rotated-now')).toHaveLength(1));
    expect(verified(rotated.secret, at('/rotated-now')[0]!)).toEqual(at('/rotated-now')[0]!.json);
    expect(verified(endpoint.secret, at('/rotated-now')[0]!)).toBeInstanceOf(Error);
  });

  it('an endpoint made before standard secrets (base64url) is signed with the bytes its secret encodes', async () => {
    const { merchant, endpoint } = await shop('/legacy');
    const legacy = 'whsec_-_-_abcdefghijklmnopqrstuvwxyz_-'; // base64url: 24 bytes, with the two characters base64 lacks
    await app.db.webhookEndpoint.update({ where: rowKey(merchant.id, endpoint.id), data: { secret: legacy } });
    await newCustomer(app, merchant.id);
    await eventually(() => expect(at('/legacy')).toHaveLength(1));
    const r = at('/legacy')[0]!;
    // what docs/webhooks.md tells such a receiver: the part after whsec_ in standard base64
    const standard = `whsec_${legacy.slice(6).replaceAll('-', '+').replaceAll('_', '/')}`;
    expect(verified(standard, r)).toEqual(r.json);
    expect(verifySignature(legacy, r.body, headersOf(r)['loyalty-signature']!)).toBe(true);
  });
});

describe('ping', () => {
  it('reaches an endpoint whatever its event types; refused for a disabled or unknown endpoint', async () => {
    const { admin, endpoint } = await shop('/pinged', ['points.debited']);
    const PING = `mutation($id: ID!) { ping_webhook_endpoint(id: $id) { id event_id event_type status } }`;
    const ping = (await admin(PING, { id: endpoint.id })).body.data.ping_webhook_endpoint;
    await eventually(() => expect(at('/pinged')).toHaveLength(1));
    const r = at('/pinged')[0]!;
    expect(r.json).toMatchObject({ id: ping.event_id, type: 'webhook.ping', version: 1, data: { endpoint_id: endpoint.id } });
    expect(r.headers['loyalty-delivery-id']).toBe(ping.id);
    // the receiver answers before the worker records its answer
    await eventually(async () => {
      const delivered = await admin(`{ webhook_deliveries { data { id status event_type } } }`);
      expect(delivered.body.data.webhook_deliveries.data).toEqual([{ id: ping.id, status: 'succeeded', event_type: 'webhook.ping' }]);
    });

    // the ping type cannot be subscribed to: it is only sent when asked for
    const subscribe = await admin(`mutation($id: ID!) { update_webhook_endpoint(id: $id, event_types: ["webhook.ping"]) { id } }`, {
      id: endpoint.id,
    });
    expect(subscribe.body.errors?.[0]?.extensions.code).toBe('validation_error');
    await admin(`mutation($id: ID!) { update_webhook_endpoint(id: $id, enabled: false) { id } }`, { id: endpoint.id });
    expect((await admin(PING, { id: endpoint.id })).body.errors?.[0]?.extensions.code).toBe('validation_error');
    expect((await admin(PING, { id: 'nope' })).body.errors?.[0]?.extensions.code).toBe('not_found');
  });
});
