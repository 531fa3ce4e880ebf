// The HTTP face: one Yoga serving the public GraphQL schema at /graphql and, through
// SOFA, the REST v1 routes at /v1. Authentication and the route's scope are checked in
// onRequest, before SOFA parses arguments: an unauthenticated or unscoped request gets
// 401/403 whatever its body, and validation-phase plugins never see REST anyway.
import { useSofa } from '@graphql-yoga/plugin-sofa';
import { createYoga, type Plugin } from 'graphql-yoga';
import type { Db } from '../db/client.js';
import { type Principal, authenticate } from '../domain/api-keys.js';
import { AppError, validationError } from '../domain/errors.js';
import { type ScopeGrant, allows } from '../domain/scopes.js';
import { schema } from '../schema/index.js';
import type { Context } from '../schema/builder.js';
import { appErrorResponse, errorResponse, maskError, restErrorHandler, toGraphQLError } from './errors.js';
import { checkRestArguments } from './rest-args.js';
import { routeMatcher, sofaRoutes } from './routes.js';

type SofaErrorHandler = NonNullable<Parameters<typeof useSofa>[0]['errorHandler']>;

export const REST_BASE = '/v1';
export const GRAPHQL_PATH = '/graphql';
export const OPENAPI_PATH = `${REST_BASE}/openapi.json`;

export interface ServerOptions {
  db: Db;
}

function graphqlErrorResponse(err: AppError) {
  return Response.json({ errors: [toGraphQLError(err).toJSON()] }, { status: err.status });
}

/** Authenticates /v1 and /graphql requests; for REST also resolves the route and its scope. */
function useApiKeyAuth(db: Db, principals: WeakMap<Request, Principal>): Plugin {
  const matchRoute = routeMatcher(schema, REST_BASE);
  return {
    async onRequest({ request, url, endResponse }) {
      const isRest = url.pathname === REST_BASE || url.pathname.startsWith(`${REST_BASE}/`);
      if (!isRest && url.pathname !== GRAPHQL_PATH) return;
      if (url.pathname === OPENAPI_PATH && request.method === 'GET') return; // public documentation
      const match = isRest ? matchRoute(request.method, url.pathname) : undefined;
      if (match?.kind === 'not_found') {
        return endResponse(errorResponse(404, { code: 'not_found', message: `No route ${request.method} ${url.pathname}` }));
      }
      if (match?.kind === 'method_not_allowed') {
        return endResponse(
          errorResponse(
            405,
            { code: 'method_not_allowed', message: `${request.method} is not allowed on ${url.pathname}` },
            { Allow: match.allow.join(', ') },
          ),
        );
      }
      try {
        const principal = await authenticate(db, request.headers.get('authorization'));
        const scope = match?.route.scope as ScopeGrant | undefined;
        if (scope && !allows(principal.scopes, scope)) {
          throw new AppError('insufficient_scope', `This API key lacks the scope ${scope}`);
        }
        principals.set(request, principal);
        if (match?.kind === 'ok') {
          const details = await checkRestArguments(match.route.graphqlField, request, url, match.params);
          if (details) throw validationError(details);
        }
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        endResponse(isRest ? appErrorResponse(err) : graphqlErrorResponse(err));
      }
    },
  };
}

export function createServer({ db }: ServerOptions) {
  const principals = new WeakMap<Request, Principal>();
  return createYoga<object, Context>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    landingPage: false,
    maskedErrors: { maskError },
    context: ({ request }) => {
      const principal = principals.get(request);
      if (!principal) throw new AppError('invalid_token', 'The API key is invalid or revoked');
      return { db, principal };
    },
    plugins: [
      useApiKeyAuth(db, principals),
      useSofa({
        basePath: REST_BASE,
        routes: sofaRoutes,
        // fets types its own Response class; ours is the platform's, which it accepts at run time
        errorHandler: restErrorHandler as unknown as SofaErrorHandler,
        openAPI: {
          info: {
            title: 'Loyalty Points Service REST API',
            version: '1.0.0',
            description: 'REST v1, derived from the public GraphQL schema',
          },
        },
      }),
    ],
  });
}
