// Requests enter where the merchant lives (src/db/merchant-nodes.ts): on a Citus coordinator a
// merchant's public requests open connections on the worker that holds its shard group and on
// no other worker, and answer as through the coordinator. The app here names its connections
// (application_name), so each worker's pg_stat_activity shows where they went.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { client, newCustomer, newKey, newMerchant, type TestApp, testApp, testConfig } from '../harness.js';
import { notCitus, sql, testDatabaseUrl, urlOf } from './citus.js';

const skip = await notCitus();

describe.skipIf(skip)(`worker entry${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const name = `entry-${randomUUID().slice(0, 8)}`;
  let fixtures: TestApp;
  let app: ReturnType<typeof createApp>;
  let merchantId: string;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    fixtures = await testApp();
    merchantId = (await newMerchant(fixtures, 'worker-entry')).id;
    const url = new URL(testDatabaseUrl!);
    url.searchParams.set('application_name', name);
    app = createApp({ db: fixtures.db, databaseUrl: url.toString(), config: testConfig() });
    api = client({ ...fixtures, fetch: (path, init) => app.fetch(`http://loyalty.test${path}`, init) }, await newKey(fixtures, merchantId));
  });

  afterAll(async () => {
    await app?.close();
  });

  /** Each worker's connections of this app. */
  async function connections() {
    const workers = await sql<{ nodename: string; nodeport: number; holds: boolean }>(
      testDatabaseUrl!,
      `SELECT n.nodename, n.nodeport,
              n.groupid = (SELECT groupid FROM pg_dist_placement
                            WHERE shardid = get_shard_id_for_distribution_column('customers', $1::uuid)) AS holds
         FROM pg_dist_node n WHERE n.groupid <> 0 AND n.noderole = 'primary' ORDER BY n.nodeport`,
      [merchantId],
    );
    return Promise.all(
      workers.map(async (w) => {
        const [row] = await sql<{ n: number }>(
          urlOf(testDatabaseUrl!, { host: w.nodename, port: w.nodeport }),
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1',
          [name],
        );
        return { holds: w.holds, connections: row!.n };
      }),
    );
  }

  it("sends a merchant's requests to its worker only, and answers as the coordinator would", async () => {
    const customer = await newCustomer(fixtures, merchantId, { points: 100 });
    const who = `customer_id=${encodeURIComponent(customer.platformId)}`;
    const credit = await api.rest('POST', `/v1/customers/transactions?${who}`, { points: 25, description: 'entry' });
    expect(credit.status).toBe(201);
    expect(credit.body.data).toMatchObject({ customer_id: customer.id, points: 25, type: 'credit' });
    const balance = await api.rest('GET', `/v1/customers/balance?${who}`);
    expect(balance.status).toBe(200);
    expect(balance.body.data.points_balance).toBe(125);
    const history = await api.rest('GET', `/v1/customers/transactions?${who}`);
    expect(history.body.meta.pagination.total).toBe(2);

    const seen = await connections();
    expect(seen.filter((w) => w.holds)).toHaveLength(1);
    expect(seen.find((w) => w.holds)!.connections).toBeGreaterThan(0);
    expect(seen.filter((w) => !w.holds).map((w) => w.connections)).toEqual(seen.filter((w) => !w.holds).map(() => 0));
  });
});
