// Migrates once per run. With TEST_DATABASE_URL the files share that PostgreSQL (each
// works in its own merchants); otherwise each file starts an in-memory PGlite from the
// migrated snapshot written here, which saves every file from migrating again. Builds dist/
// and the admin app first when their sources changed: the tests that start the server or the
// CLI as their own processes run the bundles, as operators do, and the browser tests drive
// the built app. On a Citus coordinator the migrated tables are then distributed, as
// `loyalty migrate` does. The few files that need a database of their own copy a template
// migrated here (own-database.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildIfStale } from '../scripts/build.mjs';
import { createPrisma } from '../src/db/client.js';
import { distribute } from '../src/db/cluster.js';
import { startEmbedded } from '../src/db/embedded.js';
import { applyMigrations } from '../src/db/schema-engine.js';
import { prepareOwnDatabases } from './own-database.js';

export const SNAPSHOT = path.resolve(import.meta.dirname, '../node_modules/.cache/loyalty-test/pglite.tar.gz');

export default async function setup() {
  buildIfStale();
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    await applyMigrations(url);
    await prepareOwnDatabases(url);
    const db = createPrisma(url, 1);
    try {
      const started = Date.now();
      const result = await distribute(db);
      if (result.distributed && result.tables.length) {
        console.log(
          `Citus: ${result.tables.length} tables distributed, ${result.reference.length} reference tables (${Date.now() - started} ms)`,
        );
      }
    } finally {
      await db.$disconnect();
    }
    return;
  }
  const database = await startEmbedded('memory');
  try {
    await applyMigrations(database.url);
    const dump = await database.pglite!.dumpDataDir('gzip');
    mkdirSync(path.dirname(SNAPSHOT), { recursive: true });
    writeFileSync(SNAPSHOT, Buffer.from(await dump.arrayBuffer()));
  } finally {
    await database.close();
  }
}
