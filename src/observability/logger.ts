// Structured JSON logs (pino) on stdout, written asynchronously so a request never waits for
// the terminal or the pipe (main.ts flushes on shutdown). Lines are gathered up to 4 KiB and
// written together, and at least every 250 ms: one write per line cost each request a
// thread-pool write and two wake-ups (bench/README.md). Authorization headers and
// tokens are never logged; each request's line comes from plugins/request-log.ts.
import { type Logger, pino } from 'pino';

export type { Logger };

const BUFFER_BYTES = 4096;
const FLUSH_EVERY_MS = 250;

export function createLogger(level: string): Logger {
  // periodicFlush: a quiet service still shows its lines promptly (sonic-boom's own unref'd
  // timer). Not flush(callback) on a timer of ours: with a callback, sonic-boom also fsyncs
  // stdout, four disk syncs a second when it is a file
  const destination = pino.destination({ dest: 1, sync: false, minLength: BUFFER_BYTES, periodicFlush: FLUSH_EVERY_MS });
  return pino(
    {
      level,
      base: undefined,
      redact: { paths: ['req.headers.authorization', '*.authorization', '*.key', '*.token', '*.admin_token'], censor: '[redacted]' },
    },
    destination,
  );
}

/** Writes out what the asynchronous destination still holds. */
export function flushLogger(logger: Logger): Promise<void> {
  return new Promise((resolve) => logger.flush(() => resolve()));
}

/** Yoga's own log calls, routed to pino. */
export function yogaLogger(logger: Logger) {
  return {
    debug: (...args: unknown[]) => logger.debug({ args }, 'yoga'),
    info: (...args: unknown[]) => logger.info({ args }, 'yoga'),
    warn: (...args: unknown[]) => logger.warn({ args }, 'yoga'),
    error: (...args: unknown[]) => logger.error({ err: args[0] }, 'yoga error'),
  };
}
