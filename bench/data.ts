// Bulk data for the benchmark, written with SQL straight into the tables (never through the
// API). Only the merchant and its API key go through the service's own functions, so the key
// hash has the service's format. Not part of the service.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createPrisma } from '../src/db/client.js';
import { distribute } from '../src/db/cluster.js';
import { startEmbedded } from '../src/db/embedded.js';
import { applyMigrations } from '../src/db/schema-engine.js';
import { createApiKey } from '../src/domain/access/api-keys.js';
import { createMerchant } from '../src/domain/merchants/merchants.js';
import type { Size } from './config.js';

export const BENCH_DB = 'loyalty_bench';

export interface Tenant {
  merchantId: string;
  key: string;
}

/** Platform id of customer number `idx` (1 is the customer with thousands of rows). */
export const platformId = (idx: number) => `c${idx}`;

export function databaseName(url: string) {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
}

/** The database to load: BENCH_DATABASE_URL as given, or `name` (loyalty_bench) recreated empty. */
export async function preparePostgres(adminUrl: string, given: string | null, name = BENCH_DB): Promise<string> {
  if (given) {
    if (databaseName(given) === 'test') throw new Error('BENCH_DATABASE_URL must not be the test database');
    return given;
  }
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A Citus cluster: the coordinator's admin URL and the workers as the coordinator reaches them. */
export interface Cluster {
  adminUrl: string;
  workers: { host: string; port: number }[];
}

function nodeUrl(adminUrl: string, node: { host: string; port: number } | null, db: string) {
  const url = new URL(adminUrl);
  if (node) {
    url.hostname = node.host;
    url.port = String(node.port);
  }
  url.pathname = `/${db}`;
  return url.toString();
}

const withoutUser = (url: string) => url.replace(/\/\/[^@]*@/, '//');

/** Why the cluster cannot serve the benchmark (a node does not answer, or has no Citus), or null. */
export async function clusterUnavailable(cluster: Cluster): Promise<string | null> {
  for (const node of [null, ...cluster.workers]) {
    const url = nodeUrl(cluster.adminUrl, node, 'postgres');
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
    try {
      await client.connect();
      const { rows } = await client.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'citus'`);
      if (!rows.length) return `${withoutUser(url)} has no citus extension`;
    } catch (err) {
      return `${withoutUser(url)}: ${(err as Error).message}`;
    } finally {
      await client.end().catch(() => {});
    }
  }
  return null;
}

/**
 * `name` recreated empty on every node of the cluster with the citus extension, and the nodes
 * registered in its metadata (Citus keeps them per database), as `scripts/citus.sh createdb`
 * does. Returns the coordinator's URL of it.
 */
export async function prepareCitus(cluster: Cluster, name = BENCH_DB): Promise<string> {
  if (['test', 'loyalty', 'postgres'].includes(name)) throw new Error(`the benchmark does not recreate the database ${name}`);
  for (const node of [null, ...cluster.workers]) {
    await withClient(nodeUrl(cluster.adminUrl, node, 'postgres'), async (admin) => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${name}`);
    });
    await withClient(nodeUrl(cluster.adminUrl, node, name), (c) => c.query('CREATE EXTENSION citus'));
  }
  const url = nodeUrl(cluster.adminUrl, null, name);
  const coordinator = new URL(cluster.adminUrl);
  await withClient(url, async (c) => {
    // the coordinator in the metadata: reference tables then have a copy there too
    await c.query('SELECT citus_set_coordinator_host($1, $2)', [coordinator.hostname, Number(coordinator.port || 5432)]);
    for (const w of cluster.workers) await c.query('SELECT citus_add_node($1, $2)', [w.host, w.port]);
  });
  return url;
}

/** The workers' URLs of a database on the cluster. */
export const workerUrls = (cluster: Cluster, db = BENCH_DB) => cluster.workers.map((w) => nodeUrl(cluster.adminUrl, w, db));

