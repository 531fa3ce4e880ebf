// Every request gets an id (the caller's X-Request-Id when sane), answered in X-Request-Id
// and logged with the method, path, status, duration and client address when the answer leaves.
import { randomUUID } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../../observability/logger.js';
import { requestState } from '../request-state.js';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

export function useRequestLog(logger: Logger): Plugin {
  // the line holds only the fields below (no header, no token), so it skips the redaction every
  // other line goes through, which copies the object and re-reads its paths each time
  const lines = logger.child({}, { redact: [] });
  return {
    onRequest({ request, serverContext }) {
      const given = request.headers.get('x-request-id');
      requestState(serverContext).requestId = given && REQUEST_ID.test(given) ? given : randomUUID();
    },
    onResponse({ request, response, serverContext }) {
      const state = requestState(serverContext);
      const id = state.requestId;
      if (!id) return;
      response.headers.set('X-Request-Id', id);
      lines.info(
        {
          request_id: id,
          method: request.method,
          path: new URL(request.url).pathname,
          status: response.status,
          ms: Math.round((performance.now() - state.startedAt) * 10) / 10,
          client: state.client,
        },
        'request',
      );
    },
  };
}
