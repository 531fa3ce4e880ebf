// The ledger under concurrency. Exact outcomes for racing debits, credits and
// redemptions; a randomised mix over two merchants after which every balance equals the
// sum of its transactions, none is negative, and no row crosses merchants. No 5xx once each
// request is sent as the API asks (a 503 for a database too busy to take it, sent again). Load
// tests: their deadlines grow with how busy the machine is (test/load.ts).
import { beforeAll, describe, expect, it } from 'vitest';
import { client, newCustomer, newKey, newMerchant, sendAsAsked, type TestApp, testApp } from '../harness.js';
import { deadline } from '../load.js';

let app: TestApp;

beforeAll(async () => {
  app = await testApp();
});

async function setup(label: string) {
  const merchant = await newMerchant(app, label);
  return { merchant, api: client(app, await newKey(app, merchant.id)) };
}

const adjust = (api: ReturnType<typeof client>, customerId: string, points: number) =>
  api.rest('POST', `/v1/customers/transactions?customer_id=${customerId}`, { points, description: `race ${points}` });

/**
 * A write under its own Idempotency-Key, sent again as the API asks when the database is too busy
 * to take it in time (a burst on one machine's embedded database): exactly once either way.
 */
const asAsked = (api: ReturnType<typeof client>, method: string, path: string, body: unknown) =>
  sendAsAsked(
    (key) => api.rest(method, path, body, { 'idempotency-key': key }),
    (r) => {
      // the database is only slow here: a 503 never says it is down
      if (r.status === 503) expect(r.body.error.message).not.toMatch(/database is unavailable/);
      return r.body?.error?.code;
    },
  );

const adjustAsAsked = (api: ReturnType<typeof client>, customerId: string, points: number) =>
  asAsked(api, 'POST', `/v1/customers/transactions?customer_id=${customerId}`, { points, description: `race ${points}` });

async function invariants(merchantIds: string[]) {
  const broken = await app.db.$queryRaw<{ id: string; points_balance: number; total: bigint | null }[]>`
    SELECT c.id, c.points_balance, (SELECT sum(t.points) FROM points_transactions t WHERE t.merchant_id = c.merchant_id AND t.customer_id = c.id) AS total
      FROM customers c
     WHERE c.merchant_id = ANY(${merchantIds}::uuid[])
       AND (c.points_balance < 0
            OR c.points_balance <> COALESCE((SELECT sum(t.points) FROM points_transactions t WHERE t.merchant_id = c.merchant_id AND t.customer_id = c.id), 0)
            OR c.points_earned - c.points_spent <> c.points_balance
            -- a lifetime tier is judged on points_earned: the sum of the customer's credits
            OR c.points_earned <> COALESCE((SELECT sum(t.points) FROM points_transactions t
                                             WHERE t.merchant_id = c.merchant_id AND t.customer_id = c.id AND t.type = 'credit'), 0)
            -- the history's and the activity log's totals are trigger-kept counters
            OR c.transaction_count <> (SELECT count(*) FROM points_transactions t WHERE t.merchant_id = c.merchant_id AND t.customer_id = c.id)
            OR c.activity_count <> (SELECT count(*) FROM activities a WHERE a.merchant_id = c.merchant_id AND a.customer_id = c.id))`;
  // every transaction announced exactly once and counted once in the ledger's buckets, whoever
  // wrote it (the ledger function itself, or a redemption through the statement triggers)
  const unannounced = await app.db.$queryRaw<{ id: string; events: bigint }[]>`
    SELECT t.id, (SELECT count(*) FROM events e
                   WHERE e.merchant_id = t.merchant_id AND e.type IN ('points.credited', 'points.debited')
                     AND e.payload->>'transaction_id' = t.id::text) AS events
      FROM points_transactions t
     WHERE t.merchant_id = ANY(${merchantIds}::uuid[])
       AND (SELECT count(*) FROM events e
             WHERE e.merchant_id = t.merchant_id AND e.type IN ('points.credited', 'points.debited')
               AND e.payload->>'transaction_id' = t.id::text) <> 1`;
  const unbucketed: string[] = [];
  for (const merchantId of merchantIds) {
    const [ledger] = await app.db.$queryRaw<{ points: bigint | null; entries: bigint }[]>`
      SELECT sum(points) AS points, count(*) AS entries FROM points_transactions WHERE merchant_id = ${merchantId}::uuid`;
    const [buckets] = await app.db.$queryRaw<{ points: bigint | null; entries: bigint | null }[]>`
      SELECT sum(points) AS points, sum(entries) AS entries FROM ledger_buckets WHERE merchant_id = ${merchantId}::uuid`;
    if (Number(ledger!.points ?? 0) !== Number(buckets!.points ?? 0) || Number(ledger!.entries) !== Number(buckets!.entries ?? 0)) {
      unbucketed.push(`${merchantId}: ${JSON.stringify({ ledger, buckets }, (_, v) => (typeof v === 'bigint' ? Number(v) : v))}`);
    }
  }
  // no row can name another merchant's customer or reward: the composite foreign keys refuse it
  return { broken, unannounced, unbucketed };
}