/** The tables the benchmark's requests write: their rows, the ledger's counters and outbox, the dispatcher's marks, keys' last use. */
const WRITTEN_TABLES = ['customers', 'points_transactions', 'activities', 'events', 'ledger_buckets', 'api_keys'];

/**
 * VACUUM ANALYZE of the tables the runs write (on a cluster, of every shard): each row starts on
 * tables kept as autovacuum keeps them, whether or not the server runs it. A PostgreSQL with
 * autovacuum off (this machine's: conf.d/90-ci.conf) piled up the dead rows of a whole run: the
 * outbox dispatcher, polling in the service's process beside every row, read each dispatched
 * event's index entry (138 ms a pass late in a full run). And it never analysed `activities`,
 * which only the runs fill: without its statistics the planner read a customer's five latest
 * activities by a bitmap scan of all of them and a sort, or by the ordered index, as the table's
 * size moved between rows; for the session panel's shopper (23,787 activities by round 3) that was
 * 9 ms a read, on every server, in whichever round it flipped. Fast on clean tables.
 */
export async function vacuumWritten(urls: string[]) {
  await Promise.all(urls.map((url) => withClient(url, (c) => c.query(`VACUUM ANALYZE ${WRITTEN_TABLES.join(', ')}`))));
}

/** CHECKPOINT on each node (on a cluster the workers write the shards' WAL). */
export async function checkpointAll(urls: string[]) {
  await Promise.all(urls.map((url) => withClient(url, (c) => c.query('CHECKPOINT'))));
}

export interface TableSize {
  table: string;
  rows: number;
  /** Heap, indexes and TOAST (on Citus: of all the table's shards). */
  bytes: number;
  bytes_per_row: number;
}

/**
 * Rows and on-disk size of the loaded tables, indexes included: pg_total_relation_size, or on
 * a coordinator citus_total_relation_size (the sum over the table's shards, where the rows are).
 */
export async function tableSizes(client: pg.ClientBase, citus: boolean): Promise<TableSize[]> {
  const out: TableSize[] = [];
  for (const table of [...LOADED_TABLES, 'activities', 'events']) {
    const { rows } = await client.query(
      `SELECT (SELECT count(*) FROM ${table})::bigint AS rows,
              ${citus ? 'citus_total_relation_size' : 'pg_total_relation_size'}($1::regclass)::bigint AS bytes`,
      [table],
    );
    const n = Number(rows[0].rows);
    const bytes = Number(rows[0].bytes);
    out.push({ table, rows: n, bytes, bytes_per_row: n ? Math.round(bytes / n) : 0 });
  }
  return out;
}

export interface ShardLayout {
  /** Shards of each distributed table (one co-location group: the same for all). */
  shard_count: number;
  /** Per node: shard placements and their bytes (all tables). */
  nodes: { node: string; placements: number; bytes: number }[];
  /** The node holding the benchmark merchant's shard group. */
  merchant_node: string;
}

/** Where the shards are (citus_shards) and which node holds the merchant. */
export async function shardLayout(client: pg.ClientBase, merchantId: string): Promise<ShardLayout> {
  const count = await client.query(`SELECT count(*)::int AS n FROM pg_dist_shard WHERE logicalrelid = 'customers'::regclass`);
  const nodes = await client.query(
    `SELECT nodename || ':' || nodeport AS node, count(*)::int AS placements, sum(shard_size)::bigint AS bytes
       FROM citus_shards GROUP BY 1 ORDER BY 1`,
  );
  const at = await client.query(
    `SELECT nodename || ':' || nodeport AS node FROM citus_shards
      WHERE shardid = get_shard_id_for_distribution_column('customers', $1::uuid)`,
    [merchantId],
  );
  return {
    shard_count: count.rows[0].n,
    nodes: nodes.rows.map((r) => ({ node: r.node, placements: r.placements, bytes: Number(r.bytes) })),
    merchant_node: at.rows[0]?.node ?? '?',
  };
}

/**
 * Migrations (as the service applies them), on a Citus coordinator the tables handed to Citus
 * as `loyalty migrate` does (a no-op elsewhere), then a merchant and a Full Access key.
 */
