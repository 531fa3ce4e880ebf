// On a Citus cluster every PL/pgSQL function that may touch tables plans its statements afresh
// on each call (src/db/cluster.ts, customPlans): with PL/pgSQL's generic plans, Citus 13.2
// appends a new local plan to the plan's cache on every local execution on a worker and never
// finds it again, so a worker connection that runs the delegated ledger function grew by
// ~220 KB a call. Here: every node has the setting, and a worker connection that runs the
// ledger function hundreds of times keeps its memory.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newCustomer, newMerchant, type TestApp, testApp } from '../harness.js';
import { notCitus, sql, testDatabaseUrl, urlOf } from './citus.js';

const skip = await notCitus();

/** The connection's memory, all contexts (bytes). */
async function memory(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ bytes: string }>('SELECT sum(total_bytes)::text AS bytes FROM pg_backend_memory_contexts');
  return Number(rows[0]!.bytes);
}

describe.skipIf(skip)(`plans on the workers${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let app: TestApp;
  let worker: pg.Client;
  let merchantId: string;
  let customerId: string;

  beforeAll(async () => {
    app = await testApp();
    merchantId = (await newMerchant(app, 'worker-plans')).id;
    customerId = (await newCustomer(app, merchantId)).id;
    // the worker that holds the merchant's shard group
    const [node] = await sql<{ nodename: string; nodeport: number }>(
      testDatabaseUrl!,
      `SELECT n.nodename, n.nodeport FROM pg_dist_placement p JOIN pg_dist_node n ON n.groupid = p.groupid
        WHERE p.shardid = get_shard_id_for_distribution_column('customers', $1::uuid)`,
      [merchantId],
    );
    worker = new pg.Client({ connectionString: urlOf(testDatabaseUrl!, { host: node!.nodename, port: node!.nodeport }) });
    await worker.connect();
  });

  afterAll(async () => {
    await worker?.end();
  });

  it('every PL/pgSQL function that may touch tables plans afresh, on every node', async () => {
    const nodes = await sql<{ nodename: string; nodeport: number }>(testDatabaseUrl!, 'SELECT nodename, nodeport FROM pg_dist_node');
    expect(nodes.length).toBeGreaterThan(1);
    for (const node of nodes) {
      const generic = await sql<{ name: string }>(
        urlOf(testDatabaseUrl!, { host: node.nodename, port: node.nodeport }),
        `SELECT p.proname::text AS name FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
          WHERE p.pronamespace = 'public'::regnamespace AND l.lanname = 'plpgsql' AND p.provolatile <> 'i'
            AND NOT coalesce('plan_cache_mode=force_custom_plan' = ANY (p.proconfig), false)
          ORDER BY 1`,
      );
      expect({ node: node.nodeport, generic: generic.map((f) => f.name) }).toEqual({ node: node.nodeport, generic: [] });
    }
  });

  it('a worker connection running the ledger function 300 times keeps its memory', async () => {
    const credit = () =>
      worker.query(
        `SELECT balance_after FROM loyalty_apply_points($1::uuid, $2::uuid, NULL, 1, 2147483647, gen_random_uuid(),
           'credit', 'worker plans', 'manual', NULL, NULL, gen_random_uuid(), 'adjustment', 'transaction', 'worker plans')`,
        [merchantId, customerId],
      );
    // past PL/pgSQL's first five calls, after which it would choose generic plans
    for (let i = 0; i < 10; i++) await credit();
    const before = await memory(worker);
    for (let i = 0; i < 300; i++) await credit();
    const grown = (await memory(worker)) - before;
    // a leak of ~220 KB a call would be ~66 MB
    expect(grown).toBeLessThan(8 * 1024 * 1024);
    const [customer] = await sql<{ balance: number; transactions: number; events: string }>(
      testDatabaseUrl!,
      `SELECT c.points_balance AS balance, c.transaction_count AS transactions,
              (SELECT count(*) FROM events e WHERE e.merchant_id = c.merchant_id AND e.type = 'points.credited') AS events
         FROM customers c WHERE c.merchant_id = $1 AND c.id = $2`,
      [merchantId, customerId],
    );
    expect({ ...customer, events: Number(customer!.events) }).toEqual({ balance: 310, transactions: 310, events: 310 });
  });
});
