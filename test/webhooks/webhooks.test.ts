// Webhooks, black-box: endpoints registered through the admin API, changes made
// through REST and the admin API, events received by a node:http server on 127.0.0.1 from the
// job workers (pg-boss over the same database), every signature verified.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordOrder } from '../../src/domain/events/orders.js';
import { expirePoints, remindExpiringPoints } from '../../src/domain/ledger/expiry.js';
import { applyPoints } from '../../src/domain/ledger/ledger.js';
import { recordReferral } from '../../src/domain/referrals/referrals.js';
import { rowKey } from '../../src/domain/shared/keys.js';
import { dispatchOutbox, pruneEvents } from '../../src/domain/webhooks/deliveries.js';
import { verifySignature } from '../../src/domain/webhooks/signature.js';
import type { JobsRuntime } from '../../src/jobs/queue.js';
import { adminClient, client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';
import { eventually, type Received, startReceiver, workers } from './receiver.js';

let app: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let jobs: JobsRuntime | undefined;

beforeAll(async () => {
  // the app's configuration (testConfig reads the environment)
  process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'true';
  process.env.METRICS_TOKEN = 'metrics-token-for-tests';
  // a pass's totals, and which worker holds a delivery, are this file's alone on a database of its own
  app = await testApp({ ownDatabase: true });
  receiver = await startReceiver();
  jobs = await workers(app);
});

afterAll(async () => {
  await jobs?.stop();
  await receiver.close();
});

const CREATE = `mutation($url: String!, $types: [String!]) {
  create_webhook_endpoint(url: $url, event_types: $types) { id url secret enabled event_types }
}`;

/** A merchant with a purchase rule (1 point per 1), a 100-point reward, keys and an endpoint on the receiver. */
async function shop(path: string, types?: string[]) {
  const merchant = await newMerchant(app, 'hooks');
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
  const admin = adminClient(app, merchant.admin_token);
  const created = await admin(CREATE, { url: receiver.url(path), types });
  expect(created.body.errors).toBeUndefined();
  const endpoint = created.body.data.create_webhook_endpoint as { id: string; secret: string };
  expect(endpoint.secret).toMatch(/^whsec_/);
  return { merchant, reward, admin, endpoint, api: client(app, await newKey(app, merchant.id)) };
}

const at = (path: string) => receiver.received.filter((r) => r.path === path);
const ofCustomer = (list: Received[], id: string) =>
  list.filter((r) => r.json.data.customer?.id === id || (r.json.type === 'customer.created' && r.json.data.id === id));

/** What a consumer would do: the balance from points.credited / points.debited alone. */
function rebuiltBalance(list: Received[], customerId: string) {
  const seen = new Set<string>();
  let balance = 0;
  for (const r of list) {
    if (seen.has(r.json.id)) continue; // at-least-once: a consumer dedupes on the event id
    seen.add(r.json.id);
    if ((r.json.type === 'points.credited' || r.json.type === 'points.debited') && r.json.data.customer.id === customerId) {
      balance += r.json.data.points;
    }
  }
  return balance;
}

/** A tenant row's key. */

async function dbEvents(merchantId: string) {
  return app.db.outboxEvent.findMany({ where: { merchantId }, orderBy: { createdAt: 'asc' } });
}

describe('events from orders, refunds, redemptions and manual changes', () => {
  it('are delivered signed, and rebuild every balance', async () => {
    const { merchant, reward, admin, endpoint, api } = await shop('/main');
    const customers = [await newCustomer(app, merchant.id), await newCustomer(app, merchant.id)];
    for (const [i, c] of customers.entries()) {
      const order = await admin(`mutation($input: OrderEventInput!) { record_order(input: $input) { points_awarded } }`, {
        input: { order_id: `#${i}-1`, customer_id: c.platformId, subtotal: 250 },
      });
      expect(order.body.data.record_order.points_awarded).toBe(250);
      expect(
        (await api.rest('POST', `/v1/customers/transactions?customer_id=${c.platformId}`, { points: 30, description: 'goodwill' })).status,
      ).toBe(201);
      expect((await api.rest('POST', `/v1/customers/rewards/redeem?customer_id=${c.platformId}`, { reward_id: reward.id })).status).toBe(
        201,
      );
      const refund = await admin(`mutation($input: RefundEventInput!) { refund_order(input: $input) { points_clawed_back } }`, {
        input: { order_id: `#${i}-1`, amount: 100 },
      });
      expect(refund.body.data.refund_order.points_clawed_back).toBe(100);
      expect(
        (await api.rest('POST', `/v1/customers/transactions?customer_id=${c.platformId}`, { points: -5, description: 'fix' })).status,
      ).toBe(201);
    }
    const written = await dbEvents(merchant.id);
    // per customer: created, order credit, manual credit, redemption debit + reward.redeemed, refund debit, manual debit
    expect(written.length).toBe(2 * 7);
    await eventually(() => expect(new Set(at('/main').map((r) => r.json.id)).size).toBe(written.length));

    for (const r of at('/main')) {
      expect(r.headers['content-type']).toBe('application/json');
      expect(verifySignature(endpoint.secret, r.body, String(r.headers['loyalty-signature']))).toBe(true);
      expect(verifySignature('whsec_wrong', r.body, String(r.headers['loyalty-signature']))).toBe(false);
      expect(r.headers['loyalty-event-id']).toBe(r.json.id);
      expect(r.json.merchant_id).toBe(merchant.id);
      // the body is the event's stored body, byte for byte
      expect(r.body).toBe(written.find((e) => e.id === r.json.id)!.body);
    }
    for (const c of customers) {
      const mine = ofCustomer(at('/main'), c.id);
      expect(mine.map((r) => r.json.type).sort()).toEqual(
        [
          'customer.created',
          'points.credited',
          'points.credited',
          'points.debited',
          'points.debited',
          'points.debited',
          'reward.redeemed',
        ].sort(),
      );
      const balance = (await api.rest('GET', `/v1/customers/balance?customer_id=${c.platformId}`)).body.data.points_balance;
      expect(balance).toBe(250 + 30 - 100 - 100 - 5);
      expect(rebuiltBalance(at('/main'), c.id)).toBe(balance);
      const redeemed = mine.find((r) => r.json.type === 'reward.redeemed')!.json.data;
      expect(redeemed).toMatchObject({
        reward: { id: reward.id, name: '$5 off', reward_type: 'fixed_discount' },
        points_spent: 100,
        status: 'issued',
      });
      const credit = mine.find((r) => r.json.type === 'points.credited' && r.json.data.source === 'earning_rule')!.json.data;
      expect(credit).toMatchObject({
        points: 250,
        type: 'credit',
        balance_after: 250,
        customer: { id: c.id, customer_id: c.platformId, email: c.email },
      });
    }
    // each recorded succeeded once the worker has its answer, a moment after the receiver
    await eventually(async () => {
      const deliveries = await admin(
        `{ webhook_deliveries(per_page: 100) { data { status attempts last_status event_type } meta { pagination { total } } } }`,
      );
      expect(deliveries.body.data.webhook_deliveries.meta.pagination.total).toBe(written.length);
      for (const d of deliveries.body.data.webhook_deliveries.data)
        expect(d).toMatchObject({ status: 'succeeded', attempts: 1, last_status: 200 });
    });
  });

  it('only the subscribed types reach an endpoint', async () => {
    const { merchant, api } = await shop('/debits-only', ['points.debited']);
    const c = await newCustomer(app, merchant.id, { points: 50 });
    await api.rest('POST', `/v1/customers/transactions?customer_id=${c.platformId}`, { points: -20, description: 'x' });
    await eventually(() => expect(at('/debits-only')).toHaveLength(1));
    await new Promise((r) => setTimeout(r, 500));
    expect(at('/debits-only').map((r) => r.json.type)).toEqual(['points.debited']);
  });
});

describe('tiers and referrals', () => {
  it('a tier change sends tier.changed, a completed referral referral.completed and the referrer credit', async () => {
    const { merchant } = await shop('/program');
    const bronze = await app.db.tier.create({
      data: { merchantId: merchant.id, name: 'Bronze', position: 0, threshold: 0, isDefault: true },
    });
    const silver = await app.db.tier.create({ data: { merchantId: merchant.id, name: 'Silver', position: 1, threshold: 100 } });
    await app.db.referralProgram.create({
      data: {
        merchantId: merchant.id,
        referrerPoints: 500,
        refereeRewardType: 'fixed_discount',
        refereeRewardRule: { discount_value: 10 },
      },
    });
    const referrer = await newCustomer(app, merchant.id);
    const referral = await recordReferral(app.db, merchant.id, {
      referrer_code: referrer.referralCode,
      referee_email: 'friend@example.com',
    });
    const friend = await newCustomer(app, merchant.id, { email: 'friend@example.com' });
    await recordOrder(app.db, merchant.id, { order_id: 'f-1', customer_id: friend.platformId, subtotal: 150 });
    const events = await dbEvents(merchant.id);
    const completed = events.filter((e) => e.type === 'referral.completed');
    expect(completed.map((e) => e.payload)).toEqual([
      expect.objectContaining({
        id: referral.id,
        referrer_points: 500,
        order_id: 'f-1',
        referee: expect.objectContaining({ id: friend.id }),
      }),
    ]);
    expect(events.filter((e) => e.type === 'points.credited' && (e.payload as any).source === 'referral')).toHaveLength(1);
    const silverFor = (id: string) =>
      events.find((e) => e.type === 'tier.changed' && (e.payload as any).customer.id === id && (e.payload as any).tier.id === silver.id);
    expect(silverFor(friend.id)?.payload).toMatchObject({ tier: { id: silver.id, name: 'Silver' }, source: 'earned' });
    expect(silverFor(referrer.id)).toBeTruthy();
    expect(bronze.id).toBeTruthy();
    await eventually(() => expect(new Set(at('/program').map((r) => r.json.id)).size).toBe(events.length));
    expect(rebuiltBalance(at('/program'), referrer.id)).toBe(500);
  });
});

describe('the outbox', () => {
  it('writes no event for a change that rolled back or was refused', async () => {
    const merchant = await newMerchant(app, 'rollback');
    const c = await newCustomer(app, merchant.id, { points: 10 });
    const before = (await dbEvents(merchant.id)).length;
    const api = client(app, await newKey(app, merchant.id));
    expect(
      (await api.rest('POST', `/v1/customers/transactions?customer_id=${c.platformId}`, { points: -11, description: 'x' })).status,
    ).toBe(422);
    await expect(
      app.db.$transaction(async (tx) => {
        await applyPoints(tx as never, {
          merchantId: merchant.id,
          customerId: c.id,
          points: 5,
          description: 'x',
          source: 'manual',
          activityType: 'adjustment',
        });
        expect(await tx.outboxEvent.count({ where: { merchantId: merchant.id } })).toBe(before + 1); // written with the change...
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await app.db.outboxEvent.count({ where: { merchantId: merchant.id } })).toBe(before); // ...and gone with it
    expect((await app.db.customer.findUniqueOrThrow({ where: rowKey(merchant.id, c.id) })).pointsBalance).toBe(10);
  });

  it('forgets dispatched events after the retention period, never one with a pending delivery', async () => {
    const { merchant } = await shop('/prune');
    await newCustomer(app, merchant.id);
    await eventually(async () =>
      expect(await app.db.webhookDelivery.count({ where: { merchantId: merchant.id, status: 'succeeded' } })).toBe(1),
    );
    const later = new Date(Date.now() + 31 * 86_400_000);
    await app.db.webhookDelivery.updateMany({ where: { merchantId: merchant.id }, data: { status: 'pending' } });
    await pruneEvents(app.db, 30, later);
    expect(await app.db.outboxEvent.count({ where: { merchantId: merchant.id } })).toBe(1);
    await app.db.webhookDelivery.updateMany({ where: { merchantId: merchant.id }, data: { status: 'succeeded' } });
    await pruneEvents(app.db, 30, new Date());
    expect(await app.db.outboxEvent.count({ where: { merchantId: merchant.id } })).toBe(1);
    await pruneEvents(app.db, 30, later);
    expect(await app.db.outboxEvent.count({ where: { merchantId: merchant.id } })).toBe(0);
    expect(await app.db.webhookDelivery.count({ where: { merchantId: merchant.id } })).toBe(0);
  });

  it('prunes merchant by merchant: every statement on events names one merchant (a sharded cluster runs it on one shard)', async () => {
    const a = (await shop('/prune-a')).merchant;
    const b = (await shop('/prune-b')).merchant;
    for (const m of [a, b]) await newCustomer(app, m.id);
    await eventually(async () =>
      expect(await app.db.webhookDelivery.count({ where: { merchantId: { in: [a.id, b.id] }, status: 'succeeded' } })).toBe(2),
    );
    // every statement the prune sends, as the database receives it
    const statements: { sql: string; values: unknown[] }[] = [];
    const recording = app.db.$extends({
      query: {
        async $allOperations({ model, operation, args, query }) {
          // a raw statement's arguments are its Prisma.Sql: the text around the values, and the values
          const raw = args as { strings?: string[]; values?: unknown[] };
          if (!model && raw.strings) statements.push({ sql: raw.strings.join('?'), values: raw.values ?? [] });
          else statements.push({ sql: `${model} ${operation} ${JSON.stringify(args)}`, values: [] });
          return query(args);
        },
      },
    }) as unknown as typeof app.db;
    await pruneEvents(recording, 30, new Date(Date.now() + 31 * 86_400_000));
    expect(await app.db.outboxEvent.count({ where: { merchantId: { in: [a.id, b.id] } } })).toBe(0);
    const onEvents = statements.filter((s) => /\bevents\b/i.test(s.sql));
    expect(onEvents.flatMap((s) => s.values)).toEqual(expect.arrayContaining([a.id, b.id]));
    for (const s of onEvents) {
      expect(s.sql, s.sql).toMatch(/merchant_id = \?::uuid/);
      expect(s.values.filter((v) => typeof v === 'string' && /^[0-9a-f-]{36}$/.test(v))).toHaveLength(1);
    }
  });

  it('keeps every event body as written', async () => {
    const merchant = await newMerchant(app, 'immutable');
    await newCustomer(app, merchant.id);
    const [event] = await dbEvents(merchant.id);
    await expect(app.db.outboxEvent.update({ where: rowKey(merchant.id, event!.id), data: { body: '{}' } })).rejects.toThrow();
  });

  it('expiry writes points.expired, and points.expiring is sent once per expiry date', async () => {
    const merchant = await newMerchant(app, 'expiry');
    await app.db.merchant.update({ where: { id: merchant.id }, data: { pointsExpiryDays: 30 } });
    const soon = await newCustomer(app, merchant.id, { points: 40 });
    const gone = await newCustomer(app, merchant.id, { points: 70 });
    const DAY = 86_400_000;
    await app.db.customer.update({ where: rowKey(merchant.id, soon.id), data: { lastActivityAt: new Date(Date.now() - 27 * DAY) } });
    await app.db.customer.update({ where: rowKey(merchant.id, gone.id), data: { lastActivityAt: new Date(Date.now() - 31 * DAY) } });
    await remindExpiringPoints(app.db, { days: 7, merchantId: merchant.id });
    await remindExpiringPoints(app.db, { days: 7, merchantId: merchant.id });
    await expirePoints(app.db, { merchantId: merchant.id });
    const events = await dbEvents(merchant.id);
    const expiring = events.filter((e) => e.type === 'points.expiring');
    expect(expiring.map((e) => (e.payload as any).customer.id)).toEqual([soon.id]);
    expect(expiring[0]!.payload).toMatchObject({ points: 40, expires_at: expect.stringMatching(/Z$/) });
    const expired = events.filter((e) => e.type === 'points.expired');
    expect(expired.map((e) => e.payload)).toEqual([
      expect.objectContaining({ customer: expect.objectContaining({ id: gone.id }), points: 70, balance_after: 0 }),
    ]);
    expect(events.filter((e) => e.type === 'points.debited' && (e.payload as any).source === 'expiry')).toHaveLength(1);
  });
});

describe('delivery', () => {
  it('retries while the receiver fails, and every event arrives once it recovers', async () => {
    const { merchant, api, admin } = await shop('/flaky');
    // down for its first 2 requests
    let refused = 0;
    receiver.state.answer = (r) => {
      if (r.path !== '/flaky' || refused >= 2) return 200;
      refused++;
      return 503;
    };
    const c = await newCustomer(app, merchant.id);
    for (let i = 1; i <= 3; i++)
      await api.rest('POST', `/v1/customers/transactions?customer_id=${c.platformId}`, { points: i * 10, description: `#${i}` });
    const written = await dbEvents(merchant.id);
    await eventually(() => expect(new Set(at('/flaky').map((r) => r.json.id))).toEqual(new Set(written.map((e) => e.id))));
    receiver.state.answer = () => 200;
    expect(refused).toBe(2);
    expect(rebuiltBalance(at('/flaky'), c.id)).toBe(60);
    // a delivery is recorded succeeded once the worker has its answer, a moment after the receiver
    await eventually(async () => {
      const list = await admin(
        `{ webhook_deliveries(status: succeeded) { data { attempts last_status } } webhook_endpoints { enabled failing_since } }`,
      );
      expect(list.body.data.webhook_deliveries.data.some((d: { attempts: number }) => d.attempts > 1)).toBe(true);
      expect(list.body.data.webhook_endpoints[0]).toEqual({ enabled: true, failing_since: null });
    });
  });

  it('disables an endpoint failing for the whole retry window, saying why, and marks its deliveries failed', async () => {
    const { merchant, api, admin } = await shop('/dead');
    receiver.state.answer = (r) => (r.path === '/dead' ? 500 : 200);
    const c = await newCustomer(app, merchant.id);
    await api.rest('POST', `/v1/customers/transactions?customer_id=${c.platformId}`, { points: 10, description: 'x' });
    const endpoint = await eventually(async () => {
      const res = await admin(
        `{ webhook_endpoints { enabled disabled_reason failing_since } webhook_deliveries { data { status attempts last_status last_response } } }`,
      );
      expect(res.body.data.webhook_endpoints[0].enabled).toBe(false);
      return res.body.data;
    }, 30_000);
    receiver.state.answer = () => 200;
    expect(endpoint.webhook_endpoints[0].disabled_reason).toMatch(/failing since .*HTTP 500/);
    expect(endpoint.webhook_deliveries.data).toContainEqual(
      expect.objectContaining({ status: 'failed', last_status: 500, last_response: 'receiver is down' }),
    );
  });

  it('redelivers one delivery with the same event id and the same body', async () => {
    const { merchant, admin } = await shop('/again');
    await newCustomer(app, merchant.id);
    await eventually(() => expect(at('/again')).toHaveLength(1));
    const { data } = (await admin(`{ webhook_deliveries { data { id status } } }`)).body.data.webhook_deliveries;
    const again = await admin(`mutation($id: ID!) { redeliver_webhook(delivery_id: $id) { id status } }`, { id: data[0].id });
    expect(again.body.data.redeliver_webhook).toEqual({ id: data[0].id, status: 'pending' });
    await eventually(() => expect(at('/again')).toHaveLength(2));
    const [first, second] = at('/again');
    expect(second!.json.id).toBe(first!.json.id);
    expect(second!.body).toBe(first!.body);
    const unknown = await admin(`mutation { redeliver_webhook(delivery_id: "${randomUUID()}") { id } }`);
    expect(unknown.body.errors?.[0]?.extensions?.code).toBe('not_found');
    const notAnId = await admin(`mutation { redeliver_webhook(delivery_id: "not-a-uuid") { id } }`);
    expect(notAnId.body.errors?.[0]?.extensions?.code).toBe('not_found');
  });

  it('a graceful stop lets a running delivery finish', async () => {
    const { merchant } = await shop('/slow');
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    let arrived: () => void = () => {};
    const posted = new Promise<void>((r) => (arrived = r));
    const { createServer } = await import('node:http');
    // the endpoint answers only when released, while the workers are being stopped
    const slow = createServer((req, res) => {
      req.resume();
      arrived();
      void held.then(() => res.writeHead(200).end('ok'));
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const port = (slow.address() as { port: number }).port;
    try {
      await app.db.webhookEndpoint.updateMany({ where: { merchantId: merchant.id }, data: { url: `http://127.0.0.1:${port}/` } });
      await newCustomer(app, merchant.id);
      // running: the post has reached the endpoint (a job marked active in the table may
      // still be on its way to a worker)
      await posted;
      const stopping = jobs!.stop();
      setTimeout(release, 700);
      await stopping;
      // finished before stop() returned
      const delivery = await app.db.webhookDelivery.findFirstOrThrow({ where: { merchantId: merchant.id } });
      expect(delivery).toMatchObject({ status: 'succeeded', attempts: 1 });
    } finally {
      release();
      await jobs!.stop();
      jobs = await workers(app);
      slow.close();
    }
  });

  it("runs the registry's scheduled jobs through the queue, and counts jobs and deliveries in /metrics", async () => {
    const schedules = (await jobs!.boss.getSchedules()).map((s) => [s.name, s.cron]);
    expect(schedules).toEqual(
      expect.arrayContaining([
        ['points-expiry', '0 3 * * *'],
        ['points-expiring-reminders', '0 3 * * *'],
        ['webhook-events-prune', '30 4 * * *'],
      ]),
    );
    const merchant = await newMerchant(app, 'cron');
    await app.db.merchant.update({ where: { id: merchant.id }, data: { pointsExpiryDays: 1 } });
    const c = await newCustomer(app, merchant.id, { points: 9 });
    await app.db.customer.update({ where: rowKey(merchant.id, c.id), data: { lastActivityAt: new Date(Date.now() - 2 * 86_400_000) } });
    await jobs!.boss.send('points-expiry', {});
    await eventually(async () =>
      expect((await app.db.customer.findUniqueOrThrow({ where: rowKey(merchant.id, c.id) })).pointsBalance).toBe(0),
    );
    // a job waiting for an hour
    await jobs!.boss.send('webhook-delivery', { delivery_id: randomUUID() }, { startAfter: 3600 });
    const res = await app.fetch('/metrics', { headers: { authorization: 'Bearer metrics-token-for-tests' } });
    const text = await res.text();
    expect(text).toMatch(/loyalty_webhook_deliveries_total\{outcome="succeeded"\} [1-9]/);
    expect(text).toMatch(/loyalty_webhook_deliveries_total\{outcome="retry"\} [1-9]/);
    expect(text).toMatch(/loyalty_jobs\{queue="webhook-delivery",state="created"\} [1-9]/);
  });

  it('loses nothing when the workers stop without flushing between the changes and their delivery', async () => {
    const { merchant, api } = await shop('/crash');
    await jobs!.stop({ graceful: false });
    jobs = undefined;
    const c = await newCustomer(app, merchant.id);
    for (let i = 1; i <= 5; i++)
      await api.rest('POST', `/v1/customers/transactions?customer_id=${c.platformId}`, { points: i, description: `#${i}` });
    // a worker dies right after dispatching: the events are marked dispatched and their jobs queued
    const dying = await workers(app);
    await dying.dispatch();
    await dying.stop({ graceful: false });
    expect(await app.db.outboxEvent.count({ where: { merchantId: merchant.id, dispatchedAt: null } })).toBe(0);
    jobs = await workers(app);
    const written = await dbEvents(merchant.id);
    expect(written).toHaveLength(6);
    // a job a dying worker had fetched comes back once pg-boss expires it (the post's timeout + 10 s)
    await eventually(() => expect(new Set(at('/crash').map((r) => r.json.id))).toEqual(new Set(written.map((e) => e.id))), 45_000);
    expect(rebuiltBalance(at('/crash'), c.id)).toBe(15);
  });
});

describe('the dispatcher', () => {
  const undispatched = (merchantId: string) => app.db.outboxEvent.count({ where: { merchantId, dispatchedAt: null } });

  beforeAll(async () => {
    await jobs?.stop();
    // workers whose loop passes once as they start, then waits a minute (the most allowed): the tests run their passes
    jobs = await workers(app, { WEBHOOK_DISPATCH_INTERVAL_MS: '60000' });
    await jobs.dispatch();
  });

  afterAll(async () => {
    await jobs?.stop();
    jobs = await workers(app);
  });

  it("serves every waiting merchant in each pass: one merchant's backlog holds back no other", async () => {
    // the backlog's credits need dispatching, not delivering: its endpoint takes debits only
    const big = await shop('/backlog', ['points.debited']);
    const customers = await Promise.all([1, 2, 3, 4, 5].map(() => newCustomer(app, big.merchant.id)));
    const credit = (api: typeof big.api, customerId: string, points: number) =>
      api.rest('POST', `/v1/customers/transactions?customer_id=${customerId}`, { points, description: `${points}` });
    await Promise.all(
      customers.map(async (c) => {
        for (let i = 1; i <= 41; i++) expect((await credit(big.api, c.platformId, i)).status).toBe(201);
      }),
    );
    expect((await credit(big.api, customers[0]!.platformId, -1)).status).toBe(201);
    const backlog = await dbEvents(big.merchant.id);
    expect(backlog).toHaveLength(5 + 5 * 41 + 1);
    // two merchants whose events are all newer than the backlog
    const small = [await shop('/small-1'), await shop('/small-2')];
    for (const s of small) {
      const c = await newCustomer(app, s.merchant.id);
      for (const points of [10, 20]) expect((await credit(s.api, c.platformId, points)).status).toBe(201);
    }

    const first = await jobs!.dispatch();
    // the backlog's first batch (200), and every event of the others
    expect(first).toMatchObject({ events: 200 + 2 * 3, queued: 2 * 3, more: true });
    expect(await undispatched(big.merchant.id)).toBe(backlog.length - 200);
    for (const s of small) expect(await undispatched(s.merchant.id)).toBe(0);
    while ((await jobs!.dispatch()).more);
    expect(await undispatched(big.merchant.id)).toBe(0);

    for (const [i, s] of small.entries()) {
      const written = await dbEvents(s.merchant.id);
      await eventually(() => expect(new Set(at(`/small-${i + 1}`).map((r) => r.json.id))).toEqual(new Set(written.map((e) => e.id))));
      expect(at(`/small-${i + 1}`).every((r) => r.json.merchant_id === s.merchant.id)).toBe(true);
    }
    await eventually(() => expect(at('/backlog').map((r) => r.json.id)).toEqual([backlog.at(-1)!.id]));
  });

  // (on PostgreSQL: the embedded database runs one transaction at a time)
  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'a pass skips the events another pass holds, which that pass fans out: none lost, none doubled',
    async () => {
      const { merchant } = await shop('/held');
      await jobs!.dispatch(); // nothing else waiting: the passes below see this merchant's events alone
      for (let i = 0; i < 3; i++) await newCustomer(app, merchant.id);
      const [holder, other] = [new pg.Client({ connectionString: app.url }), new pg.Client({ connectionString: app.url })];
      await Promise.all([holder.connect(), other.connect()]);
      try {
        // the first pass stops inside its transaction, as another instance's pass may be
        let release: () => void = () => {};
        let reached: () => void = () => {};
        const [held, inside] = [new Promise<void>((r) => (release = r)), new Promise<void>((r) => (reached = r))];
        const first = dispatchOutbox(holder, async (list) => {
          if (!list.some((j) => j.merchantId === merchant.id)) return;
          reached();
          await held;
        });
        await inside;
        // meanwhile: nothing of this merchant's to take, and nothing written that could be seen
        expect(await dispatchOutbox(other, async () => {})).toMatchObject({ events: 0, queued: 0 });
        expect(await app.db.webhookDelivery.count({ where: { merchantId: merchant.id } })).toBe(0);
        release();
        expect(await first).toMatchObject({ events: 3, queued: 3 });
      } finally {
        await Promise.all([holder.end(), other.end()]);
      }
      const deliveries = await app.db.webhookDelivery.findMany({ where: { merchantId: merchant.id } });
      expect(new Set(deliveries.map((d) => d.eventId))).toEqual(new Set((await dbEvents(merchant.id)).map((e) => e.id)));
      expect(deliveries).toHaveLength(3);
      // the jobs this pass queued went nowhere (the test's enqueue): queued again, they are delivered once each
      await app.db.webhookDelivery.updateMany({ where: { merchantId: merchant.id }, data: { jobId: null } });
      await jobs!.dispatch();
      await eventually(() => expect(at('/held')).toHaveLength(3));
    },
  );

  it.skipIf(!process.env.TEST_DATABASE_URL)('passes at once, as many instances do, deliver each event once to each endpoint', async () => {
    const { merchant, api } = await shop('/racing');
    await jobs!.dispatch();
    const customer = await newCustomer(app, merchant.id);
    const clients = [1, 2, 3, 4].map(() => new pg.Client({ connectionString: app.url }));
    await Promise.all(clients.map((c) => c.connect()));
    const queued: string[] = [];
    try {
      let writing = true;
      const writes = (async () => {
        for (let i = 1; i <= 30; i++) {
          expect(
            (await api.rest('POST', `/v1/customers/transactions?customer_id=${customer.platformId}`, { points: i, description: `${i}` }))
              .status,
          ).toBe(201);
        }
        writing = false;
      })();
      await Promise.all(
        clients.map(async (c) => {
          while (writing) await dispatchOutbox(c, async (list) => void queued.push(...list.map((j) => j.deliveryId)));
        }),
      );
      await writes;
      await dispatchOutbox(clients[0]!, async (list) => void queued.push(...list.map((j) => j.deliveryId)));
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
    const events = await dbEvents(merchant.id);
    expect(events).toHaveLength(31);
    const deliveries = await app.db.webhookDelivery.findMany({ where: { merchantId: merchant.id } });
    expect(deliveries.map((d) => d.eventId).sort()).toEqual(events.map((e) => e.id).sort());
    // each queued once
    expect(queued.sort()).toEqual(deliveries.map((d) => d.id).sort());
  });

  it('a merchant whose pass fails holds back no other, and is served by a later pass', async () => {
    const failing = await shop('/failing');
    const ok = await shop('/ok');
    await newCustomer(app, failing.merchant.id);
    await newCustomer(app, ok.merchant.id);
    const failed: string[] = [];
    const queued: string[] = [];
    const conn = new pg.Client({ connectionString: app.url });
    await conn.connect();
    try {
      const pass = await dispatchOutbox(
        conn,
        async (list) => {
          if (list.some((j) => j.merchantId === failing.merchant.id)) throw new Error('the queue refused');
          queued.push(...list.map((j) => j.deliveryId));
        },
        { onError: (merchantId) => failed.push(merchantId) },
      );
      expect(pass).toMatchObject({ events: 1, queued: 1 });
    } finally {
      await conn.end();
    }
    expect(failed).toEqual([failing.merchant.id]);
    expect(await undispatched(failing.merchant.id)).toBe(1);
    expect(await undispatched(ok.merchant.id)).toBe(0);
    // the job recorded above was never queued: cleared, as a redelivery does, for a pass to queue it
    await app.db.webhookDelivery.updateMany({ where: { merchantId: ok.merchant.id, id: { in: queued } }, data: { jobId: null } });
    expect(await jobs!.dispatch()).toMatchObject({ events: 1, queued: 2 });
    await eventually(() => expect([at('/failing').length, at('/ok').length]).toEqual([1, 1]));
  });
});
