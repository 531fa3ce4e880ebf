// On a Citus cluster every PL/pgSQL function that may touch tables plans its statements afresh
// on each call (src/db/cluster.ts, customPlans): with PL/pgSQL's generic plans, Citus 13.2
// appends a new local plan to the plan's cache on every local execution on a worker and never
// finds it again, so a worker connection that runs the delegated ledger function grew by
// ~220 KB a call. Here: every node has the setting, and a worker connection that runs the
// ledger function hundreds of times keeps its memory. The service's own connections to a worker
// (src/db/merchant-nodes.ts) keep generic plans of the statements that name their merchant as a
// constant, and name no other (src/db/sql.ts, forMerchant): a connection reading a merchant's
// customers hundreds of times keeps its memory too.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrisma } from '../../src/db/client.js';
import { forMerchant, rowsOf } from '../../src/db/sql.js';
import { listCustomers } from '../../src/domain/customers/customer-records.js';
import { findCustomer } from '../../src/domain/customers/customers.js';
import { loadEarningProgram } from '../../src/domain/earning/earning-program.js';
import { listActivities } from '../../src/domain/ledger/activity-log.js';
import { listTransactions } from '../../src/domain/ledger/points-history.js';
import { listRewards } from '../../src/domain/rewards/rewards.js';
import { Prisma } from '../../src/generated/prisma/client.js';
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
  let platformId: string;
  let workerUrl: string;

  beforeAll(async () => {
    app = await testApp();
    merchantId = (await newMerchant(app, 'worker-plans')).id;
    const customer = await newCustomer(app, merchantId);
    customerId = customer.id;
    platformId = customer.platformId;
    // the worker that holds the merchant's shard group
    const [node] = await sql<{ nodename: string; nodeport: number }>(
      testDatabaseUrl!,
      `SELECT n.nodename, n.nodeport FROM pg_dist_placement p JOIN pg_dist_node n ON n.groupid = p.groupid
        WHERE p.shardid = get_shard_id_for_distribution_column('customers', $1::uuid)`,
      [merchantId],
    );
    workerUrl = urlOf(testDatabaseUrl!, { host: node!.nodename, port: node!.nodeport });
    worker = new pg.Client({ connectionString: workerUrl });
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

  it("a worker-entry connection reading a merchant's customers 300 times keeps its memory, and names only statements with the merchant written in", async () => {
    // one connection, as the service opens them on a worker
    const db = createPrisma(workerUrl, 1, { preparedStatements: true, pipelined: true, merchantConstant: true });
    try {
      const merchant = forMerchant(db, merchantId);
      // the reads the service sends a worker, each statement of one table (src/db/sql.ts, tableByTable)
      const read = async () => {
        const customer = await findCustomer(merchant, merchantId, { customer_id: platformId });
        await listTransactions(merchant, merchantId, customer.id, {});
        await listActivities(merchant, merchantId, customer.id, {});
        await listCustomers(merchant, merchantId, {});
        await listRewards(merchant, merchantId, {}, { activeOnly: true });
        await loadEarningProgram(merchant, merchantId, customer, 'purchase', new Date());
        // a statement with no merchant in it goes unnamed
        await rowsOf(merchant, Prisma.sql`SELECT count(*)::int AS n FROM customers WHERE id = ${customerId}::uuid`);
      };
      const memoryOf = async () =>
        Number(
          (
            await rowsOf<{ bytes: string }>(merchant, Prisma.sql`SELECT sum(total_bytes)::text AS bytes FROM pg_backend_memory_contexts`)
          )[0]!.bytes,
        );
      // past the five custom plans after which PostgreSQL chooses a generic one
      for (let i = 0; i < 10; i++) await read();
      const before = await memoryOf();
      for (let i = 0; i < 300; i++) await read();
      // with the merchant a parameter, a generic plan grew the connection ~70 KB a read: ~20 MB;
      // so did one whose first condition compared a column with a parameter before the merchant
      // (`id = $1 AND merchant_id = '…'`: ~54 KB a run)
      expect((await memoryOf()) - before).toBeLessThan(4 * 1024 * 1024);
      const named = await rowsOf<{ statement: string; generic: boolean }>(
        merchant,
        Prisma.sql`SELECT statement, generic_plans > 0 AS generic FROM pg_prepared_statements`,
      );
      expect(named.length).toBeGreaterThan(0);
      expect(named.filter((s) => !s.statement.includes(`'${merchantId}'`))).toEqual([]);
      expect(named.every((s) => s.generic)).toBe(true);
    } finally {
      await db.$disconnect();
    }
  });
});
