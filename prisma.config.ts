import { defineConfig } from 'prisma/config';

// Prisma's CLI is used only for `generate` (offline; see scripts/generate.mjs).
// Migrations are applied by our own wasm-engine runner (src/db/migrate.ts).
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
