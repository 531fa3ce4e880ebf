// The first check of every request: what kind of request it is (RequestKind). A REST path must be one of the
// v1 routes (404 not_found, or 405 method_not_allowed with Allow); the OpenAPI document is
// public. The later plugins act on `state.kind` and, for REST, on `state.route`.
import type { Plugin } from 'graphql-yoga';
import { AppError } from '../../domain/shared/errors.js';
import { appErrorResponse } from '../errors.js';
import type { RouteMatcher } from '../rest/routes.js';
import { checkRequest } from './checks.js';

export interface RoutingOptions {
  graphqlPath: string;
  /** The kind of every other path (the admin app: 'app'). */
  otherKind?: 'app';
  rest?: { basePath: string; match: RouteMatcher; documentPath: string };
}

export function useRouting({ graphqlPath, otherKind, rest }: RoutingOptions): Plugin {
  const isRest = (path: string) => !!rest && (path === rest.basePath || path.startsWith(`${rest.basePath}/`));
  return {
    onRequest: checkRequest(({ request, url, state }) => {
      const path = url.pathname;
      if (path === graphqlPath) state.kind = 'graphql';
      else if (otherKind) state.kind = otherKind;
      if (!rest || !isRest(path)) return;
      if (path === rest.documentPath && request.method === 'GET') {
        state.kind = 'document';
        return;
      }
      state.kind = 'rest';
      const match = rest.match(request.method, path);
      if (match.kind === 'not_found') throw new AppError('not_found', `No route ${request.method} ${path}`);
      if (match.kind === 'method_not_allowed') {
        const refused = appErrorResponse(new AppError('method_not_allowed', `${request.method} is not allowed on ${path}`));
        refused.headers.set('Allow', match.allow.join(', '));
        return refused;
      }
      state.route = match;
    }),
  };
}
