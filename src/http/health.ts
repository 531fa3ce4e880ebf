// Liveness and readiness: /healthz answers while the process runs; /readyz only when the
// database answers and every migration folder is applied.
import type { Db } from '../db/client.js';
import { readMigrations } from '../db/schema-engine.js';

export const HEALTH_PATH = '/healthz';
export const READY_PATH = '/readyz';

export function healthz() {
  return Response.json({ status: 'ok' });
}

export async function readyz(db: Db) {
  try {
    const expected = (await readMigrations()).migrationDirectories.map((d) => d.path);
    const rows = await db.$queryRaw<{ migration_name: string }[]>`
      SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
    const applied = new Set(rows.map((r) => r.migration_name));
    const pending = expected.filter((name) => !applied.has(name));
    if (pending.length) return Response.json({ status: 'migrations_pending', pending }, { status: 503 });
    return Response.json({ status: 'ready' });
  } catch {
    return Response.json({ status: 'database_unavailable' }, { status: 503 });
  }
}
