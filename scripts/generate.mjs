// `prisma generate`, offline. The Prisma CLI wants a native schema engine before it
// generates, and would download one; generate never runs it, so any existing file
// satisfies the check (src/db/schema-engine.ts applies migrations with the wasm build of
// that engine instead). The generated client is pure TS + wasm.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? fileURLToPath(import.meta.url),
  CHECKPOINT_DISABLE: '1',
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
};
const result = spawnSync('npx', ['--no-install', 'prisma', 'generate'], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
