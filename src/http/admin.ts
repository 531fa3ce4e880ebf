// The admin faces: the merchant admin schema, never exposed as REST, served twice from one
// schema and one set of request plugins (request log, rate limit per merchant, body limit,
// NUL check, Idempotency-Key, GraphQL limits):
// - /admin/graphql for servers and scripts, authenticated by `Authorization: Bearer <admin
//   token>`; it reads no cookie, so no other site's page can act through it;
// - the admin app (/admin: admin-app/): its pages, the session endpoint, and
//   /admin/app/graphql for the signed-in browser (session cookie + CSRF header, same origin).
// Failed sign-ins on either lock the client address (and the token prefix tried) out for a while.
import { createYoga, type Plugin } from 'graphql-yoga';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import { adminSchema } from '../graphql/admin.js';
import type { Context } from '../graphql/builder.js';
import { type Logger, yogaLogger } from '../observability/logger.js';
import { APP_DIST, useAppFiles } from './admin-app/files.js';
import { useAppHeaders } from './admin-app/headers.js';
import { useSameOrigin } from './admin-app/same-origin.js';
import { SESSION_PATH, useSessionAuth, useSessionEndpoint } from './admin-app/session.js';
import { forMerchant, maskError } from './errors.js';
import { invalidAdminToken, useAdminAuth } from './plugins/admin-auth.js';
import { useIdempotency } from './plugins/idempotency.js';
import { useRateLimit } from './plugins/rate-limit.js';
import { useRouting } from './plugins/routing.js';
import { createLockout, createRateLimiter } from './rate-limiter.js';
import type { RedisLink } from './redis.js';
import { requestPath } from './request-path.js';
import { requestState } from './request-state.js';

export const ADMIN_PATH = '/admin/graphql';
export const ADMIN_APP_PATH = '/admin';
const ADMIN_APP_GRAPHQL_PATH = '/admin/app/graphql';

export interface AdminApiOptions {
  db: Db;
  config: Config;
  logger: Logger;
  /** Where the admin app's built files are (default admin-app/dist). */
  appDist?: string;
  /** The app's connection to REDIS_URL, for the lockout and the request budget (none: in memory). */
  redis?: RedisLink;
}

export function createAdminApi({ db, config, logger, appDist = APP_DIST, redis }: AdminApiOptions) {
  const lockout = createLockout({
    maxFailures: config.ADMIN_LOGIN_MAX_FAILURES,
    windowSeconds: config.ADMIN_LOGIN_LOCKOUT_SECONDS,
    redis,
  });
  // each merchant's admin access (token or sessions) has the budget of an API key
  const limiter = createRateLimiter({
    perKey: config.RATE_LIMIT_PER_KEY,
    perMerchant: 0,
    windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
    redis,
  });
  const idempotency = useIdempotency(db, {
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
    onPurgeError: (err) => logger.warn({ err }, 'idempotency purge failed'),
  });
  const signIn = { db, lockout, logger };
  const policy = { idleSeconds: config.ADMIN_SESSION_IDLE_SECONDS, maxSeconds: config.ADMIN_SESSION_MAX_SECONDS };

  /** One admin face: `front` plugins authenticate (and serve what is not GraphQL); the rest is shared. */
  const adminYoga = (graphqlEndpoint: string, front: Plugin[], otherKind?: 'app') =>
    createYoga<object, Context>({
      schema: adminSchema,
      graphqlEndpoint,
      landingPage: false,
      graphiql: false,
      // useBody holds every body to BODY_LIMIT_BYTES before Yoga reads it (public.ts says why)
      maxRequestBodySize: false,
      // no page of another origin may call either face
      cors: false,
      logging: yogaLogger(logger),
      // the merchant reads these: the catalogue's sentences, the codes unchanged
      maskedErrors: { maskError: (error, message) => forMerchant(maskError(error, message)) },
      context: (initial): Context => {
        const { merchantId, actor } = requestState(initial);
        if (!merchantId) throw invalidAdminToken();
        return { db, merchantId, principal: null, config, actor };
      },
      plugins: requestPath({
        face: 'admin',
        config,
        logger,
        routing: useRouting({ graphqlPath: graphqlEndpoint, otherKind }),
        auth: front,
        rateLimit: useRateLimit(limiter, ({ merchantId }) => (merchantId ? { credential: `admin:${merchantId}`, merchantId } : undefined)),
        idempotency,
      }),
    });

  const isApi = (path: string) => path === SESSION_PATH || path.startsWith(`${SESSION_PATH}/`) || path === ADMIN_APP_GRAPHQL_PATH;
  const sessionEndpoint = useSessionEndpoint(signIn, policy);
  const yoga = adminYoga(ADMIN_PATH, [useAdminAuth(signIn)]);
  const app = adminYoga(
    ADMIN_APP_GRAPHQL_PATH,
    [useAppHeaders(), useSameOrigin(isApi), useAppFiles(appDist, isApi), sessionEndpoint, useSessionAuth(db, policy)],
    'app',
  );
  return {
    yoga,
    app,
    async close() {
      idempotency.stop();
      sessionEndpoint.stop();
      await Promise.all([lockout.close(), limiter.close()]);
    },
  };
}
