// Prisma's schema engine runs in the process as wasm, behind a glue module Node loads once per
// process. A module reset (vi.resetModules, as a test of two instances in one process does)
// evaluates our schema-engine module again: it must keep driving the one instance the glue
// is bound to, or the engine reads another instance's memory and the migration never ends.
import { afterAll, expect, it, vi } from 'vitest';
import { startEmbedded } from '../../src/db/embedded.js';
import { applyMigrations } from '../../src/db/schema-engine.js';

const databases: Awaited<ReturnType<typeof startEmbedded>>[] = [];
const fresh = async () => {
  const database = await startEmbedded('memory');
  databases.push(database);
  return database.url;
};

afterAll(async () => {
  for (const database of databases) await database.close();
});

it('applies migrations after its module is evaluated again in the same process', async () => {
  const all = await applyMigrations(await fresh());
  vi.resetModules();
  const again = await import('../../src/db/schema-engine.js');
  expect(again.applyMigrations).not.toBe(applyMigrations);
  expect(await again.applyMigrations(await fresh())).toEqual(all);
});
