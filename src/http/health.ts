// Liveness and readiness: /healthz answers while the process runs; /readyz only when the
// database answers and every migration folder is applied.
import type { Db } from '../db/client.js';
import { APPLIED_MIGRATIONS_SQL, unappliedOf } from '../db/schema-engine.js';

export const HEALTH_PATH = '/healthz';
export const READY_PATH = '/readyz';

export function healthz() {
  return Response.json({ status: 'ok' });
}

export async function readyz(db: Db) {
  try {
    const pending = await unappliedOf(await db.$queryRawUnsafe<{ migration_name: string }[]>(APPLIED_MIGRATIONS_SQL));
    if (pending.length) return Response.json({ status: 'migrations_pending', pending }, { status: 503 });
    return Response.json({ status: 'ready' });
  } catch {
    return Response.json({ status: 'database_unavailable' }, { status: 503 });
  }
}
