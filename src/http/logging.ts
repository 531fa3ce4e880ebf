// Structured JSON logs (pino) with a request id on every line and in the X-Request-Id
// response header. Authorization headers and tokens are never logged.
import { randomUUID } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import { type Logger, pino } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: undefined,
    redact: { paths: ['req.headers.authorization', '*.authorization', '*.key', '*.token', '*.admin_token'], censor: '[redacted]' },
  });
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;
const requestIds = new WeakMap<Request, string>();
const startTimes = new WeakMap<Request, number>();

export function requestIdOf(request: Request): string {
  return requestIds.get(request) ?? 'unknown';
}

/** Assigns the request id (the caller's X-Request-Id when sane) and logs each response. */
export function useRequestLogging(logger: Logger): Plugin {
  return {
    onRequest({ request }) {
      const given = request.headers.get('x-request-id');
      requestIds.set(request, given && REQUEST_ID.test(given) ? given : randomUUID());
      startTimes.set(request, performance.now());
    },
    onResponse({ request, response }) {
      const id = requestIdOf(request);
      response.headers.set('X-Request-Id', id);
      const url = new URL(request.url);
      logger.info(
        {
          request_id: id,
          method: request.method,
          path: url.pathname,
          status: response.status,
          ms: Math.round((performance.now() - (startTimes.get(request) ?? performance.now())) * 10) / 10,
        },
        'request',
      );
    },
  };
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
