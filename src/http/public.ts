// The public face: one Yoga serving the GraphQL schema at /graphql and, through SOFA, the
// REST v1 routes at /v1. The request passes the plugins in this order, each one concern;
// they run in onRequest, ahead of SOFA, because SOFA executes a prebuilt document that
// validation-phase plugins never see. So a request without a key is 401 and one without the
// scope 403, whatever its body.
import { useSofa } from '@graphql-yoga/plugin-sofa';
import type { GraphQLSchema } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import type { MerchantNodes } from '../db/merchant-nodes.js';
import type { NotificationFeed } from '../db/notifications.js';
import { invalidApiKey } from '../domain/access/api-keys.js';
import { verifyCustomerSession } from '../domain/access/customer-sessions.js';
import { endedSessions } from '../domain/access/ended-sessions.js';
import { keyAuthenticator } from '../domain/access/key-cache.js';
import { programCache } from '../domain/merchants/program.js';
import { guestPrincipal } from '../domain/storefront/storefront-keys.js';
import { storefrontCache } from '../domain/storefront/storefront-settings.js';
import type { Context } from '../graphql/builder.js';
import { restSchema, schema } from '../graphql/public.js';
import { type Logger, yogaLogger } from '../observability/logger.js';
import { maskError } from './errors.js';
import { useApiKeyAuth } from './plugins/api-key-auth.js';
import { useCompiledExecution } from './plugins/compiled-execution.js';
import { useIdempotency } from './plugins/idempotency.js';
import { usePartialData } from './plugins/partial-data.js';
import { persistedOperations } from './plugins/persisted-operations.js';
import { useRateLimit } from './plugins/rate-limit.js';
import { useResponseCache } from './plugins/response-cache.js';
import { useRestArguments } from './plugins/rest-arguments.js';
import { useRestScope } from './plugins/rest-scope.js';
import { useRouting } from './plugins/routing.js';
import { CORS_MAX_AGE_SECONDS, corsAllowedHeaders, corsExposedHeaders, storefrontCors } from './plugins/storefront-cors.js';
import type { RateLimiter } from './rate-limiter.js';
import { requestPath } from './request-path.js';
import { requestState } from './request-state.js';
import { restErrorHandler } from './rest/error-handler.js';
import { useOpenApiDocument } from './rest/openapi.js';
import { routeMatcher, sofaRoutes } from './rest/routes.js';

type SofaErrorHandler = NonNullable<Parameters<typeof useSofa>[0]['errorHandler']>;

/**
 * SOFA over `rest` (the public face without the graph's links) instead of the schema Yoga
 * serves: SOFA selects every field of a route's type, so a link would enter every answer.
 * Its documents run through this Yoga's execution all the same.
 */
function useSofaOver(rest: GraphQLSchema, config: Parameters<typeof useSofa>[0]): Plugin {
  const sofa = useSofa(config);
  return { ...sofa, onSchemaChange: (payload) => sofa.onSchemaChange?.({ ...payload, schema: rest }) };
}

const REST_BASE = '/v1';
const GRAPHQL_PATH = '/graphql';
export const OPENAPI_PATH = `${REST_BASE}/openapi.json`;

export interface PublicApiOptions {
  db: Db;
  /** The database's notifications, which keep cached API keys, storefronts and ended sessions fresh (none: no cache). */
  notifications?: NotificationFeed;
  config: Config;
  logger: Logger;
  rateLimiter: RateLimiter;
  /** Where each merchant's statements go (src/db/merchant-nodes.ts); none: all to `db`. */
  nodes?: MerchantNodes;
}

/** Browsers may call from the configured origins only; keys travel in a header, never cookies. */
function corsFor(origins: string[]) {
  if (origins.length === 0) return false;
  return {
    origin: origins,
    credentials: false,
    methods: ['GET', 'POST'],
    allowedHeaders: corsAllowedHeaders,
    exposedHeaders: corsExposedHeaders,
    maxAge: CORS_MAX_AGE_SECONDS,
  };
}

export function createPublicApi({ db, notifications, config, logger, rateLimiter, nodes }: PublicApiOptions) {
  const keys = keyAuthenticator(db, notifications);
  const storefronts = storefrontCache(db, notifications);
  const programs = programCache(db, notifications);
  const cors = storefrontCors({ db, storefronts, operatorOrigins: config.CORS_ORIGINS, graphqlPath: GRAPHQL_PATH });
  const ended = endedSessions(db, notifications, (err) => logger.warn({ err }, 'ended sessions purge failed'));
  const verifySession = (token: string) => verifyCustomerSession(token, storefronts.get, ended.has);
  const guest = (key: string) => guestPrincipal(key, storefronts.get);
  const sessionLimits = { defaultTtl: config.CUSTOMER_SESSION_TTL_SECONDS, maxTtl: config.CUSTOMER_SESSION_MAX_TTL_SECONDS };
  const idempotency = useIdempotency(db, {
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
    onPurgeError: (err) => logger.warn({ err }, 'idempotency purge failed'),
  });
  // the request's statements are all its merchant's: sent where the merchant lives
  const dbFor = (merchantId: string) => (nodes ? nodes.dbFor(merchantId) : Promise.resolve(db));
  const yoga = createYoga<object, Context>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    landingPage: false,
    graphiql: config.GRAPHIQL,
    // useBody holds every body to BODY_LIMIT_BYTES before Yoga reads it; Yoga's own limit would
    // pipe each body through a stream again (and keep it alive past the next scavenge)
    maxRequestBodySize: false,
    logging: yogaLogger(logger),
    maskedErrors: { maskError },
    cors: corsFor(config.CORS_ORIGINS),
    context: async (initial) => {
      const { principal, client } = requestState(initial);
      if (!principal) throw invalidApiKey();
      return {
        db: await dbFor(principal.merchantId),
        referenceDb: db,
        merchantId: principal.merchantId,
        principal,
        sessionLimits,
        verifySession,
        programs,
        clientAddress: client,
      };
    },
    plugins: requestPath({
      face: 'public',
      config,
      logger,
      routing: useRouting({
        graphqlPath: GRAPHQL_PATH,
        rest: { basePath: REST_BASE, match: routeMatcher(restSchema, REST_BASE), documentPath: OPENAPI_PATH },
      }),
      auth: [cors.preflight, useApiKeyAuth(keys, verifySession, guest), cors.actual],
      rateLimit: useRateLimit(rateLimiter),
      afterRateLimit: [useRestScope()],
      afterBody: [useRestArguments()],
      idempotency,
      documents: persistedOperations(storefronts),
      execution: [useCompiledExecution(), ...useResponseCache(config.RESPONSE_CACHE_BYTES, dbFor), usePartialData()],
      endpoints: [
        useOpenApiDocument(restSchema, REST_BASE),
        useSofaOver(restSchema, {
          basePath: REST_BASE,
          routes: sofaRoutes,
          // fets types its own Response class; ours is the platform's, which it accepts at run time
          errorHandler: restErrorHandler(logger) as unknown as SofaErrorHandler,
          openAPI: {
            info: {
              title: 'Loyalty Points Service REST API',
              version: '1.0.0',
              description: 'REST v1, derived from the public GraphQL schema',
            },
          },
        }),
      ],
    }),
  });
  return {
    yoga,
    close() {
      idempotency.stop();
      keys.close();
      storefronts.close();
      ended.close();
      programs.close();
    },
  };
}
