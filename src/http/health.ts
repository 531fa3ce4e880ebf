// The operator's endpoints. Liveness and readiness: /healthz answers while the process runs;
// /readyz only when the database answers and every migration folder is applied. It also says
// whether the database's notifications arrive and, with REDIS_URL, whether Redis answers, but
// neither being away makes the instance unready: 200 {"status":"degraded","redis":"down"}. The rate limits and lockouts then count per process
// (redis.ts), and every instance sees the same Redis, so a 503 would take every instance out of
// the load balancer together for a dependency the service can do without; the alert is
// loyalty_redis_up and the error logged. /metrics:
// Prometheus text, only for `Authorization: Bearer <METRICS_TOKEN>` (counts are business
// data), and absent (404) when no token is configured.
import { timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/client.js';
import { APPLIED_MIGRATIONS_SQL, unappliedOf } from '../db/schema-engine.js';
import { bearerToken } from '../domain/access/tokens.js';
import { AppError } from '../domain/shared/errors.js';
import { registry } from '../observability/metrics.js';
import { appErrorResponse } from './errors.js';
import type { RedisLink } from './redis.js';

export const HEALTH_PATH = '/healthz';
export const READY_PATH = '/readyz';
export const METRICS_PATH = '/metrics';

export function healthz() {
  return Response.json({ status: 'ok' });
}

/**
 * Ready: the database answers and is migrated. `redis` (REDIS_URL's connection) and
 * `notifications` (the caches' feed), when set, are reported, never required: either down is
 * 200 "degraded".
 */
export async function readyz(
  db: Db,
  { redis, notifications }: { redis?: Pick<RedisLink, 'up'>; notifications?: { readonly live: boolean } },
) {
  const dependencies = {
    ...(redis && { redis: redis.up ? 'up' : 'down' }),
    ...(notifications && { notifications: notifications.live ? 'up' : 'down' }),
  };
  const degraded = Object.values(dependencies).includes('down');
  try {
    const pending = await unappliedOf(await db.$queryRawUnsafe<{ migration_name: string }[]>(APPLIED_MIGRATIONS_SQL));
    if (pending.length) return Response.json({ status: 'migrations_pending', pending, ...dependencies }, { status: 503 });
    return Response.json({ status: degraded ? 'degraded' : 'ready', ...dependencies });
  } catch {
    return Response.json({ status: 'database_unavailable', ...dependencies }, { status: 503 });
  }
}

export async function metrics(token: string | undefined, authorization: string | null | undefined) {
  if (!token) return appErrorResponse(new AppError('not_found', 'No route GET /metrics'));
  const given = Buffer.from(bearerToken(authorization) ?? '');
  const expected = Buffer.from(token);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return appErrorResponse(new AppError('invalid_token', 'The metrics token is invalid'));
  }
  return new Response(await registry.metrics(), { headers: { 'Content-Type': registry.contentType } });
}
