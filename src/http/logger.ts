// Structured JSON logs (pino). Authorization headers and tokens are never logged; each
// request's line comes from plugins/request-log.ts.
import { type Logger, pino } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: undefined,
    redact: { paths: ['req.headers.authorization', '*.authorization', '*.key', '*.token', '*.admin_token'], censor: '[redacted]' },
  });
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
