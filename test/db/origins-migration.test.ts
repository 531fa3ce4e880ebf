// The migration that writes saved storefront origins as a browser sends them: an origin saved
// with its scheme's default port never matched a browser's Origin header.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPrisma, type Db } from '../../src/db/client.js';
import { startEmbedded } from '../../src/db/embedded.js';
import { applyMigrations } from '../../src/db/schema-engine.js';

let database: Awaited<ReturnType<typeof startEmbedded>>;
let db: Db;

beforeAll(async () => {
  database = await startEmbedded('memory');
  await applyMigrations(database.url, { through: '20261126150359_replay_jobs' });
  db = createPrisma(database.url, 1);
});

afterAll(async () => {
  await db?.$disconnect();
  await database?.close();
});

it('drops default ports from saved origins, once each, and leaves every other origin as it was', async () => {
  const saved = {
    withPorts: ['https://shop.example.com:443', 'https://shop.example.com', 'http://localhost:80', 'https://shop.example.com:8443'],
    untouched: ['https://other.example.com', 'http://127.0.0.1:3000'],
  };
  const ids: Record<string, string> = {};
  for (const [slug, origins] of Object.entries(saved)) {
    // rows as that migration's schema has them: the client's model is today's
    const id = randomUUID();
    ids[slug] = id;
    await db.$executeRaw`INSERT INTO merchants (id, slug, name, updated_at) VALUES (${id}::uuid, ${slug}, ${slug}, now())`;
    await db.$executeRaw`INSERT INTO storefront_settings (merchant_id, session_secret, allowed_origins, updated_at)
      VALUES (${id}::uuid, '\\x00'::bytea, ${origins}::text[], now())`;
  }
  await applyMigrations(database.url);
  const origins = async (slug: string) =>
    (await db.storefrontSettings.findUniqueOrThrow({ where: { merchantId: ids[slug]! } })).allowedOrigins.sort();
  expect(await origins('withPorts')).toEqual(['http://localhost', 'https://shop.example.com', 'https://shop.example.com:8443']);
  expect(await origins('untouched')).toEqual(saved.untouched.sort());
});
