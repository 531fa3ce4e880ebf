// `loyalty cluster distribute`: a no-op where Citus is not installed; on a Citus coordinator it
// distributes a migrated database that already holds rows in place (a database of its own on
// the cluster, made for this file), keeps every row, trigger and foreign key, is a no-op the
// second time, and distributes a table a later migration adds; `migrate` applies the migrations
// written since the first sharded schema to the distributed database.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrisma } from '../../src/db/client.js';
import { distribute, REFERENCE_TABLES } from '../../src/db/cluster.js';
import { applyMigrations } from '../../src/db/schema-engine.js';
import { cliRunner } from '../cli/run-cli.js';
import { testApp } from '../harness.js';
import { notCitus, sql, testDatabaseUrl, urlOf } from './citus.js';

const skip = await notCitus();

describe('cluster distribute on the test database', () => {
  it(skip ? 'does nothing without Citus' : 'changes nothing on a distributed database', async () => {
    const { db } = await testApp();
    const result = await distribute(db);
    if (skip) {
      expect(result).toEqual({ distributed: false, reason: 'the database has no citus extension' });
    } else {
      // the global setup distributed it
      expect(result).toMatchObject({
        distributed: true,
        tables: [],
        reference: [],
        functions: { loyalty_apply_points: 'already distributed', loyalty_redeem: 'already distributed' },
      });
    }
  });
});

