// `npm run db:migration -- <name>`: writes the next prisma/migrations/<timestamp>_<name>/
// from the change to prisma/schema.prisma and to the webhook event types' SQL
// (src/domain/webhooks/events/). Each migration folder keeps the schema it was made from
// (schema.prisma beside migration.sql), so the diff is schema → schema through Prisma's wasm
// engine: no shadow database and no native engine needed. It keeps the event types' SQL too
// (events.sql): the statements of the types that changed since are appended (event-sql.ts).
// Review the SQL.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startEmbedded } from '../src/db/embedded.js';
import { migrationsDir, readSchema, withSchemaEngine } from '../src/db/schema-engine.js';
import { eventSqlMigration, eventSqlSnapshot, eventSqlUnits } from '../src/domain/webhooks/event-sql.js';

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error('usage: npm run db:migration -- <name>   (lowercase letters, digits, _)');
  process.exit(2);
}

const folders = (await readdir(migrationsDir, { withFileTypes: true }))
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();
const last = folders.at(-1);
const previous = last ? await readFile(path.join(migrationsDir, last, 'schema.prisma'), 'utf8') : undefined;
const current = await readSchema();
const previousEvents = last ? await readFile(path.join(migrationsDir, last, 'events.sql'), 'utf8').catch(() => undefined) : undefined;
const events = eventSqlUnits();
const eventsSql = eventSqlMigration(previousEvents, events);
const filters = { externalTables: [], externalEnums: [] };

// the engine connects to a database when it starts; a throwaway in-memory one will do
const scratch = await startEmbedded('memory');
const result = await withSchemaEngine(scratch.url, (engine) =>
  engine.diff({
    from: previous ? { tag: 'schemaDatamodel', files: [{ path: 'schema.prisma', content: previous }] } : { tag: 'empty' },
    to: { tag: 'schemaDatamodel', ...current },
    script: true,
    exitCode: null,
    filters,
  }),
);
await scratch.close();
const schemaSql = result.stdout ?? '';
const schemaChanged = !!schemaSql.trim() && !/^-- This is an empty migration/.test(schemaSql.trim());
if (!schemaChanged && !eventsSql) {
  console.log('No schema changes.');
  process.exit(0);
}
const sql = [schemaChanged ? schemaSql : '', eventsSql ? `${eventsSql}\n` : ''].filter(Boolean).join('\n');
const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
const folder = path.join(migrationsDir, `${stamp}_${name}`);
await mkdir(folder, { recursive: true });
await writeFile(path.join(folder, 'migration.sql'), sql);
await writeFile(path.join(folder, 'schema.prisma'), current.files[0]!.content);
await writeFile(path.join(folder, 'events.sql'), eventSqlSnapshot(events));
console.log(`Wrote ${path.relative(process.cwd(), folder)}/migration.sql:\n\n${sql}`);
