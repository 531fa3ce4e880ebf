// Recognising "the database is unreachable" among driver and Prisma errors, so the API
// answers 503 service_unavailable (and recovers by itself) instead of 500.
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '08000',
  '08001',
  '08003',
  '08006',
  'P1001', // Prisma: can't reach database server
  'P1002',
  'P1017', // Prisma: server closed the connection
  'P2024', // Prisma: timed out fetching a connection from the pool
]);

const CONNECTION_MESSAGES =
  /ECONNREFUSED|ECONNRESET|Connection terminated|terminating connection|the database system is (starting up|shutting down)|connection timeout|timeout exceeded when trying to connect|Can't reach database|Client has encountered a connection error|server closed the connection|DatabaseNotReachable|Code: `(57P0[123]|08\d{3})`/i;

export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 5) return false;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown; originalError?: unknown; kind?: unknown; meta?: unknown };
  if (typeof e.code === 'string' && CONNECTION_CODES.has(e.code)) return true;
  if (e.kind === 'DatabaseNotReachable' || e.kind === 'ConnectionClosed') return true;
  if (typeof e.message === 'string' && CONNECTION_MESSAGES.test(e.message)) return true;
  // Prisma keeps the driver's error under meta.driverAdapterError
  const adapterError = (e.meta as { driverAdapterError?: unknown } | undefined)?.driverAdapterError;
  return (
    isDatabaseUnavailable(e.cause, depth + 1) ||
    isDatabaseUnavailable(e.originalError, depth + 1) ||
    isDatabaseUnavailable(adapterError, depth + 1)
  );
}

/**
 * A statement planned against shards that a Citus shard split has just replaced ("could not find
 * valid entry for shard"): seen for writes that waited for the split. Its transaction rolled
 * back, and the same request succeeds when sent again.
 */
export function isShardMoved(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 5) return false;
  const e = err as { message?: unknown; cause?: unknown; meta?: unknown };
  if (typeof e.message === 'string' && /could not find valid entry for shard/.test(e.message)) return true;
  return isShardMoved(e.cause, depth + 1) || isShardMoved((e.meta as { driverAdapterError?: unknown } | undefined)?.driverAdapterError, depth + 1);
}
