// Telling a database that is down (unreachable, restarting) from one that is only busy (every
// connection taken for as long as a request may wait for one) among driver and Prisma errors.
// Both answer 503 service_unavailable and change nothing, in their own words: a client retries
// either, an operator looks for the database in one case and for load in the other.

/** What stands between a request and the database, if that is why it failed. */
export type DatabaseTrouble = 'down' | 'busy';

const DOWN_CODES = new Set([
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
]);

const BUSY_CODES = new Set([
  '53300', // too_many_connections: the server takes no more
  'P2024', // Prisma: timed out fetching a connection from the pool
]);

// ("timeout expired": a pg client's connection that did not open in its connectionTimeoutMillis)
const DOWN_MESSAGES =
  /ECONNREFUSED|ECONNRESET|Connection terminated|timeout expired|terminating connection|the database system is (starting up|shutting down)|connection timeout|Can't reach database|Client has encountered a connection error|server closed the connection|DatabaseNotReachable|Code: `(57P0[123]|08\d{3})`/i;

// every connection stayed busy for as long as a transaction may wait to start (Prisma's maxWait),
// or for as long as the pool lets a request queue for one (pg-pool's connectionTimeoutMillis:
// "timeout exceeded when trying to connect"; a new connection that does not open in that time is
// "Connection terminated due to connection timeout", the database's fault)
const BUSY_MESSAGES =
  /Unable to start a transaction in the given time|timeout exceeded when trying to connect|too many clients already|Code: `53300`/i;

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

const isDown = (e: ErrorFields) =>
  (typeof e.code === 'string' && DOWN_CODES.has(e.code)) ||
  e.kind === 'DatabaseNotReachable' ||
  e.kind === 'ConnectionClosed' ||
  (typeof e.message === 'string' && DOWN_MESSAGES.test(e.message));

const isBusy = (e: ErrorFields) =>
  (typeof e.code === 'string' && BUSY_CODES.has(e.code)) ||
  e.kind === 'TooManyConnections' ||
  (typeof e.message === 'string' && BUSY_MESSAGES.test(e.message));

/**
 * 'down' when the database could not be reached or went away, 'busy' when it was there but no
 * connection came free in time; undefined for any other failure. A failure showing both signs
 * is 'down': the queue for connections grows behind one that cannot open.
 */
export function databaseTrouble(err: unknown): DatabaseTrouble | undefined {
  if (anyCause(err, isDown)) return 'down';
  if (anyCause(err, isBusy)) return 'busy';
  return undefined;
}

/** A database that could not be opened at start, in one line that says which trouble and what to do. */
export class DatabaseStartError extends Error {
  constructor(
    readonly trouble: DatabaseTrouble,
    where: string,
    cause: unknown,
  ) {
    const why = (cause instanceof Error ? cause.message : String(cause)).split('\n')[0]!.replace(/\.$/, '');
    super(
      trouble === 'down'
        ? `${where} is unreachable (${why}): start it, or correct DATABASE_URL`
        : `${where} is too busy to take a connection (${why}): retry when its load has fallen, or raise its max_connections`,
    );
    this.name = 'DatabaseStartError';
  }
}

/**
 * A statement planned against shards that a Citus shard split has just replaced ("could not find
 * valid entry for shard"): seen for writes that waited for the split. Its transaction rolled
 * back, and the same request succeeds when sent again.
 */
export const isShardMoved = (err: unknown) =>
  anyCause(err, (e) => typeof e.message === 'string' && /could not find valid entry for shard/.test(e.message));
