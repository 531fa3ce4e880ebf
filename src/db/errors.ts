// Recognising "the database is unreachable" (or too busy to take another transaction) among
// driver and Prisma errors, so the API answers 503 service_unavailable (and recovers by itself)
// instead of 500.
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

// every connection stayed busy for as long as a transaction may wait to start (Prisma's maxWait)
const BUSY_MESSAGES = /Unable to start a transaction in the given time/;

const CONNECTION_MESSAGES =
  /ECONNREFUSED|ECONNRESET|Connection terminated|terminating connection|the database system is (starting up|shutting down)|connection timeout|timeout exceeded when trying to connect|Can't reach database|Client has encountered a connection error|server closed the connection|DatabaseNotReachable|Code: `(57P0[123]|08\d{3})`/i;

/**
 * Whether `test` holds for `err` or an error it wraps: its cause, GraphQL's originalError, or the
 * driver's error, which Prisma keeps under meta.driverAdapterError.
 */
function anyCause(err: unknown, test: (e: ErrorFields) => boolean, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 5) return false;
  const e = err as ErrorFields;
  if (test(e)) return true;
  const adapterError = (e.meta as { driverAdapterError?: unknown } | undefined)?.driverAdapterError;
  return [e.cause, e.originalError, adapterError].some((inner) => anyCause(inner, test, depth + 1));
}

interface ErrorFields {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  originalError?: unknown;
  kind?: unknown;
  meta?: unknown;
}

export const isDatabaseUnavailable = (err: unknown) =>
  anyCause(
    err,
    (e) =>
      (typeof e.code === 'string' && CONNECTION_CODES.has(e.code)) ||
      e.kind === 'DatabaseNotReachable' ||
      e.kind === 'ConnectionClosed' ||
      (typeof e.message === 'string' && (CONNECTION_MESSAGES.test(e.message) || BUSY_MESSAGES.test(e.message))),
  );

/**
 * A statement planned against shards that a Citus shard split has just replaced ("could not find
 * valid entry for shard"): seen for writes that waited for the split. Its transaction rolled
 * back, and the same request succeeds when sent again.
 */
export const isShardMoved = (err: unknown) =>
  anyCause(err, (e) => typeof e.message === 'string' && /could not find valid entry for shard/.test(e.message));
