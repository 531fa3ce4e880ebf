// Exactly once, whatever dies: a keyed write whose process is killed (SIGKILL) at a point of the
// request, or whose database goes away before the commit, is retried with the same
// Idempotency-Key on another instance. The retry either replays the first answer (the first
// committed) or runs for the first time (it did not): one effect per key, never two, and every
// balance equals its transactions. The process under test runs the bundle, armed with a fault
// point (src/observability/faults.ts); the other instance is a second server process.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateAdminToken } from '../../src/domain/merchants/merchants.js';
import { newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';
import { cuttableProxy, exitCode, type ServerProcess, startServerProcess } from '../processes.js';

let app: TestApp;
let survivor: ServerProcess;
let merchantId: string;
let apiKey: string;
let adminToken: string;

beforeAll(async () => {
  app = await testApp();
  const merchant = await newMerchant(app, 'once');
  merchantId = merchant.id;
  apiKey = await newKey(app, merchantId);
  adminToken = (await rotateAdminToken(app.db, merchant.slug)).admin_token;
  // the program the orders, activities and referrals below earn under
  await app.db.earningRule.create({
    data: { merchantId, name: '1 per $1', campaignType: 'purchase', earningRule: { type: 'variable', value: 1, per_amount: 1 } },
  });
  await app.db.earningRule.create({
    data: { merchantId, name: 'Reviews', campaignType: 'review', earningRule: { type: 'fixed', value: 15 } },
  });
  await app.db.referralProgram.create({
    data: { merchantId, referrerPoints: 50, isActive: true, refereeRewardType: 'fixed_discount', refereeRewardRule: { discount_value: 5 } },
  });
  survivor = await startServerProcess(serverEnv(app.env));
});

afterAll(async () => {
  survivor?.child.kill('SIGKILL');
});

/** A server on the test's database, without the job workers (they are not under test). */
function serverEnv(database: TestApp['env'], fault?: string): Record<string, string> {
  return {
    ...database,
    LOG_LEVEL: 'info',
    WORKERS: 'false',
    RATE_LIMIT_PER_KEY: '0',
    RATE_LIMIT_PER_MERCHANT: '0',
    ...(fault ? { LOYALTY_TEST_FAULT: fault } : {}),
  };
}

interface Write {
  path: string;
  body: unknown;
  admin?: boolean;
}

function send(base: string, write: Write, key: string) {
  return fetch(`${base}${write.path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${write.admin ? adminToken : apiKey}`,
      'content-type': 'application/json',
      'idempotency-key': key,
    },
    body: JSON.stringify(write.body),
  });
}

const adminWrite = (query: string, variables: Record<string, unknown>): Write => ({
  path: '/admin/graphql',
  admin: true,
  body: { query, variables },
});

/** Every balance of the merchant equals the sum of its transactions. */
async function assertLedgerHolds() {
  const customers = await app.db.customer.findMany({ where: { merchantId }, select: { id: true, pointsBalance: true } });
  for (const c of customers) {
    const sum = (await app.db.pointsTransaction.aggregate({ where: { customerId: c.id }, _sum: { points: true } }))._sum.points ?? 0;
    expect(c.pointsBalance).toBe(sum);
  }
}

/** Sends `write` to a process armed to die at `point`, then retries it on the survivor. */
async function killedThenRetried(point: string, write: Write) {
  const victim = await startServerProcess(serverEnv(app.env, `${point}:kill`));
  const key = randomUUID();
  const first = await send(victim.base, write, key).then(
    (res) => res.status,
    () => 'cut off',
  );
  // a request that failed before the fault point leaves the victim alive
  if (first !== 'cut off') victim.child.kill('SIGKILL');
  expect(first).toBe('cut off');
  await exitCode(victim);
  const retry = await send(survivor.base, write, key);
  const body = await retry.json();
  const again = await send(survivor.base, write, key);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(await again.json()).toEqual(body);
  return { status: retry.status, replayed: retry.headers.get('idempotent-replayed') === 'true', body };
}

