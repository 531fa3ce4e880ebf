// The admin face (/admin/graphql): the merchant admin schema, never exposed as REST,
// authenticated by the merchant's admin token. It shares the public face's request plugins
// (request log, rate limit, body limit, NUL check, GraphQL limits), and locks out a client
// address after repeated failed sign-ins.
import { GraphQLError } from 'graphql';
import { createYoga } from 'graphql-yoga';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import { errorStatus } from '../domain/shared/errors.js';
import { adminSchema } from '../graphql/admin.js';
import type { Context } from '../graphql/builder.js';
import { maskError, variableOf } from './errors.js';
import { type Logger, yogaLogger } from './logger.js';
import { invalidAdminToken, useAdminAuth } from './plugins/admin-auth.js';
import { useBody } from './plugins/body.js';
import { graphqlLimits } from './plugins/graphql-limits.js';
import { useRateLimit } from './plugins/rate-limit.js';
import { useRequestLog } from './plugins/request-log.js';
import { useRequestMetrics } from './plugins/request-metrics.js';
import { useRouting } from './plugins/routing.js';
import { createLockout, createRateLimiter } from './rate-limiter.js';
import { requestState } from './request-state.js';

export const ADMIN_PATH = '/admin/graphql';

/** As the public API, plus: a variable GraphQL cannot coerce is a validation_error naming it. */
function adminMaskError(error: unknown, message: string): Error {
  const masked = maskError(error, message);
  if (!(masked instanceof GraphQLError) || masked.extensions?.code) return masked;
  const variable = variableOf(masked.message);
  // amended in place: Yoga logs every error its mask replaces, and this one is the client's
  if (variable) {
    Object.assign(masked.extensions, {
      code: 'validation_error',
      details: { [variable]: [masked.message] },
      http: { status: errorStatus.validation_error },
    });
  }
  return masked;
}

export function createAdminApi({ db, config, logger }: { db: Db; config: Config; logger: Logger }) {
  const lockout = createLockout({
    maxFailures: config.ADMIN_LOGIN_MAX_FAILURES,
    windowSeconds: config.ADMIN_LOGIN_LOCKOUT_SECONDS,
    redisUrl: config.REDIS_URL,
  });
  // each admin token (one per merchant) has the budget of an API key
  const limiter = createRateLimiter({
    perKey: config.RATE_LIMIT_PER_KEY,
    perMerchant: 0,
    windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
    redisUrl: config.REDIS_URL,
  });
  const yoga = createYoga<object, Context>({
    schema: adminSchema,
    graphqlEndpoint: ADMIN_PATH,
    landingPage: false,
    graphiql: false,
    // server to server (and the same-origin admin app): no page of another origin may call it
    cors: false,
    logging: yogaLogger(logger),
    maskedErrors: { maskError: adminMaskError },
    context: (initial): Context => {
      const { merchantId } = requestState(initial);
      if (!merchantId) throw invalidAdminToken();
      return { db, merchantId, principal: null };
    },
    plugins: [
      useRequestLog(logger),
      useRequestMetrics('admin'),
      useRouting({ graphqlPath: ADMIN_PATH }),
      useAdminAuth(db, lockout, logger),
      useRateLimit(limiter, ({ merchantId }) => (merchantId ? { credential: `admin:${merchantId}`, merchantId } : undefined)),
      useBody(config.BODY_LIMIT_BYTES),
      ...graphqlLimits({ introspection: config.GRAPHQL_INTROSPECTION }),
    ],
  });
  return {
    yoga,
    async close() {
      await Promise.all([lockout.close(), limiter.close()]);
    },
  };
}
