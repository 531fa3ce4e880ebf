// Structured JSON logs (pino) on stdout, written asynchronously so a request never waits for
// the terminal or the pipe (main.ts flushes on shutdown). Authorization headers and tokens
// are never logged; each request's line comes from plugins/request-log.ts.
import { type Logger, pino } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: undefined,
    redact: { paths: ['req.headers.authorization', '*.authorization', '*.key', '*.token', '*.admin_token'], censor: '[redacted]' },
  }, pino.destination({ dest: 1, sync: false }));
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
