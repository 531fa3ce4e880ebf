// The public face's credential: `Authorization: Bearer <API key>` to its principal (merchant and
// scopes), or, on /graphql only, a customer session token (a JWT the merchant's backend minted
// for one shopper) to the session's principal; otherwise 401 invalid_token. REST takes API
// keys only. The OpenAPI document and paths that are neither REST nor GraphQL need no key.
import type { Plugin } from 'graphql-yoga';
import type { SessionPrincipal } from '../../domain/access/principal.js';
import { isSessionToken } from '../../domain/access/customer-sessions.js';
import type { KeyAuthenticator } from '../../domain/access/key-cache.js';
import { bearerToken } from '../../domain/access/tokens.js';
import { AppError } from '../../domain/shared/errors.js';
import { whenReady } from '../../domain/shared/maybe-promise.js';
import { checkRequest } from './checks.js';

export type SessionAuthenticator = (token: string) => Promise<SessionPrincipal>;

export function useApiKeyAuth(keys: KeyAuthenticator, sessions: SessionAuthenticator): Plugin {
  return {
    onRequest: checkRequest(({ request, state }) => {
      if (state.face !== 'rest' && state.face !== 'graphql') return;
      const header = request.headers.get('authorization');
      const token = bearerToken(header);
      if (token && isSessionToken(token)) {
        if (state.face === 'rest') throw new AppError('invalid_token', 'REST needs an API key; customer sessions work on /graphql only');
        return sessions(token).then((principal) => void (state.principal = principal));
      }
      return whenReady(keys.authenticate(header), (principal) => void (state.principal = principal));
    }),
  };
}
