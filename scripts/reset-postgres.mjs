// Empties the database at argv[2] (test databases only) of the service's objects and pg-boss's
// schema, so migrations start over. On a Citus coordinator the extension's own objects live in
// schema public too (DROP SCHEMA public CASCADE would break Citus), so there the service's
// tables, functions (their casts go with them) and types are dropped one by one instead, which
// Citus propagates to the workers.
import pg from 'pg';

const url = process.argv[2];
if (!url || !/\/test(\?|$)/.test(url)) {
  console.error('refusing to reset a database whose name is not "test"');
  process.exit(2);
}
const client = new pg.Client({ connectionString: url });
await client.connect();
// the job queue's own schema (pg-boss creates it again)
await client.query('DROP SCHEMA IF EXISTS pgboss CASCADE');
const citus = (await client.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`)).rowCount > 0;
if (!citus) {
  await client.query('DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public;');
} else {
  // an extension's members depend on it with deptype 'e'
  const notExtension = (catalog) =>
    `NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = '${catalog}'::regclass AND d.objid = o.oid AND d.deptype = 'e')`;
  const kinds = [
    // the coordinator's placements of reference tables are shards in public: their table drops them
    [
      'TABLE',
      `SELECT o.oid::regclass::text AS name FROM pg_class o WHERE o.relnamespace = 'public'::regnamespace AND o.relkind IN ('r', 'p') AND NOT relation_is_a_known_shard(o.oid) AND ${notExtension('pg_class')}`,
    ],
    [
      'VIEW',
      `SELECT o.oid::regclass::text AS name FROM pg_class o WHERE o.relnamespace = 'public'::regnamespace AND o.relkind = 'v' AND ${notExtension('pg_class')}`,
    ],
    [
      'FUNCTION',
      `SELECT o.oid::regprocedure::text AS name FROM pg_proc o WHERE o.pronamespace = 'public'::regnamespace AND o.prokind = 'f' AND ${notExtension('pg_proc')}`,
    ],
    [
      'TYPE',
      `SELECT o.oid::regtype::text AS name FROM pg_type o WHERE o.typnamespace = 'public'::regnamespace AND o.typtype IN ('e', 'd') AND ${notExtension('pg_type')}`,
    ],
  ];
  for (const [kind, list] of kinds) {
    // a table dropped with CASCADE can take others (views, foreign keys) with it: IF EXISTS
    for (const { name } of (await client.query(list)).rows) await client.query(`DROP ${kind} IF EXISTS ${name} CASCADE`);
  }
}
await client.end();
console.log(`reset ${url.replace(/\/\/[^@]*@/, '//')}${citus ? ' (Citus: the extension kept)' : ''}`);
