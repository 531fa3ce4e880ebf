// No hot statement fans out (docs/scaling-out.md): on a Citus coordinator, the benchmark's
// operations (bench/operations.ts) and the other hot paths run through the real HTTP interface
// on connections where any statement that would run on more than one shard is an error
// (`citus.multi_task_query_log_level = 'error'`), and must succeed. The ledger function and the
// API key lookup are checked under EXPLAIN too. Only the app under test has the setting: the
// fixtures are written through the ordinary test app.
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PANEL_DOCUMENT } from '../../bench/operations.js';
import { createPrisma, type Db } from '../../src/db/client.js';
import { hashToken } from '../../src/domain/access/tokens.js';
import { createApp } from '../../src/http/app.js';
import { client, newCustomer, newKey, newMerchant, type TestApp, testApp, testConfig } from '../harness.js';
import { notCitus, sql, testDatabaseUrl, urlOf } from './citus.js';

const skip = await notCitus();

/** The test database's URL with the setting on every connection of the pool (libpq's `options`). */
const strictUrl = () => {
  const url = new URL(testDatabaseUrl!);
  url.searchParams.set('options', '-c citus.multi_task_query_log_level=error');
  return url.toString();
};

describe.skipIf(skip)(`no hot statement fans out${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let fixtures: TestApp;
  let strict: { db: Db; fetch: TestApp['fetch']; close(): Promise<void> };
  let merchantId: string;
  let key: string;
  let api: ReturnType<typeof client>;
  let customer: { id: string; platformId: string };
  let rewardId: string;
  /** The app's error log: a failed request answers 500 and logs the database's refusal. */
  const logged: string[] = [];
  const errorsSince = (from: number) =>
    logged.slice(from).map((line) => {
      const entry = JSON.parse(line) as { msg?: string; err?: { message?: string } };
      return entry.err?.message ?? entry.msg;
    });
  /** The answer, and with it the errors the app logged meanwhile (a refusal names the statement's problem). */
  const failure = (from: number, body: unknown) => JSON.stringify({ body, logged: errorsSince(from) });

  beforeAll(async () => {
    fixtures = await testApp();
    merchantId = (await newMerchant(fixtures, 'fanout')).id;
    key = await newKey(fixtures, merchantId);
    customer = await newCustomer(fixtures, merchantId, { points: 1000 });
    await newCustomer(fixtures, merchantId, { points: 10 });
    rewardId = (
      await fixtures.db.reward.create({
        data: { merchantId, name: '$5 off', rewardType: 'fixed_discount', pointsCost: 100, rewardRule: { discount_value: 5 } },
      })
    ).id;

    const url = strictUrl();
    const db = createPrisma(url, 4, { preparedStatements: true, pipelined: true });
    const logger = pino({ level: 'error' }, { write: (line: string) => void logged.push(line) });
    const app = createApp({ db, databaseUrl: url, config: testConfig(), logger });
    strict = {
      db,
      fetch: (path, init) => app.fetch(`http://loyalty.test${path}`, init),
      async close() {
        await app.close();
        await db.$disconnect();
      },
    };
    api = client({ ...fixtures, ...strict }, key);
  });

  afterAll(async () => {
    await strict?.close();
  });

  it("the app's connections refuse a statement over all shards", async () => {
    await expect(strict.db.$queryRawUnsafe('SELECT count(*) FROM customers')).rejects.toThrow(/multi-task query about to be executed/);
  });

  const who = () => `customer_id=${encodeURIComponent(customer.platformId)}`;
  const operations: [string, () => Promise<{ status: number; body: unknown }>, number][] = [
    ['customer lookup: GET /v1/customers/{id}', () => api.rest('GET', `/v1/customers/${encodeURIComponent(customer.platformId)}`), 200],
    ['customer lookup by internal id', () => api.rest('GET', `/v1/customers/${customer.id}`), 200],
    ['balance: GET /v1/customers/balance', () => api.rest('GET', `/v1/customers/balance?${who()}`), 200],
    [
      'credit: POST /v1/customers/transactions',
      () => api.rest('POST', `/v1/customers/transactions?${who()}`, { points: 50, description: 'credit' }),
      201,
    ],
    [
      'debit: POST /v1/customers/transactions',
      () => api.rest('POST', `/v1/customers/transactions?${who()}`, { points: -10, description: 'debit' }),
      201,
    ],
    [
      'redemption: POST /v1/customers/rewards/redeem',
      () => api.rest('POST', `/v1/customers/rewards/redeem?${who()}`, { reward_id: rewardId }),
      201,
    ],
    ['transaction history: GET /v1/customers/transactions', () => api.rest('GET', `/v1/customers/transactions?${who()}`), 200],
    ['transaction history, page 2', () => api.rest('GET', `/v1/customers/transactions?${who()}&page=2&per_page=1`), 200],
    ['customers list: GET /v1/customers', () => api.rest('GET', '/v1/customers'), 200],
    ['rewards list: GET /v1/rewards', () => api.rest('GET', '/v1/rewards'), 200],
    ['redeemable rewards: GET /v1/customers/rewards/redeemable', () => api.rest('GET', `/v1/customers/rewards/redeemable?${who()}`), 200],
    ['activities: GET /v1/customers/activities', () => api.rest('GET', `/v1/customers/activities?${who()}`), 200],
    [
      'estimate: POST /v1/points/estimate',
      () =>
        api.rest('POST', '/v1/points/estimate', {
          customer_id: customer.platformId,
          subtotal: 120.5,
          line_items: [{ product_id: 'p', quantity: 1, price: 120.5 }],
        }),
      200,
    ],
  ];

  it.each(operations)('%s', async (_name, run, status) => {
    const from = logged.length;
    const res = await run();
    expect(res, failure(from, res.body)).toMatchObject({ status });
  });

  it("the storefront panel by API key: docs/graphql.md's LoyaltyPanel in one GraphQL request", async () => {
    const from = logged.length;
    const panel = await api.gql(PANEL_DOCUMENT, { customer: customer.platformId });
    expect(panel.body.errors, failure(from, panel.body.errors)).toBeUndefined();
    expect(panel.body.data.customer.data.balance.points_balance).toBeGreaterThan(0);
  });

  it('the storefront panel: one GraphQL request with a customer session', async () => {
    const from = logged.length;
    const minted = await api.gql('mutation ($c: String) { create_customer_session(customer_id: $c) { data { token } } }', {
      c: customer.platformId,
    });
    expect(minted.body.errors, failure(from, minted.body.errors)).toBeUndefined();
    const shopper = client({ ...fixtures, ...strict }, minted.body.data.create_customer_session.data.token);
    const panel = await shopper.gql(`{
      me {
        first_name
        balance { points_balance next_expiry { points expires_at } }
        tier_status { current_tier { name } next_tier { name } progress { remaining } }
        redeemable_rewards { data { id name points_cost } }
        activities(per_page: 5) { data { type description points_change occurred_at } }
        rewards(per_page: 3) { data { code status expires_at catalogue_reward { name } } }
      }
    }`);
    expect(panel.body.errors, failure(from, panel.body.errors)).toBeUndefined();
    expect(panel.body.data.me.balance.points_balance).toBeGreaterThan(0);
  });

  /** The plan of `statement` on the test database, as text. */
  const explain = async (statement: string, values: unknown[], url = testDatabaseUrl!) =>
    (await sql<{ 'QUERY PLAN': string }>(url, `EXPLAIN ${statement}`, values)).map((r) => r['QUERY PLAN']).join('\n');

  it('EXPLAIN: the ledger function runs as one task on the merchant’s worker', async () => {
    const plan = await explain(
      `SELECT * FROM loyalty_apply_points($1, $2, NULL, 5, 1000000, $3, 'credit', 'x', 'manual', NULL, NULL, $4, 'manual', NULL, NULL)`,
      [merchantId, customer.id, randomUUID(), randomUUID()],
    );
    expect(plan).toContain('Task Count: 1');
    const [coordinator] = await sql<{ port: number }>(testDatabaseUrl!, 'SELECT nodeport AS port FROM pg_dist_node WHERE groupid = 0');
    expect(plan).not.toContain(`port=${coordinator!.port}`);
  });

  it("EXPLAIN: the API key lookup by hash reads the coordinator's copy of the reference table", async () => {
    const plan = await explain(
      `SELECT id, merchant_id AS "merchantId", scopes, revoked_at IS NOT NULL AS revoked FROM api_keys WHERE hash = $1`,
      [hashToken(key)],
      // the table is a few rows here, which a sequential scan reads as fast: with it off, the plan
      // shows the index the lookup has at any size
      urlOf(testDatabaseUrl!, { options: '-c enable_seqscan=off' }),
    );
    const [coordinator] = await sql<{ port: number }>(testDatabaseUrl!, 'SELECT nodeport AS port FROM pg_dist_node WHERE groupid = 0');
    expect(plan).toContain('Task Count: 1');
    expect(plan).toContain(`port=${coordinator!.port}`);
    expect(plan).toContain('api_keys_hash_key');
  });
});
