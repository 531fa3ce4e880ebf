// Every request gets an id (the caller's X-Request-Id when sane), answered in X-Request-Id
// and logged with the method, path, status and duration when the answer leaves. Keyed by
// the server context, which lives as long as the request (the Request object may be
// replaced on the way).
import { randomUUID } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../logger.js';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

export function useRequestLog(logger: Logger): Plugin {
  const started = new WeakMap<object, { id: string; at: number }>();
  return {
    onRequest({ request, serverContext }) {
      const given = request.headers.get('x-request-id');
      started.set(serverContext, { id: given && REQUEST_ID.test(given) ? given : randomUUID(), at: performance.now() });
    },
    onResponse({ request, response, serverContext }) {
      const entry = started.get(serverContext);
      if (!entry) return;
      response.headers.set('X-Request-Id', entry.id);
      logger.info(
        {
          request_id: entry.id,
          method: request.method,
          path: new URL(request.url).pathname,
          status: response.status,
          ms: Math.round((performance.now() - entry.at) * 10) / 10,
        },
        'request',
      );
    },
  };
}