export async function createTenant(url: string): Promise<Tenant> {
  await applyMigrations(url);
  const db = createPrisma(url, 2);
  try {
    const cluster = await distribute(db);
    if (cluster.distributed && cluster.tables.length + cluster.skipped.length === 0) {
      throw new Error('the Citus database has no distributed tables after the migrations');
    }
    const merchant = await createMerchant(db, { slug: `bench-${Date.now().toString(36)}`, name: 'Bench Shop' });
    const { key } = await createApiKey(db, { merchantId: merchant.id, type: 'full', name: 'bench' });
    return { merchantId: merchant.id, key };
  } finally {
    await db.$disconnect();
  }
}

/** Tiers, rewards, earning rules and one running booster. */
export async function loadCatalogue(client: pg.ClientBase, merchantId: string, size: Size) {
  await client.query(
    `INSERT INTO tiers (id, merchant_id, name, description, position, threshold, earn_multiplier, benefits, is_default, created_at, updated_at)
     SELECT gen_random_uuid(), $1::uuid, 'Tier ' || p, 'Level ' || p, p,
            (ARRAY[0, 500, 2000, 5000, 20000])[1 + (p - 1) % 5] * (1 + (p - 1) / 5),
            (ARRAY[1, 1.1, 1.25, 1.5, 2])[1 + (p - 1) % 5], ARRAY['benefit ' || p], p = 1, now(), now()
       FROM generate_series(1, $2::int) p`,
    [merchantId, size.tiers],
  );
  await client.query(
    `INSERT INTO rewards (id, merchant_id, name, description, reward_type, points_cost, reward_rule, is_active, created_at, updated_at)
     SELECT gen_random_uuid(), $1::uuid, 'Reward ' || i, 'Catalogue reward ' || i,
            (ARRAY['fixed_discount','percentage_discount','free_shipping','free_product','store_credit'])[1 + i % 5]::"RewardType",
            100 * (1 + i % 20),
            CASE i % 5
              WHEN 0 THEN jsonb_build_object('discount_value', 5 + i % 20)
              WHEN 1 THEN jsonb_build_object('discount_value', 5 + i % 50, 'max_discount_amount', 50)
              WHEN 2 THEN jsonb_build_object('max_shipping_amount', 15)
              WHEN 3 THEN jsonb_build_object('product_id', 'prod-' || i)
              ELSE jsonb_build_object('credit_value', 10, 'min_order_subtotal', 20)
            END,
            i % 10 <> 0, timestamptz '2024-01-01' + i * interval '1 day', now()
       FROM generate_series(1, $2::int) i`,
    [merchantId, size.rewards],
  );
  // every fifth rule is a purchase rule (10 of 50): the estimate evaluates all of them
  await client.query(
    `INSERT INTO earning_rules (id, merchant_id, name, description, campaign_type, earning_rule, conditions, is_active, created_at, updated_at)
     SELECT gen_random_uuid(), $1::uuid, 'Rule ' || i, 'Way to earn ' || i,
            CASE WHEN i % 5 = 0 THEN 'purchase'::"CampaignType" ELSE (enum_range(NULL::"CampaignType"))[2 + i % 12] END,
            CASE WHEN i % 5 = 0 THEN jsonb_build_object('type', 'variable', 'value', 1 + i % 3, 'per_amount', 1 + i % 4)
                 ELSE jsonb_build_object('type', 'fixed', 'value', 10 * (1 + i % 10)) END,
            CASE WHEN i % 10 = 0 THEN jsonb_build_object('min_order_subtotal', 25) END,
            true, timestamptz '2024-01-01' + i * interval '1 day', now()
       FROM generate_series(1, $2::int) i`,
    [merchantId, size.earningRules],
  );
  await client.query(
    `INSERT INTO booster_campaigns (id, merchant_id, name, multiplier, campaign_types, starts_at, ends_at, is_active, created_at, updated_at)
     VALUES (gen_random_uuid(), $1::uuid, 'Double weekend', 1.5, ARRAY['purchase']::"CampaignType"[],
             now() - interval '1 day', now() + interval '30 days', true, now(), now())`,
    [merchantId],
  );
}

