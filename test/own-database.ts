// A database of a test file's own on the PostgreSQL server at TEST_DATABASE_URL, for the few
// files whose assertions read what every instance on a database does (the outbox's dispatch,
// the delivery workers, the events feed's counts): on the database the other files share,
// their instances dispatch and deliver this file's events meanwhile. It is a copy of a
// template migrated once per run (global-setup), dropped when the file ends. On a Citus
// coordinator it is a plain PostgreSQL database (Citus does not propagate CREATE DATABASE):
// these files test the service's own logic, which the shared database tests on the cluster.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { applyMigrations } from '../src/db/schema-engine.js';

const PREFIX = 'loyalty_own_';
const TEMPLATE = `${PREFIX}template`;

function withDatabase(url: string, name: string) {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function onServer<T>(url: string, run: (client: pg.Client) => Promise<T>) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** Once per run: the migrated template, and no database left behind by an earlier run. */
export async function prepareOwnDatabases(url: string) {
  await onServer(url, async (client) => {
    const { rows } = await client.query<{ name: string }>(`SELECT datname AS name FROM pg_database WHERE datname LIKE $1`, [`${PREFIX}%`]);
    for (const { name } of rows) await client.query(`DROP DATABASE "${name}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${TEMPLATE}"`);
  });
  await applyMigrations(withDatabase(url, TEMPLATE));
  // a copy needs the template alone: the migration's connections may linger a moment
  await onServer(url, (client) =>
    client.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [TEMPLATE]),
  );
}

/** A fresh copy of the template, and how to drop it. */
export async function ownDatabase(url: string) {
  const name = `${PREFIX}${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  await onServer(url, (client) => client.query(`CREATE DATABASE "${name}" TEMPLATE "${TEMPLATE}"`));
  return {
    url: withDatabase(url, name),
    close: () => onServer(url, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => {}),
  };
}
