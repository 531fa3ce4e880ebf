// Prisma's schema engine, as wasm. The native engine is a download the CLI cannot make
// offline, so migrations are applied and generated through this build of the same engine,
// which reads and writes the same migrations. The package entry imports the .wasm as an ES module,
// which Node 20 refuses, so we instantiate it ourselves.
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import type { MigrationList, SchemaEngine } from '@prisma/schema-engine-wasm';
import pg from 'pg';
import { projectRoot } from '../project-root.js';
import { splitStatements } from './sql-script.js';

const schemaPath = path.join(projectRoot, 'prisma/schema.prisma');
export const migrationsDir = path.join(projectRoot, 'prisma/migrations');

const require = createRequire(import.meta.url);
type Glue = typeof import('@prisma/schema-engine-wasm/schema_engine_bg');
/**
 * The glue module is one per process (Node's module cache) and keeps views of its instance's
 * memory, while this module may be evaluated again in the same process (a test runner's module
 * reset): a second instance bound to that glue would be read and written through the first
 * one's memory. So the instance is kept beside the glue, once per process.
 */
const WASM = Symbol.for('loyalty.schema-engine-wasm');
const processWide = globalThis as { [WASM]?: Promise<Glue> };

function loadWasm() {
  processWide[WASM] ??= (async () => {
    const bgPath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const bg = await import(pathToFileURL(bgPath).href);
    const bytes = await readFile(bgPath.replace(/\.js$/, '.wasm'));
    const { instance } = await WebAssembly.instantiate(bytes, { './schema_engine_bg.js': bg });
    bg.__wbg_set_wasm(instance.exports);
    (instance.exports as { __wbindgen_start: () => void }).__wbindgen_start();
    return bg as Glue;
  })();
  return processWide[WASM];
}

async function readMigrations(): Promise<MigrationList> {
  const entries = await readdir(migrationsDir, { withFileTypes: true }).catch(() => []);
  const dirs = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const lockPath = path.join(migrationsDir, 'migration_lock.toml');
  return {
    baseDir: migrationsDir,
    lockfile: { path: 'migration_lock.toml', content: await readFile(lockPath, 'utf8').catch(() => null) },
    shadowDbInitScript: '',
    migrationDirectories: await Promise.all(
      dirs.map(async (dir) => ({
        path: dir,
        migrationFile: {
          path: 'migration.sql',
          content: await readFile(path.join(migrationsDir, dir, 'migration.sql'), 'utf8').then(
            (value) => ({ tag: 'ok' as const, value }),
            (err: Error) => ({ tag: 'error' as const, value: err.message }),
          ),
        },
      })),
    ),
  };
}

export async function readSchema() {
  return { files: [{ path: schemaPath, content: await readFile(schemaPath, 'utf8') }] };
}

/**
 * The pg adapter runs a migration script by splitting it on every `;`, which cuts a
 * function body (`$$ … ; … $$`) apart. PostgreSQL runs a whole multi-statement script in one
 * simple query (as one implicit transaction), so send it whole, as the native engine does. A
 * Citus coordinator refuses a whole script that changes a distributed table (sql-script.ts):
 * there it runs statement by statement, in one transaction.
 */
class WholeScriptPg extends PrismaPg {
  override async connect() {
    const adapter = await super.connect();
    const internals = adapter as unknown as { client: pg.Pool; onError(err: unknown): never };
    adapter.executeScript = async (script: string) => {
      try {
        await runScript(internals.client, script);
      } catch (err) {
        internals.onError(err);
      }
    };
    return adapter;
  }
}

async function runScript(pool: pg.Pool, script: string) {
  const client = await pool.connect();
  try {
    const { rows } = await client.query(`SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS citus`);
    if (!rows[0].citus) return void (await client.query(script));
    await client.query('BEGIN');
    try {
      // one connection per worker for the whole migration, as `loyalty cluster distribute` does
      await client.query(`SET LOCAL citus.multi_shard_modify_mode = 'sequential'`);
      for (const statement of splitStatements(script)) await client.query(statement);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    }
  } finally {
    client.release();
  }
}

/** Runs `fn` with a schema engine connected to `connectionString`, then frees it. */
export async function withSchemaEngine<T>(connectionString: string, fn: (engine: SchemaEngine) => Promise<T>): Promise<T> {
  const bg = await loadWasm();
  const schema = await readSchema();
  const adapter = bindMigrationAwareSqlAdapterFactory(new WholeScriptPg({ connectionString, max: 2 }));
  const engine: SchemaEngine = await bg.SchemaEngine.new({ datamodels: schema.files.map((f) => [f.path, f.content]) }, () => {}, adapter);
  try {
    return await fn(engine);
  } finally {
    engine.free();
  }
}

const noFilter = { externalTables: [], externalEnums: [] };

/** Applies every pending migration folder (or those up to `through`); returns the names applied. */
export async function applyMigrations(connectionString: string, { through }: { through?: string } = {}): Promise<string[]> {
  const all = await readMigrations();
  const migrationsList = through ? { ...all, migrationDirectories: all.migrationDirectories.filter((d) => d.path <= through) } : all;
  return withSchemaEngine(connectionString, async (engine) => {
    const out = await engine.applyMigrations({ migrationsList, filters: noFilter });
    return out.appliedMigrationNames;
  });
}

export const APPLIED_MIGRATIONS_SQL =
  'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL';

/** Migration folders not among `applied`. */
export async function unappliedOf(applied: { migration_name: string }[]): Promise<string[]> {
  const done = new Set(applied.map((r) => r.migration_name));
  return (await readMigrations()).migrationDirectories.map((d) => d.path).filter((name) => !done.has(name));
}

/** Migration folders not recorded as applied (all of them when the table is missing). */
export async function pendingMigrations(connectionString: string): Promise<string[]> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await unappliedOf((await client.query<{ migration_name: string }>(APPLIED_MIGRATIONS_SQL)).rows);
  } catch {
    return unappliedOf([]); // no migrations table yet
  } finally {
    await client.end();
  }
}
