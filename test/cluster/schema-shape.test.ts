// The schema can be sharded by merchant, on every database the service runs on: every key of
// a tenant table holds merchant_id, every foreign key between two tenant tables names it, none
// updates in cascade, and every enum has the casts Citus accepts. A migration that adds a table
// or an enum without them fails here, before it ever meets a cluster.
import { beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_TABLES } from '../../src/db/cluster.js';
import { type TestApp, testApp } from '../harness.js';

let app: TestApp;
beforeAll(async () => {
  app = await testApp();
});

async function tenantTables() {
  // on a Citus coordinator, its copies of the reference tables are tables of public too
  const [probe] = await app.db.$queryRaw<{ citus: boolean }[]>`
    SELECT to_regproc('pg_catalog.relation_is_a_known_shard') IS NOT NULL AS citus`;
  const citus = probe!.citus;
  const rows = await app.db.$queryRawUnsafe<{ table: string }[]>(`
    SELECT c.relname AS table FROM pg_class c
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'merchant_id' AND NOT a.attisdropped
     WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r'
       ${citus ? 'AND NOT relation_is_a_known_shard(c.oid)' : ''}
     ORDER BY 1`);
  return rows.map((r) => r.table).filter((t) => !REFERENCE_TABLES.includes(t));
}

describe('a schema that shards by merchant', () => {
  it('has merchant_id in every primary key and unique index of a tenant table', async () => {
    const tables = await tenantTables();
    expect(tables).toContain('customers');
    expect(tables).toContain('points_transactions');
    const missing = await app.db.$queryRaw<{ index: string }[]>`
      SELECT i.indexrelid::regclass::text AS index FROM pg_index i
        JOIN pg_class c ON c.oid = i.indrelid
       WHERE c.relname = ANY(${tables}) AND c.relnamespace = 'public'::regnamespace
         AND (i.indisunique OR i.indisprimary)
         AND NOT EXISTS (SELECT 1 FROM pg_attribute a
                          WHERE a.attrelid = c.oid AND a.attname = 'merchant_id' AND a.attnum = ANY(i.indkey))`;
    expect(missing).toEqual([]);
  });

  it('names the merchant in every foreign key between tenant tables, and never updates in cascade', async () => {
    const tables = await tenantTables();
    const keys = await app.db.$queryRaw<{ name: string; columns: string[]; referenced: string; on_update: string }[]>`
      SELECT k.conname AS name, k.confrelid::regclass::text AS referenced, k.confupdtype::text AS on_update,
             ARRAY(SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = k.conrelid AND a.attnum = ANY(k.conkey)) AS columns
        FROM pg_constraint k
       WHERE k.contype = 'f' AND k.connamespace = 'public'::regnamespace AND k.conrelid::regclass::text = ANY(${tables})`;
    expect(keys.length).toBeGreaterThan(20);
    const between = keys.filter((k) => tables.includes(k.referenced.replace(/"/g, '')));
    expect(between.filter((k) => !k.columns.includes('merchant_id')).map((k) => k.name)).toEqual([]);
    // 'a': NO ACTION. Citus refuses CASCADE and SET NULL on update when the key holds the distribution column
    expect(keys.filter((k) => k.on_update !== 'a').map((k) => k.name)).toEqual([]);
  });

  it('has an IMMUTABLE cast each way for every enum (Citus refuses the STABLE I/O conversion in RETURNING)', async () => {
    const missing = await app.db.$queryRaw<{ enum: string; direction: string }[]>`
      SELECT t.typname::text AS enum, d.direction FROM pg_type t
       CROSS JOIN (VALUES ('to text'), ('from text')) AS d(direction)
       WHERE t.typnamespace = 'public'::regnamespace AND t.typtype = 'e'
         AND NOT EXISTS (
           SELECT 1 FROM pg_cast c JOIN pg_proc p ON p.oid = c.castfunc AND p.provolatile = 'i'
            WHERE (d.direction = 'to text' AND c.castsource = t.oid AND c.casttarget = 'text'::regtype)
               OR (d.direction = 'from text' AND c.castsource = 'text'::regtype AND c.casttarget = t.oid))`;
    expect(missing).toEqual([]);
  });
});