describe('a points adjustment whose process dies', () => {
  const credit = (customerId: string): Write => ({
    path: `/v1/customers/transactions?customer_id=${customerId}`,
    body: { points: 30, description: 'goodwill' },
  });
  const creditsOf = (customerId: string) => app.db.pointsTransaction.count({ where: { customerId, description: 'goodwill' } });

  it.each([
    ['ledger.applied', false],
    ['idempotency.stored', false],
    ['idempotency.committed', true],
  ])('killed at %s: the retry on another instance %s', async (point, replayed) => {
    const customer = await newCustomer(app, merchantId, { points: 100 });
    const retried = await killedThenRetried(point as string, credit(customer.platformId));
    expect(retried).toMatchObject({ status: 201, replayed });
    expect(await creditsOf(customer.id)).toBe(1);
    expect((await app.db.customer.findFirstOrThrow({ where: { id: customer.id } })).pointsBalance).toBe(130);
    await assertLedgerHolds();
  });
});

describe('every keyed mutation, its process killed after its writes and before their commit', () => {
  it('a redemption: one code, points spent once', async () => {
    const customer = await newCustomer(app, merchantId, { points: 300 });
    const reward = await app.db.reward.create({
      data: {
        merchantId,
        name: 'Five off',
        rewardType: 'fixed_discount',
        pointsCost: 120,
        rewardRule: { discount_value: 5 },
        isActive: true,
      },
    });
    const retried = await killedThenRetried('idempotency.stored', {
      path: `/v1/customers/rewards/redeem?customer_id=${customer.platformId}`,
      body: { reward_id: reward.id },
    });
    expect(retried).toMatchObject({ status: 201, replayed: false });
    expect(await app.db.customerReward.count({ where: { customerId: customer.id } })).toBe(1);
    expect((await app.db.customer.findFirstOrThrow({ where: { id: customer.id } })).pointsBalance).toBe(180);
    await assertLedgerHolds();
  });

  it('an order, then its refund: points awarded once and clawed back once', async () => {
    const customer = await newCustomer(app, merchantId);
    const orderId = `o-${randomUUID().slice(0, 8)}`;
    const order = await killedThenRetried(
      'idempotency.stored',
      adminWrite('mutation($input: OrderEventInput!) { record_order(input: $input) { points_awarded replayed } }', {
        input: { order_id: orderId, customer_id: customer.platformId, subtotal: 80 },
      }),
    );
    expect(order.body).toEqual({
      data: { record_order: { points_awarded: 80, replayed: false } },
      extensions: { cost: expect.anything() },
    });
    expect(await app.db.order.count({ where: { merchantId, platformOrderId: orderId } })).toBe(1);

    const refund = await killedThenRetried(
      'idempotency.stored',
      adminWrite('mutation($input: RefundEventInput!) { refund_order(input: $input) { points_clawed_back } }', {
        input: { order_id: orderId, amount: 40 },
      }),
    );
    expect(refund.body).toEqual({ data: { refund_order: { points_clawed_back: 40 } }, extensions: { cost: expect.anything() } });
    const customerNow = await app.db.customer.findFirstOrThrow({ where: { id: customer.id } });
    expect(customerNow.pointsBalance).toBe(40);
    expect(await app.db.pointsTransaction.count({ where: { customerId: customer.id } })).toBe(2);
    await assertLedgerHolds();
  });

  it('an activity: its points once', async () => {
    const customer = await newCustomer(app, merchantId);
    const activity = await killedThenRetried(
      'idempotency.stored',
      adminWrite('mutation($input: ActivityEventInput!) { record_activity(input: $input) { points_awarded replayed } }', {
        input: { campaign_type: 'review', customer_id: customer.platformId, event_id: `review-${randomUUID()}` },
      }),
    );
    expect(activity.body).toEqual({
      data: { record_activity: { points_awarded: 15, replayed: false } },
      extensions: { cost: expect.anything() },
    });
    expect((await app.db.customer.findFirstOrThrow({ where: { id: customer.id } })).pointsBalance).toBe(15);
    await assertLedgerHolds();
  });

  it('a referral: registered once', async () => {
    const referrer = await newCustomer(app, merchantId);
    const email = `friend-${randomUUID().slice(0, 8)}@example.com`;
    const referral = await killedThenRetried(
      'idempotency.stored',
      adminWrite('mutation($input: ReferralEventInput!) { record_referral(input: $input) { status replayed } }', {
        input: { referrer_code: referrer.referralCode, referee_email: email },
      }),
    );
    expect(referral.body).toEqual({
      data: { record_referral: { status: 'pending', replayed: false } },
      extensions: { cost: expect.anything() },
    });
    expect(await app.db.referral.count({ where: { merchantId, refereeEmail: email } })).toBe(1);
  });
});