/** The same scratch database, with the extension, on every node; the nodes in its metadata. */
async function scratchDatabase(name: string) {
  const listed = await sql<{ nodename: string; nodeport: number; groupid: number }>(
    testDatabaseUrl!,
    'SELECT nodename, nodeport, groupid FROM pg_dist_node ORDER BY groupid',
  );
  const nodes = listed.map((n) => ({
    url: urlOf(testDatabaseUrl!, { host: n.nodename, port: n.nodeport, database: 'postgres' }),
    coordinator: n.groupid === 0,
    host: n.nodename,
    port: n.nodeport,
  }));
  for (const node of nodes) {
    await sql(node.url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await sql(node.url, `CREATE DATABASE ${name}`);
    await sql(urlOf(node.url, { database: name }), 'CREATE EXTENSION citus');
  }
  const url = urlOf(testDatabaseUrl!, { database: name });
  for (const node of nodes) {
    await sql(url, node.coordinator ? 'SELECT citus_set_coordinator_host($1, $2)' : 'SELECT citus_add_node($1, $2)', [
      node.host,
      node.port,
    ]);
  }
  return {
    url,
    nodes,
    async drop() {
      for (const node of nodes) await sql(node.url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

const SCRATCH = 'test_distribute';
/** The schema the service was first distributed with: the scratch database starts there. */
const FIRST_SHARDED = '20261126105918_merchant_scoped_keys';

describe.skipIf(skip)(`cluster distribute in place${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let scratch: string;
  let nodes: { url: string; coordinator: boolean; host: string; port: number }[];

  async function createScratch() {
    ({ url: scratch, nodes } = await scratchDatabase(SCRATCH));
  }

  const m1 = randomUUID();
  const m2 = randomUUID();
  const customers = [randomUUID(), randomUUID(), randomUUID()] as const;

  /** A little of everything, written by SQL on the plain tables: merchants, keys, customers, a credit through the ledger function (its triggers write the rest). */
  async function seed() {
    const [c1, c2, c3] = customers;
    await sql(
      scratch,
      `INSERT INTO merchants (id, slug, name, updated_at) VALUES ('${m1}', 'one', 'One', now()), ('${m2}', 'two', 'Two', now());
       INSERT INTO api_keys (id, merchant_id, name, type, prefix, hash) VALUES (gen_random_uuid(), '${m1}', 'k', 'full', 'lpk_x', 'hash-1');
       INSERT INTO storefront_settings (merchant_id, session_secret, updated_at) VALUES ('${m1}', '\\x00', now());
       INSERT INTO tiers (id, merchant_id, name, position, threshold, updated_at) VALUES (gen_random_uuid(), '${m1}', 'Bronze', 0, 0, now());
       INSERT INTO customers (id, merchant_id, platform_id, email, referral_code, updated_at)
       VALUES ('${c1}', '${m1}', 'c1', 'c1@example.com', 'R1', now()), ('${c2}', '${m1}', 'c2', 'c2@example.com', 'R2', now()),
              ('${c3}', '${m2}', 'c1', 'c1@example.com', 'R1', now());`,
    );
    for (const [merchant, customer] of [
      [m1, c1],
      [m1, c2],
      [m2, c3],
    ] as const) {
      await credit(merchant, customer, 100);
    }
  }

  const credit = (merchant: string, customer: string, points: number) =>
    sql<{ balance_after: number | null }>(
      scratch,
      `SELECT balance_after FROM loyalty_apply_points($1, $2, NULL, $3, 1000000, $4, 'credit', 'test', 'manual', NULL, NULL, $5, 'manual', NULL, NULL)`,
      [merchant, customer, points, randomUUID(), randomUUID()],
    );

  /** Rows per table of schema public, and every trigger and foreign key as its definition. */
  async function snapshot() {
    const tables = await sql<{ name: string }>(
      scratch,
      `SELECT relname AS name FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'
          AND NOT relation_is_a_known_shard(oid) ORDER BY 1`,
    );
    const rows: Record<string, number> = {};
    for (const { name } of tables) rows[name] = Number((await sql(scratch, `SELECT count(*) AS n FROM "${name}"`))[0].n);
    const definitions = await sql<{ d: string }>(
      scratch,
      // (the coordinator's placements of the reference tables are shards: not ours)
      `SELECT pg_get_triggerdef(oid) AS d FROM pg_trigger
        WHERE NOT tgisinternal AND tgrelid::regclass::text NOT LIKE 'pg_%' AND NOT relation_is_a_known_shard(tgrelid)
       UNION ALL SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
        WHERE contype = 'f' AND connamespace = 'public'::regnamespace AND NOT relation_is_a_known_shard(conrelid) ORDER BY 1`,
    );
    return { rows, definitions: definitions.map((r) => r.d) };
  }

  const cli = () => cliRunner({ ...process.env, DATABASE_URL: scratch, LOG_LEVEL: 'silent' });

  beforeAll(async () => {
    await createScratch();
    await applyMigrations(scratch);
    await seed();
  }, 180_000);

  afterAll(async () => {
    if (!nodes) return;
    for (const node of nodes) await sql(node.url, `DROP DATABASE IF EXISTS ${SCRATCH} WITH (FORCE)`);
  });

  it('distributes a populated database in place, keeping its rows, triggers and foreign keys', async () => {
    const before = await snapshot();
    expect(before.rows.customers).toBe(3);
    expect(before.rows.points_transactions).toBe(3);
    expect(before.rows.events).toBeGreaterThan(0);

    const started = Date.now();
    const { code, json } = await cli()('cluster', 'distribute');
    console.log(`cluster distribute (populated, first run): ${Date.now() - started} ms including the CLI's start`);
    expect(code).toBe(0);
    expect(json.distributed).toBe(true);
    expect([...json.reference].sort()).toEqual([...REFERENCE_TABLES].sort());
    expect(json.tables[0]).toBe('customers');
    expect(json.tables).toContain('points_transactions');
    expect(json.tables).toContain('merchant_stats');
    expect(json.tables).not.toContain('_prisma_migrations');
    expect(json.skipped).toEqual([]);
    expect(json.functions).toEqual({ loyalty_apply_points: 'distributed', loyalty_redeem: 'distributed' });

    expect(await snapshot()).toEqual(before);
    const layout = await sql<{ name: string; kind: string; colocated: boolean }>(
      scratch,
      `SELECT logicalrelid::text AS name, CASE WHEN partmethod = 'h' THEN 'distributed' ELSE 'reference' END AS kind,
              colocationid = (SELECT colocationid FROM pg_dist_partition WHERE logicalrelid = 'customers'::regclass) AS colocated
         FROM pg_dist_partition ORDER BY 1`,
    );
    expect(
      layout
        .filter((t) => t.kind === 'reference')
        .map((t) => t.name)
        .sort(),
    ).toEqual([...REFERENCE_TABLES].sort());
    const distributed = layout.filter((t) => t.kind === 'distributed');
    expect(distributed.map((t) => t.name).sort()).toEqual([...json.tables].sort());
    expect(distributed.every((t) => t.colocated)).toBe(true);
    // pg-boss's schema and Prisma's table stay local
    expect(layout.map((t) => t.name)).not.toContain('_prisma_migrations');

    // the ledger on the distributed tables: one task on the merchant's worker, triggers fired there
    const plan = await sql<{ 'QUERY PLAN': string }>(
      scratch,
      `EXPLAIN SELECT * FROM loyalty_apply_points('${m1}', '${customers[0]}', NULL, 5, 1000000, '${randomUUID()}', 'credit', 'x', 'manual', NULL, NULL, '${randomUUID()}', 'manual', NULL, NULL)`,
    );
    expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toContain('Task Count: 1');
    expect((await credit(m1, customers[0], 5))[0]!.balance_after).toBe(105);
    const [counts] = await sql(
      scratch,
      `SELECT c.transaction_count, (SELECT customer_count FROM merchant_stats WHERE merchant_id = $1) AS customer_count,
              (SELECT count(*)::int FROM events WHERE merchant_id = $1 AND type = 'points.credited') AS credited
         FROM customers c WHERE c.merchant_id = $1 AND c.id = $2`,
      [m1, customers[0]],
    );
    expect(counts).toEqual({ transaction_count: 2, customer_count: 2, credited: 3 });
  });

  it('is a no-op the second time', async () => {
    const before = await snapshot();
    const { code, json } = await cli()('cluster', 'distribute');
    expect(code).toBe(0);
    expect(json).toMatchObject({
      distributed: true,
      tables: [],
      reference: [],
      functions: { loyalty_apply_points: 'already distributed', loyalty_redeem: 'already distributed' },
    });
    expect(json.skipped).toContain('customers');
    expect(json.skipped).toContain('merchants');
    expect(await snapshot()).toEqual(before);
  });

  it('distributes a table a later migration adds, with its rows, trigger and foreign key', async () => {
    // what a migration applied by `migrate` on the coordinator would create: a plain table (a
    // foreign key to the reference table merchants makes Citus convert it to a Citus local table)
    // (one statement a query: Citus propagates a function's DDL by the text of the query)
    for (const statement of [
      `CREATE TABLE later_things (merchant_id uuid NOT NULL REFERENCES merchants (id) ON DELETE CASCADE, id uuid NOT NULL,
                                  touched_at timestamptz, PRIMARY KEY (merchant_id, id))`,
      `CREATE FUNCTION later_things_touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.touched_at := now(); RETURN NEW; END $$`,
      `CREATE TRIGGER later_things_touched BEFORE INSERT ON later_things FOR EACH ROW EXECUTE FUNCTION later_things_touch()`,
      `INSERT INTO later_things (merchant_id, id) VALUES ('${m1}', gen_random_uuid()), ('${m2}', gen_random_uuid())`,
    ]) {
      await sql(scratch, statement);
    }
    const before = await snapshot();
    const db = createPrisma(scratch, 1);
    try {
      expect(await distribute(db)).toMatchObject({ distributed: true, tables: ['later_things'], reference: [] });
    } finally {
      await db.$disconnect();
    }
    expect(await snapshot()).toEqual(before);
    await sql(scratch, `INSERT INTO later_things (merchant_id, id) VALUES ('${m1}', gen_random_uuid())`);
    const [row] = await sql(
      scratch,
      `SELECT count(*)::int AS n, count(touched_at)::int AS touched,
              (SELECT partmethod FROM pg_dist_partition WHERE logicalrelid = 'later_things'::regclass) AS method
         FROM later_things WHERE merchant_id = $1`,
      [m1],
    );
    expect(row).toEqual({ n: 2, touched: 2, method: 'h' });
    await expect(sql(scratch, `INSERT INTO later_things (merchant_id, id) VALUES (gen_random_uuid(), gen_random_uuid())`)).rejects.toThrow(
      /foreign key/,
    );
  }, 180_000);
});

describe.skipIf(skip)(`migrate on a distributed database${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let db: Awaited<ReturnType<typeof scratchDatabase>>;
  const merchant = randomUUID();
  const customer = randomUUID();

  beforeAll(async () => {
    db = await scratchDatabase('test_migrate_distributed');
    await applyMigrations(db.url, { through: FIRST_SHARDED });
    await sql(
      db.url,
      `INSERT INTO merchants (id, slug, name, updated_at) VALUES ('${merchant}', 'one', 'One', now());
       INSERT INTO customers (id, merchant_id, platform_id, email, referral_code, updated_at)
       VALUES ('${customer}', '${merchant}', 'c1', 'c1@example.com', 'R1', now());`,
    );
    const prisma = createPrisma(db.url, 1);
    try {
      expect(await distribute(prisma)).toMatchObject({ distributed: true });
    } finally {
      await prisma.$disconnect();
    }
  }, 180_000);

  afterAll(async () => {
    await db?.drop();
  });

  it('applies every later migration to the distributed database, and distributes the tables they add', async () => {
    const { code, json } = await cliRunner({ ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'silent' })('migrate');
    expect(code).toBe(0);
    expect(json.applied.length).toBeGreaterThan(0);
    expect(json.applied.every((name: string) => name > FIRST_SHARDED)).toBe(true);
    expect(json.cluster).toMatchObject({ distributed: true, skipped: expect.arrayContaining(['customers']) });
    const [unplaced] = await sql(
      db.url,
      `SELECT count(*)::int AS n FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r'
          AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'merchant_id')
          AND NOT relation_is_a_known_shard(c.oid)
          AND NOT EXISTS (SELECT 1 FROM pg_dist_partition p WHERE p.logicalrelid = c.oid AND (p.partmethod = 'h' OR p.repmodel = 't'))`,
    );
    expect(unplaced).toEqual({ n: 0 });
    // the ledger works through what the migrations added (their triggers among them)
    const [row] = await sql(
      db.url,
      `SELECT balance_after FROM loyalty_apply_points($1, $2, NULL, 7, 1000000, $3, 'credit', 'test', 'manual', NULL, NULL, $4, 'manual', NULL, NULL)`,
      [merchant, customer, randomUUID(), randomUUID()],
    );
    expect(row).toEqual({ balance_after: 7 });
    const [buckets] = await sql(db.url, 'SELECT sum(points)::int AS points FROM ledger_buckets WHERE merchant_id = $1', [merchant]);
    expect(buckets).toEqual({ points: 7 });
  });
});
