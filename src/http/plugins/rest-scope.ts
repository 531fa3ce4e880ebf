// REST: the route's scope, read from its root field's authScopes, so a key without it is
// 403 insufficient_scope whatever its arguments (GraphQL checks scopes per field instead).
import type { Plugin } from 'graphql-yoga';
import { allows } from '../../domain/access/scopes.js';
import { AppError } from '../../domain/shared/errors.js';
import { checkRequest } from './checks.js';

export function useRestScope(): Plugin {
  return {
    onRequest: checkRequest(({ state }) => {
      const scope = state.route?.route.scope;
      if (scope && state.principal && !allows(state.principal.scopes, scope)) {
        throw new AppError('insufficient_scope', `This API key lacks the scope ${scope}`);
      }
    }),
  };
}
