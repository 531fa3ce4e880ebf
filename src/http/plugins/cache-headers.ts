// Every answer says whether it may be cached, by one rule here. Answers of the API faces (REST,
// GraphQL) are about the caller, a secret key's merchant or a session's shopper, errors
// included: no cache may keep them (`private, no-store`). The one exception is a publishable
// storefront key's answer that read the public program without an error: the same for every
// visitor of the shop, so any cache may keep it briefly (`public, max-age`). A GET is cacheable
// by URL alone (APQ by hash, REST), so its answer also says it depends on the Authorization
// header (`Vary`): the key names the shop. A guest's answer depends on its Origin too (it is
// refused from an origin the shop does not allow, and granted CORS for that origin only).
// Any other answer that does not state its cacheability (the OpenAPI document and the admin
// app's files do) is not to be stored.
import type { Plugin } from 'graphql-yoga';
import { requestState } from '../request-state.js';

const PRIVATE = 'private, no-store';
/** How long a guest's read of the public program may be kept: a change shows within a minute. */
const GUEST_MAX_AGE_SECONDS = 60;

/** Adds `value` to a list header unless it is there already (CORS may have put `Origin`). */
function appendToken(headers: Headers, name: string, value: string) {
  const present =
    headers
      .get(name)
      ?.split(',')
      .map((v) => v.trim().toLowerCase()) ?? [];
  if (!present.includes(value.toLowerCase())) headers.append(name, value);
}

export function useCacheHeaders(): Plugin {
  return {
    onResultProcess({ result, serverContext }) {
      const state = requestState(serverContext);
      if (state.kind !== 'graphql' || state.principal?.kind !== 'guest') return;
      // a guest can run nothing but reads of the public program: an answer without errors is one
      state.publicAnswer =
        !Array.isArray(result) && !(Symbol.asyncIterator in result) && !(result as { errors?: unknown[] }).errors?.length;
    },
    onResponse({ request, response, serverContext }) {
      const state = requestState(serverContext);
      const headers = response.headers;
      if (state.kind === 'rest' || state.kind === 'graphql') {
        const shared = state.publicAnswer === true && response.status === 200;
        headers.set('Cache-Control', shared ? `public, max-age=${GUEST_MAX_AGE_SECONDS}` : PRIVATE);
        if (shared || request.method === 'GET' || request.method === 'HEAD') appendToken(headers, 'Vary', 'Authorization');
        if (shared) appendToken(headers, 'Vary', 'Origin');
      } else if (!headers.has('Cache-Control')) {
        headers.set('Cache-Control', 'no-store');
      }
    },
  };
}
