// Drops and recreates the public schema (and drops pg-boss's) of the database at argv[2] (test databases only).
import pg from 'pg';

const url = process.argv[2];
if (!url || !/\/test(\?|$)/.test(url)) {
  console.error('refusing to reset a database whose name is not "test"');
  process.exit(2);
}
const client = new pg.Client({ connectionString: url });
await client.connect();
// and the job queue's own schema (pg-boss creates it again)
await client.query('DROP SCHEMA IF EXISTS public CASCADE; DROP SCHEMA IF EXISTS pgboss CASCADE; CREATE SCHEMA public;');
await client.end();
console.log(`reset ${url.replace(/\/\/[^@]*@/, '//')}`);
