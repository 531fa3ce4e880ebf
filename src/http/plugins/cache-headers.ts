// Every answer says whether it may be cached. Answers of the API faces (REST, GraphQL) are
// about the caller, a secret key's merchant or a session's shopper, errors included: no cache
// may keep them (`private, no-store`). A GET is cacheable by URL alone (APQ by hash, REST), so
// its answer also says it depends on the Authorization header (`Vary`), for a cache that
// ignores no-store. Any other answer that does not state its cacheability (the OpenAPI
// document and the admin app's files do) is not to be stored.
import type { Plugin } from 'graphql-yoga';
import { requestState } from '../request-state.js';

const PRIVATE = 'private, no-store';

/** Adds `value` to a list header unless it is there already (CORS may have put `Origin`). */
function appendToken(headers: Headers, name: string, value: string) {
  const present = headers.get(name)?.split(',').map((v) => v.trim().toLowerCase()) ?? [];
  if (!present.includes(value.toLowerCase())) headers.append(name, value);
}

export function useCacheHeaders(): Plugin {
  return {
    onResponse({ request, response, serverContext }) {
      const { face } = requestState(serverContext);
      const headers = response.headers;
      if (face === 'rest' || face === 'graphql') {
        headers.set('Cache-Control', PRIVATE);
        if (request.method === 'GET' || request.method === 'HEAD') appendToken(headers, 'Vary', 'Authorization');
      } else if (!headers.has('Cache-Control')) {
        headers.set('Cache-Control', 'no-store');
      }
    },
  };
}
