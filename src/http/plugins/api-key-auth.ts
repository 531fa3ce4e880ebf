// The public face's credential: `Authorization: Bearer <API key>` to its principal (merchant and
// scopes), or, on /graphql only, a customer session token (a JWT the merchant's backend minted
// for one shopper) to the session's principal, or a publishable storefront key to a guest
// (the public program only); otherwise 401 invalid_token. REST takes API keys only: a session
// there is 401, a publishable key 403 insufficient_scope (it is a valid key, for /graphql). The OpenAPI document and paths that are neither REST nor GraphQL need no key.
import type { Plugin } from 'graphql-yoga';
import { isSessionToken } from '../../domain/access/customer-sessions.js';
import type { KeyAuthenticator } from '../../domain/access/key-cache.js';
import type { GuestPrincipal, SessionPrincipal } from '../../domain/access/principal.js';
import { bearerToken } from '../../domain/access/tokens.js';
import { AppError } from '../../domain/shared/errors.js';
import { type MaybePromise, whenReady } from '../../domain/shared/maybe-promise.js';
import { isPublishableKey } from '../../domain/storefront/storefront-keys.js';
import { checkRequest } from './checks.js';

export type SessionAuthenticator = (token: string) => Promise<SessionPrincipal>;
export type GuestAuthenticator = (key: string) => MaybePromise<GuestPrincipal>;

export function useApiKeyAuth(keys: KeyAuthenticator, sessions: SessionAuthenticator, guests: GuestAuthenticator): Plugin {
  return {
    onRequest: checkRequest(({ request, state }) => {
      if (state.kind !== 'rest' && state.kind !== 'graphql') return;
      const header = request.headers.get('authorization');
      const token = bearerToken(header);
      if (token && isSessionToken(token)) {
        if (state.kind === 'rest') throw new AppError('invalid_token', 'REST needs an API key; customer sessions work on /graphql only');
        return sessions(token).then((principal) => void (state.principal = principal));
      }
      if (token && isPublishableKey(token)) {
        if (state.kind === 'rest') {
          throw new AppError(
            'insufficient_scope',
            'A publishable storefront key reads the public program over /graphql only; REST needs a secret API key',
          );
        }
        return whenReady(guests(token), (principal) => void (state.principal = principal));
      }
      return whenReady(keys.authenticate(header), (principal) => void (state.principal = principal));
    }),
  };
}
