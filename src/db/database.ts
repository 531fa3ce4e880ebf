// Opening the configured database, migrated and with a Prisma client: what the server and
// the CLI share. DATABASE_URL → that PostgreSQL; otherwise the embedded PGlite in DATA_DIR
// (or the running server's, when it already owns that directory).
import type { Config } from '../config.js';
import { createPrisma, type Db } from './client.js';
import { distribute } from './cluster.js';
import { type Database, openDatabase } from './embedded.js';
import { DatabaseStartError, databaseTrouble } from './errors.js';
import { applyMigrations, pendingMigrations } from './schema-engine.js';

/** Loading the wasm engine costs seconds; a quick look at _prisma_migrations usually spares it. */
async function migrateIfNeeded(url: string) {
  return (await pendingMigrations(url)).length ? applyMigrations(url) : [];
}

export interface OpenDb {
  db: Db;
  database: Database;
  applied: string[];
  close(): Promise<void>;
}

export async function connect(config: Config, opts: { migrate?: boolean; onPoolError?: (err: Error) => void } = {}): Promise<OpenDb> {
  const database = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
  try {
    const applied = opts.migrate === false ? [] : await migrateIfNeeded(database.url);
    database.markReady();
    // the embedded database is one PGlite session for every connection: one connection's named
    // statement would already exist, under the same name, for the next
    const db = createPrisma(database.url, config.DB_POOL_MAX, {
      onPoolError: opts.onPoolError,
      preparedStatements: config.DB_PREPARED_STATEMENTS && !database.embedded,
      // (one PGlite session answers one statement at a time whatever the connections)
      pipelined: config.DB_PIPELINE && !database.embedded,
    });
    // a table a migration adds is a plain table on a Citus coordinator until it is distributed
    // (a no-op elsewhere)
    if (applied.length)
      await distribute(db).catch(async (err: unknown) => {
        await db.$disconnect();
        throw err;
      });
    return {
      db,
      database,
      applied,
      async close() {
        await db.$disconnect();
        await database.close();
      },
    };
  } catch (err) {
    await database.close();
    const trouble = databaseTrouble(err);
    throw trouble ? new DatabaseStartError(trouble, whereIs(database), err) : err;
  }
}

/** Where the database is, as a start-up line names it: never its password. */
function whereIs(database: Database) {
  const url = new URL(database.url);
  return `The database at ${url.hostname}:${url.port || 5432}${url.pathname}`;
}
