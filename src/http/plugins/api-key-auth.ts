// The public face's key: `Authorization: Bearer <API key>` to its principal (merchant and
// scopes), or 401 invalid_token. The OpenAPI document and paths that are neither REST nor
// GraphQL need no key.
import type { Plugin } from 'graphql-yoga';
import type { KeyAuthenticator } from '../../domain/access/key-cache.js';
import { checkRequest } from './checks.js';

export function useApiKeyAuth(keys: KeyAuthenticator): Plugin {
  return {
    onRequest: checkRequest(async ({ request, state }) => {
      if (state.face !== 'rest' && state.face !== 'graphql') return;
      state.principal = await keys.authenticate(request.headers.get('authorization'));
    }),
  };
}
