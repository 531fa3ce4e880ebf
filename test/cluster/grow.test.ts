// Growing a Citus cluster while it serves: two server processes take a steady load of credits,
// debits and balance reads while a worker joins, the shards are rebalanced onto it, and one
// merchant is isolated to a shard of its own and moved there. No request may fail, and every
// answered change must be in the ledger exactly once. Runs when CITUS_SPARE_PORT names a Citus
// node that no database uses yet (`scripts/citus.sh spare`), in a database of its own, so the
// rest of the suite keeps its layout.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPrisma, type Db } from '../../src/db/client.js';
import { createApiKey } from '../../src/domain/access/api-keys.js';
import { createMerchant } from '../../src/domain/merchants/merchants.js';
import { projectRoot, randomPort, startServerProcess, type ServerProcess } from '../processes.js';

const SPARE_PORT = Number(process.env.CITUS_SPARE_PORT ?? 0);
const DATABASE = 'loyalty_grow';
const CUSTOMERS_PER_MERCHANT = 6;
const CLIENTS = 8;

const nodeUrl = (port: number, database: string) => `postgresql://postgres@127.0.0.1:${port}/${database}`;

async function onNode(port: number, database: string, sql: string) {
  const client = new pg.Client({ connectionString: nodeUrl(port, database) });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

interface Answer {
  merchant: number;
  customer: string;
  points: number;
  status: number | 'network';
  body?: string;
}

describe.skipIf(!SPARE_PORT)('growing the cluster while it serves', () => {
  const servers: ServerProcess[] = [];
  let db: Db | undefined;
  let url = '';

  afterAll(async () => {
    for (const server of servers) server.child.kill('SIGKILL');
    await db?.$disconnect();
  });

  it('adds a worker, rebalances onto it and isolates a merchant: no failed request, no lost or doubled row', async () => {
    // a database of its own on the cluster (its nodes are per database), and on the spare node
    url = execFileSync('bash', ['scripts/citus.sh', 'createdb', DATABASE, '--fresh'], { cwd: projectRoot, encoding: 'utf8' }).trim();
    await onNode(SPARE_PORT, 'postgres', `DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
    await onNode(SPARE_PORT, 'postgres', `CREATE DATABASE ${DATABASE}`);
    await onNode(SPARE_PORT, DATABASE, 'CREATE EXTENSION citus');

    // the servers migrate and distribute the schema as they start
    const env = { DATABASE_URL: url, WORKERS: 'false', LOG_LEVEL: 'warn', RATE_LIMIT_PER_KEY: '0', RATE_LIMIT_PER_MERCHANT: '0' };
    const port = randomPort();
    servers.push(await startServerProcess({ ...env, LOG_LEVEL: 'info' }, { port }));
    servers.push(await startServerProcess({ ...env, LOG_LEVEL: 'info' }, { port: port + 1 }));

    db = createPrisma(url, 4);
    const merchants = await Promise.all(
      ['big', 'small-a', 'small-b', 'small-c'].map(async (label) => {
        const merchant = await createMerchant(db!, { slug: `${label}-${randomUUID().slice(0, 6)}` });
        const { key } = await createApiKey(db!, { merchantId: merchant.id, type: 'full' });
        return { id: merchant.id, key };
      }),
    );
    const call = (i: number, merchant: number, path: string, init: RequestInit = {}) =>
      fetch(`${servers[i % servers.length]!.base}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${merchants[merchant]!.key}`, 'content-type': 'application/json', ...(init.headers as object) },
      });
    const customers = merchants.map((_, m) => Array.from({ length: CUSTOMERS_PER_MERCHANT }, (_, c) => `m${m}-c${c}`));
    await db.customer.createMany({
      data: customers.flatMap((ids, m) =>
        ids.map((id) => ({ merchantId: merchants[m]!.id, platformId: id, email: `${id}@grow.test`, referralCode: id.toUpperCase() })),
      ),
    });

    // the load: credits, debits (some refused for want of points: 422, not a failure) and reads
    const answers: Answer[] = [];
    let serving = true;
    const client = async (n: number) => {
      for (let i = 0; serving; i++) {
        const merchant = (n + i) % merchants.length;
        const customer = customers[merchant]![(n * 7 + i) % CUSTOMERS_PER_MERCHANT]!;
        const points = i % 3 === 2 ? -15 : 10;
        try {
          const res =
            i % 4 === 3
              ? await call(n + i, merchant, `/v1/customers/balance?customer_id=${customer}`)
              : await call(n + i, merchant, `/v1/customers/transactions?customer_id=${customer}`, {
                  method: 'POST',
                  headers: { 'idempotency-key': randomUUID() },
                  body: JSON.stringify({ points, description: `load ${n}/${i}` }),
                });
          const body = await res.text();
          answers.push({ merchant, customer, points: i % 4 === 3 ? 0 : points, status: res.status, body: res.status >= 400 ? body : undefined });
        } catch (err) {
          answers.push({ merchant, customer, points, status: 'network', body: String(err) });
        }
      }
    };
    const load = Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));

    const coordinator = new pg.Client({ connectionString: url });
    await coordinator.connect();
    try {
      const q = (sql: string, values?: unknown[]) => coordinator.query(sql, values).then((r) => r.rows);
      await new Promise((r) => setTimeout(r, 2000));
      await q(`SELECT citus_add_node('127.0.0.1', $1)`, [SPARE_PORT]);
      await q(`SELECT citus_rebalance_start(shard_transfer_mode => 'force_logical')`);
      await q(`SELECT citus_rebalance_wait()`);
      const big = merchants[0]!.id;
      const [{ shard }] = await q(`SELECT isolate_tenant_to_new_shard('customers', $1, 'CASCADE', shard_transfer_mode => 'force_logical') AS shard`, [big]);
      const [from] = await q(
        `SELECT n.nodename, n.nodeport FROM pg_dist_placement p JOIN pg_dist_node n USING (groupid) WHERE p.shardid = $1`,
        [shard],
      );
      if (from.nodeport !== SPARE_PORT) {
        await q(`SELECT citus_move_shard_placement($1, $2, $3, '127.0.0.1', $4, shard_transfer_mode => 'force_logical')`, [
          shard,
          from.nodename,
          from.nodeport,
          SPARE_PORT,
        ]);
      }
      await new Promise((r) => setTimeout(r, 2000));
      serving = false;
      await load;

      // the spare node holds shards, and the big merchant's shard holds it alone, there
      const [{ placed }] = await q(
        `SELECT count(*)::int AS placed FROM pg_dist_placement p JOIN pg_dist_node n USING (groupid) WHERE n.nodeport = $1`,
        [SPARE_PORT],
      );
      expect(placed).toBeGreaterThan(0);
      const [isolated] = await q(
        `SELECT s.shardminvalue = s.shardmaxvalue AS alone, n.nodeport FROM pg_dist_shard s
           JOIN pg_dist_placement p USING (shardid) JOIN pg_dist_node n USING (groupid)
          WHERE s.shardid = get_shard_id_for_distribution_column('customers', $1)`,
        [big],
      );
      expect(isolated).toEqual({ alone: true, nodeport: SPARE_PORT });
    } finally {
      serving = false;
      await load;
      await coordinator.end();
    }

    // no request failed
    const failed = answers.filter((a) => a.status === 'network' || a.status >= 500);
    expect(failed).toEqual([]);
    const unexpected = answers.filter((a) => a.status !== 200 && a.status !== 201 && a.status !== 422);
    expect(unexpected).toEqual([]);
    expect(answers.length).toBeGreaterThan(100);

    // every answered change is in the ledger once, and nothing else is
    const ledger = await db.$queryRaw<{ platform_id: string; balance: number; n: bigint; sum: bigint | null }[]>`
      SELECT c.platform_id, c.points_balance AS balance, count(t.id) AS n, sum(t.points) AS sum
        FROM customers c
        LEFT JOIN points_transactions t ON t.merchant_id = c.merchant_id AND t.customer_id = c.id
       WHERE c.merchant_id = ANY(${merchants.map((m) => m.id)}::uuid[])
       GROUP BY c.merchant_id, c.id, c.platform_id, c.points_balance`;
    const expected = new Map<string, { n: number; sum: number }>();
    for (const a of answers.filter((a) => a.status === 201)) {
      const e = expected.get(a.customer) ?? { n: 0, sum: 0 };
      expected.set(a.customer, { n: e.n + 1, sum: e.sum + a.points });
    }
    for (const row of ledger) {
      const e = expected.get(row.platform_id) ?? { n: 0, sum: 0 };
      expect({ customer: row.platform_id, n: Number(row.n), sum: Number(row.sum ?? 0), balance: row.balance }).toEqual({
        customer: row.platform_id,
        n: e.n,
        sum: e.sum,
        balance: e.sum,
      });
    }
    expect(ledger).toHaveLength(merchants.length * CUSTOMERS_PER_MERCHANT);
  }, 600_000);
});