describe('ledger under concurrency', () => {
  it('200 concurrent debits of 10 against 1,000 points: exactly 100 succeed', { timeout: deadline(10_000) }, async () => {
    const { merchant, api } = await setup('debits');
    const customer = await newCustomer(app, merchant.id, { points: 1000 });
    const results = await Promise.all(Array.from({ length: 200 }, () => adjustAsAsked(api, customer.platformId, -10)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(100);
    expect(results.filter((r) => r.status === 422).every((r) => r.body.error.code === 'adjustment_failed')).toBe(true);
    expect(results.filter((r) => r.status === 422)).toHaveLength(100);
    expect((await app.db.customer.findFirstOrThrow({ where: { id: customer.id } })).pointsBalance).toBe(0);
    expect(await invariants([merchant.id])).toEqual({ broken: [], unannounced: [], unbucketed: [] });
  });

  it('500 concurrent +1 credits from zero: exactly 500', { timeout: deadline(15_000) }, async () => {
    const { merchant, api } = await setup('credits');
    const customer = await newCustomer(app, merchant.id);
    const results = await Promise.all(Array.from({ length: 500 }, () => adjustAsAsked(api, customer.platformId, 1)));
    expect(results.filter((r) => r.status !== 201).map((r) => [r.status, r.body])).toEqual([]);
    expect((await app.db.customer.findFirstOrThrow({ where: { id: customer.id } })).pointsBalance).toBe(500);
    expect(await app.db.pointsTransaction.count({ where: { customerId: customer.id } })).toBe(500);
    // the pages (the first read directly, the deeper ones through the history's index) walk
    // the 500 in order, many of them made in the same millisecond, each once
    const pages = await Promise.all(
      [1, 2, 3, 4, 5].map((page) =>
        api.rest('GET', `/v1/customers/transactions?customer_id=${customer.platformId}&per_page=100&page=${page}`),
      ),
    );
    expect(pages[4]!.body.meta.pagination).toEqual({ current_page: 5, per_page: 100, total: 500, last_page: 5, has_more: false });
    const listed = pages.flatMap((p) => p.body.data.map((t: { transaction_id: string }) => t.transaction_id));
    const ordered = await app.db.pointsTransaction.findMany({
      where: { customerId: customer.id },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      select: { id: true },
    });
    expect(listed).toEqual(ordered.map((t) => t.id));
    // and so does the activity log, through its own index and counter
    const logPages = await Promise.all(
      [1, 2, 3, 4, 5].map((page) =>
        api.rest('GET', `/v1/customers/activities?customer_id=${customer.platformId}&per_page=100&page=${page}`),
      ),
    );
    expect(logPages[4]!.body.meta.pagination).toEqual({ current_page: 5, per_page: 100, total: 500, last_page: 5, has_more: false });
    const logged = await app.db.activity.findMany({
      where: { customerId: customer.id },
      orderBy: [{ occurredAt: 'desc' }, { createdAt: 'desc' }, { id: 'desc' }],
      select: { id: true },
    });
    expect(logPages.flatMap((p) => p.body.data.map((a: { id: string }) => a.id))).toEqual(logged.map((a) => a.id));
    expect(await invariants([merchant.id])).toEqual({ broken: [], unannounced: [], unbucketed: [] });
  });

  it('concurrent redemptions never overdraw', async () => {
    const { merchant, api } = await setup('redeem');
    const customer = await newCustomer(app, merchant.id, { points: 1000 });
    const reward = await app.db.reward.create({
      data: { merchantId: merchant.id, name: 'R', rewardType: 'fixed_discount', pointsCost: 150, rewardRule: { discount_value: 5 } },
    });
    const results = await Promise.all(
      Array.from({ length: 40 }, () =>
        asAsked(api, 'POST', `/v1/customers/rewards/redeem?customer_id=${customer.platformId}`, { reward_id: reward.id }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(6);
    expect(results.filter((r) => r.status === 422 && r.body.error.code === 'insufficient_points')).toHaveLength(34);
    expect((await app.db.customer.findFirstOrThrow({ where: { id: customer.id } })).pointsBalance).toBe(100);
    expect(await invariants([merchant.id])).toEqual({ broken: [], unannounced: [], unbucketed: [] });
  });

  it('a refused debit leaves no trace on the requests that follow it (prisma/prisma#30374)', async () => {
    const { merchant, api } = await setup('after-failure');
    const customer = await newCustomer(app, merchant.id, { points: 5 });
    for (let i = 0; i < 5; i++) {
      expect((await adjust(api, customer.platformId, -100)).status).toBe(422);
      expect((await adjust(api, customer.platformId, 1)).status).toBe(201);
      const balance = await api.rest('GET', `/v1/customers/balance?customer_id=${customer.platformId}`);
      expect(balance.body.data.points_balance).toBe(6 + i);
    }
  });

  it('the database refuses a negative balance even if the code did not (CHECK constraint)', async () => {
    const { merchant } = await setup('check');
    const customer = await newCustomer(app, merchant.id, { points: 1 });
    await expect(app.db.$executeRaw`UPDATE customers SET points_balance = -1 WHERE id = ${customer.id}::uuid`).rejects.toThrow(
      /customers_points_balance_non_negative|check constraint/i,
    );
  });

  it('a randomised mix over two merchants keeps every invariant, with no 5xx', { timeout: deadline(10_000) }, async () => {
    const shops = await Promise.all([setup('mix-a'), setup('mix-b')]);
    const world = await Promise.all(
      shops.map(async ({ merchant, api }) => {
        const customers = await Promise.all(
          Array.from({ length: 5 }, (_, i) => newCustomer(app, merchant.id, { customerId: `mix-${i}`, points: 200 })),
        );
        const reward = await app.db.reward.create({
          data: { merchantId: merchant.id, name: 'Mix', rewardType: 'free_shipping', pointsCost: 60, rewardRule: {} },
        });
        return { api, customers, reward };
      }),
    );
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const requests = Array.from({ length: 300 }, () => {
      const shop = world[random(2)]!;
      const customer = shop.customers[random(5)]!;
      const redeem = `/v1/customers/rewards/redeem?customer_id=${customer.platformId}`;
      switch (random(4)) {
        case 0:
          return adjustAsAsked(shop.api, customer.platformId, 1 + random(50));
        case 1:
          return adjustAsAsked(shop.api, customer.platformId, -(1 + random(120)));
        case 2:
          return asAsked(shop.api, 'POST', redeem, { reward_id: shop.reward.id });
        default:
          // another merchant's reward: must be 404 and change nothing
          return asAsked(shop.api, 'POST', redeem, { reward_id: world.find((w) => w !== shop)!.reward.id });
      }
    });
    const results = await Promise.all(requests);
    expect(results.filter((r) => r.status >= 500).map((r) => r.body)).toEqual([]);
    expect(results.every((r) => [201, 404, 422].includes(r.status))).toBe(true);
    expect(await invariants(shops.map((s) => s.merchant.id))).toEqual({ broken: [], unannounced: [], unbucketed: [] });
  });
});