/**
 * Customers `from..to` and their transactions. Customer `c1` has `heavyRows` rows; the others
 * share the rest of `size.transactions` evenly, so loading 1..N/10 and then N/10+1..N grows the
 * tables 10× with the same per-customer shape. Every 4th row is a debit of 50 after three
 * credits of at least 20, so no running balance goes below zero; balance_after is the running
 * sum and the customer's totals are the sums of its rows.
 */
export async function loadCustomers(client: pg.ClientBase, merchantId: string, size: Size, from: number, to: number) {
  const others = size.transactions - size.heavyRows;
  const base = Math.floor(others / (size.customers - 1));
  const rem = others % (size.customers - 1);
  const params = [merchantId, from, to];
  await client.query(
    `INSERT INTO customers (id, merchant_id, platform_id, email, first_name, last_name, referral_code, created_at, updated_at)
     SELECT md5($1 || ':' || i)::uuid, $1::uuid, 'c' || i, 'c' || i || '@bench.test', 'First' || i, 'Last' || i,
            'R' || i, timestamptz '2024-01-01' + i * interval '5 minutes', timestamptz '2024-01-01' + i * interval '5 minutes'
       FROM generate_series($2::int, $3::int) i`,
    params,
  );
  await client.query(
    `INSERT INTO points_transactions (id, merchant_id, customer_id, points, type, description, source, balance_after, created_at)
     SELECT gen_random_uuid(), $1::uuid, md5($1 || ':' || i)::uuid, p,
            CASE WHEN p > 0 THEN 'credit' ELSE 'debit' END::"TransactionType",
            CASE WHEN p > 0 THEN 'Order #' || i || '-' || k ELSE 'Reward redeemed' END,
            CASE WHEN p > 0 THEN 'earning_rule' ELSE 'redemption' END::"TransactionSource",
            sum(p) OVER (PARTITION BY i ORDER BY k),
            timestamptz '2024-01-01' + i * interval '5 minutes' + k * interval '1 hour'
       FROM (SELECT i, k, CASE WHEN k % 4 = 0 THEN -50 ELSE 20 + (k * 37 + i * 11) % 180 END AS p
               FROM generate_series($2::int, $3::int) i,
                    LATERAL generate_series(1, CASE WHEN i = 1 THEN $4::int ELSE $5::int + (CASE WHEN i - 2 < $6::int THEN 1 ELSE 0 END) END) k) s`,
    [...params, size.heavyRows, base, rem],
  );
  await client.query(
    `UPDATE customers c
        SET points_balance = a.balance, points_earned = a.earned, points_spent = a.spent, last_activity_at = a.last,
            tier_id = (SELECT t.id FROM tiers t WHERE t.merchant_id = $1::uuid AND t.threshold <= a.earned
                        ORDER BY t.threshold DESC LIMIT 1)
       FROM (SELECT customer_id, sum(points) AS balance, sum(greatest(points, 0)) AS earned,
                    sum(greatest(-points, 0)) AS spent, max(created_at) AS last
               FROM points_transactions WHERE merchant_id = $1::uuid GROUP BY customer_id) a
      WHERE c.id = a.customer_id AND c.merchant_id = $1::uuid
        AND c.platform_id IN (SELECT 'c' || i FROM generate_series($2::int, $3::int) i)`,
    params,
  );
}

/**
 * After a load, in its transaction: the merchants' customer counters and the customers'
 * transaction counters (triggers keep them, and the load skips triggers: see `withoutTriggers`).
 * Each join names merchant_id, so on Citus every statement runs shard by shard.
 */
export async function recount(client: pg.ClientBase) {
  await client.query(
    `INSERT INTO merchant_stats (merchant_id, customer_count)
     SELECT merchant_id, count(*)::int FROM customers GROUP BY merchant_id
     ON CONFLICT (merchant_id) DO UPDATE SET customer_count = EXCLUDED.customer_count`,
  );
  await client.query(
    `UPDATE customers c SET transaction_count = t.count
       FROM (SELECT merchant_id, customer_id, count(*) AS count FROM points_transactions GROUP BY merchant_id, customer_id) t
      WHERE c.merchant_id = t.merchant_id AND c.id = t.customer_id AND c.transaction_count <> t.count`,
  );
}