describe('an order sent without an Idempotency-Key, its process killed after the points were written', () => {
  it("the platform's retry of the same order awards it once, as the first", async () => {
    const customer = await newCustomer(app, merchantId);
    const orderId = `o-${randomUUID().slice(0, 8)}`;
    const write = adminWrite('mutation($input: OrderEventInput!) { record_order(input: $input) { points_awarded replayed } }', {
      input: { order_id: orderId, customer_id: customer.platformId, subtotal: 42 },
    });
    const send = (base: string) =>
      fetch(`${base}/admin/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(write.body),
      });
    const victim = await startServerProcess(serverEnv(app.env, 'ledger.applied:kill'));
    const first = await send(victim.base).then(
      (r) => r.status,
      () => 'cut off',
    );
    if (first !== 'cut off') victim.child.kill('SIGKILL');
    expect(first).toBe('cut off');
    await exitCode(victim);
    const retry = await send(survivor.base);
    expect(await retry.json()).toEqual({
      data: { record_order: { points_awarded: 42, replayed: false } },
      extensions: { cost: expect.anything() },
    });
    const again = await send(survivor.base);
    expect(await again.json()).toEqual({
      data: { record_order: { points_awarded: 42, replayed: true } },
      extensions: { cost: expect.anything() },
    });
    const stored = await app.db.customer.findFirstOrThrow({ where: { id: customer.id } });
    expect(stored.pointsBalance).toBe(42);
    expect(Number(stored.amountSpent)).toBe(42);
    expect(await app.db.pointsTransaction.count({ where: { customerId: customer.id } })).toBe(1);
    await assertLedgerHolds();
  });
});

describe('the database going away before the commit', () => {
  it('answers 503 and changes nothing; the retry with the same key runs once', async () => {
    const proxy = cuttableProxy(new URL(app.url));
    await proxy.open();
    const viaProxy = new URL(app.url);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const server = await startServerProcess(serverEnv({ ...app.env, DATABASE_URL: viaProxy.toString() }, 'idempotency.stored:pause'));
    try {
      const customer = await newCustomer(app, merchantId, { points: 10 });
      const write: Write = {
        path: `/v1/customers/transactions?customer_id=${customer.platformId}`,
        body: { points: 25, description: 'outage' },
      };
      const key = randomUUID();
      const first = send(server.base, write, key);
      while (!/fault idempotency\.stored paused/.test(server.output())) await new Promise((r) => setTimeout(r, 20));
      await proxy.cut();
      server.child.kill('SIGUSR2');
      const answer = await first.catch((err: Error) => {
        throw new Error(`no answer (${err.message}); the server said:\n${server.output()}`);
      });
      expect(answer.status).toBe(503);
      expect((await answer.json()).error.code).toBe('service_unavailable');
      expect((await app.db.customer.findFirstOrThrow({ where: { id: customer.id } })).pointsBalance).toBe(10);

      // until the database has ended the cut-off transaction, its claim still holds the key: a
      // retry meanwhile is told so (409 idempotency_in_progress), as a client is told to retry
      let retry = await send(survivor.base, write, key);
      for (let i = 0; retry.status === 409 && i < 10; i++) {
        expect((await retry.json()).error.code).toBe('idempotency_in_progress');
        await new Promise((r) => setTimeout(r, 500));
        retry = await send(survivor.base, write, key);
      }
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
      expect((await app.db.customer.findFirstOrThrow({ where: { id: customer.id } })).pointsBalance).toBe(35);
      expect(await app.db.pointsTransaction.count({ where: { customerId: customer.id, description: 'outage' } })).toBe(1);
      await assertLedgerHolds();
    } finally {
      server.child.kill('SIGKILL');
      await proxy.cut().catch(() => {});
    }
  });
});
