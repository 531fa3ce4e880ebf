// Redis (REDIS_URL) holds the rate-limit and admin sign-in lockout counters, so that several
// instances share them. It is never allowed to slow a request down: ioredis refuses a command
// at once while it is not connected (no offline queue, no retry of a command whose connection
// dropped), gives up on a command after COMMAND_TIMEOUT_MS, and drops a connection that hears
// nothing for SOCKET_TIMEOUT_MS after sending one; the limiters (rate-limiter.ts) then count
// in the process's own memory until Redis is back. Its going and coming back are logged once
// each (error, then warn), answered on /readyz and exported as loyalty_redis_up. At start,
// main.ts refuses to run on a REDIS_URL that does not answer (waitForRedis).
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '../observability/logger.js';
import { watchRedis } from '../observability/metrics.js';

/** The longest a request waits for one Redis command before its counters fall back to the process's own. */
const COMMAND_TIMEOUT_MS = 500;
/** A connection that has sent a command and heard nothing for this long is dropped (and reconnected). */
const SOCKET_TIMEOUT_MS = 1000;
const CONNECT_TIMEOUT_MS = 1000;
/** How long Redis has to answer at start before the server refuses to start. */
export const STARTUP_TIMEOUT_MS = 5000;

const OPTIONS: RedisOptions = {
  // not connected: a command fails at once (the limiter's in-memory insurance counts it) rather
  // than waiting in a queue for a reconnection
  enableOfflineQueue: false,
  // a command in flight when the connection drops fails at once too, not after reconnecting
  maxRetriesPerRequest: 0,
  commandTimeout: COMMAND_TIMEOUT_MS,
  // connected but silent (a frozen server, a dead network path): dropped, so the next commands
  // fail at once instead of each waiting out its timeout
  socketTimeout: SOCKET_TIMEOUT_MS,
  connectTimeout: CONNECT_TIMEOUT_MS,
  // reconnection: ioredis's default, exponential backoff capped at 5 s
};

/** The URL as it may be logged: without its password. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'redis://(unparsable URL)';
  }
}

export interface RedisLink {
  readonly client: Redis;
  /** The URL without its password. */
  readonly where: string;
  /** Connected and answering: the counters are Redis's (otherwise each process's own). */
  readonly up: boolean;
  /**
   * While the first connection is being made: settles when it is ready or has failed (within
   * CONNECT_TIMEOUT_MS, or COMMAND_TIMEOUT_MS once connected). The first requests wait for it
   * rather than count in memory while Redis has not been asked yet; none after.
   */
  readonly connecting: Promise<void> | undefined;
  close(): Promise<void>;
}

/**
 * One connection to REDIS_URL, shared by an app's limiters. Logs once when Redis cannot be
 * reached (at the first attempt or when a working connection is lost), and once when it is back.
 */
export function openRedis(url: string, logger: Logger): RedisLink {
  const where = redactRedisUrl(url);
  const client = new Redis(url, OPTIONS);
  let state: 'connecting' | 'up' | 'down' = 'connecting';
  let closing = false;
  let lastError: string | undefined;
  let settle!: () => void;
  let connecting: Promise<void> | undefined = new Promise<void>((resolve) => {
    settle = () => {
      connecting = undefined;
      resolve();
    };
  });
  const wentDown = () => {
    settle();
    if (state === 'down' || closing) return;
    state = 'down';
    logger.error(
      { redis: where, err: lastError ?? 'connection closed' },
      'Redis is unreachable: rate limits and admin sign-in lockouts are counted by this process alone until it is back',
    );
  };
  client.on('error', (err: Error) => {
    lastError = err.message;
    // a first connection that fails; a working one that fails also closes (below)
    if (state === 'connecting') wentDown();
  });
  client.on('close', wentDown);
  client.on('ready', () => {
    settle();
    if (state === 'down') logger.warn({ redis: where }, 'Redis is back: rate limits and admin sign-in lockouts are shared again');
    state = 'up';
    lastError = undefined;
  });
  const link: RedisLink = {
    client,
    where,
    get up() {
      return state === 'up';
    },
    get connecting() {
      return connecting;
    },
    async close() {
      closing = true;
      settle();
      unwatch();
      client.disconnect();
    },
  };
  const unwatch = watchRedis(link);
  return link;
}

/**
 * Resolves once Redis at `url` answers a PING, or rejects within about `timeoutMs` saying why
 * (refused, silent, not Redis, refused the password). Its own connection, tried once, then closed.
 */
export async function waitForRedis(url: string, timeoutMs = STARTUP_TIMEOUT_MS): Promise<void> {
  const client = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  // the connection's own error says more than the "Connection is closed." that follows it
  let cause: Error | undefined;
  client.on('error', (err: Error) => void (cause ??= err));
  try {
    await client.connect();
    await client.ping();
  } catch (err) {
    throw cause ?? err;
  } finally {
    client.disconnect();
  }
}