/** Fresh statistics after a load. */
export async function analyze(client: pg.ClientBase) {
  // the tables the load wrote, not the whole database (on a Citus coordinator either form
  // reaches the workers: a named table as VACUUM of each of its shards)
  await client.query(`VACUUM ANALYZE ${LOADED_TABLES.join(', ')}`);
}

/** The tables the load writes. */
const LOADED_TABLES = ['merchant_stats', 'tiers', 'rewards', 'earning_rules', 'booster_campaigns', 'customers', 'points_transactions'];

/**
 * Runs `load` in one transaction with triggers and foreign-key checks off (the rows are
 * consistent by construction; the outbox would otherwise hold an event per row). On a Citus
 * coordinator the setting must also reach the workers' connections, where the shards' triggers
 * fire: Citus forwards `SET LOCAL` to them when citus.propagate_set_commands is 'local'
 * (elsewhere that name is an unused placeholder setting).
 */
export async function withoutTriggers(client: pg.ClientBase, load: () => Promise<void>) {
  await client.query('BEGIN');
  try {
    await client.query("SET LOCAL citus.propagate_set_commands = 'local'");
    await client.query("SET LOCAL session_replication_role = 'replica'");
    await load();
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}

/** Row counts of the merchant (printed, and a check that the load did what it says). */
export async function counts(client: pg.ClientBase, merchantId: string) {
  const { rows } = await client.query(
    `SELECT (SELECT count(*) FROM customers WHERE merchant_id = $1)::int AS customers,
            (SELECT count(*) FROM points_transactions WHERE merchant_id = $1)::int AS transactions,
            (SELECT count(*) FROM points_transactions t JOIN customers c ON c.id = t.customer_id
              WHERE t.merchant_id = $1 AND c.merchant_id = $1 AND c.platform_id = 'c1')::int AS heavy_rows,
            (SELECT count(*) FROM customers c
               LEFT JOIN (SELECT customer_id, sum(points) AS total, count(*) AS n FROM points_transactions
                           WHERE merchant_id = $1 GROUP BY customer_id) a ON a.customer_id = c.id
              WHERE c.merchant_id = $1
                AND (c.points_balance <> coalesce(a.total, 0) OR c.transaction_count <> coalesce(a.n, 0)))::int AS unbalanced`,
    [merchantId],
  );
  return rows[0] as { customers: number; transactions: number; heavy_rows: number; unbalanced: number };
}

export async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * The data set of `size` for `merchantId`, customers `1..to` (all by default), with its
 * counters and fresh statistics: loaded without triggers, as every bench database is.
 */
export async function loadDataSet(client: pg.ClientBase, merchantId: string, size: Size, to = size.customers) {
  await withoutTriggers(client, async () => {
    await loadCatalogue(client, merchantId, size);
    await loadCustomers(client, merchantId, size, 1, to);
    await recount(client);
  });
  await analyze(client);
}

/**
 * A fresh embedded (PGlite) data directory with the small data set, loaded through the socket
 * server the service itself uses; closed again so the service can open it.
 */
export async function prepareEmbedded(size: Size): Promise<{ dataDir: string; tenant: Tenant; remove(): void }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'loyalty-bench-embedded-'));
  const database = await startEmbedded(dataDir);
  try {
    const tenant = await createTenant(database.url);
    await withClient(database.url, async (client) => {
      // as the PostgreSQL load: no triggers (the webhook outbox would hold an event per row,
      // which the service's dispatcher would then work through during the measurements)
      await loadDataSet(client, tenant.merchantId, size);
    });
    return { dataDir, tenant, remove: () => rmSync(dataDir, { recursive: true, force: true }) };
  } finally {
    await database.close();
  }
}
