// The whole HTTP surface: health checks and metrics, the public API (GraphQL + REST v1), the
// merchant admin GraphQL API and the admin app (/admin), the storefront panel's script, as one
// fetch function (tests) and one Node request listener.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Config, loadConfig } from '../config.js';
import type { Db } from '../db/client.js';
import { merchantNodes } from '../db/merchant-nodes.js';
import { AUTH_CHANNEL, listenTo, PROGRAM_CHANNEL } from '../db/notifications.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { tracedFetch, tracedListener } from '../observability/tracing.js';
import { ADMIN_APP_PATH, ADMIN_PATH, createAdminApi } from './admin.js';
import { DOCS_PATH, docs } from './docs.js';
import { HEALTH_PATH, healthz, METRICS_PATH, metrics, READY_PATH, readyz } from './health.js';
import { createPublicApi, OPENAPI_PATH } from './public.js';
import { createRateLimiter, type RateLimiter } from './rate-limiter.js';
import { openRedis } from './redis.js';
import { STOREFRONT_PATH, storefrontPanel } from './storefront-panel.js';

const under = (base: string, path: string) => path === base || path.startsWith(`${base}/`);
/** Which face answers a path: the admin API (bearer token), the admin app (/admin, sessions), or the public API. */
const faceOf = (path: string) => (under(ADMIN_PATH, path) ? 'admin' : under(ADMIN_APP_PATH, path) ? 'app' : 'public');

/** A fetch Response written to a Node response. */
export async function writeResponse(res: ServerResponse, response: Response) {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(await response.text());
}

export interface AppOptions {
  db: Db;
  /** The database's URL: its notifications (one connection for the app) keep the caches of API keys, storefronts and ended sessions fresh. */
  databaseUrl?: string;
  config?: Config;
  logger?: Logger;
  rateLimiter?: RateLimiter;
  /** Where the admin app's built files are (default admin-app/dist). */
  adminAppDist?: string;
}

export function createApp({
  db,
  databaseUrl,
  config = loadConfig(),
  logger = createLogger(config.LOG_LEVEL),
  rateLimiter,
  adminAppDist,
}: AppOptions) {
  // one connection for every counter of the app (main.ts has checked at start that it answers)
  const counts =
    config.RATE_LIMIT_PER_KEY > 0 ||
    config.RATE_LIMIT_PER_MERCHANT > 0 ||
    config.RATE_LIMIT_PER_SESSION > 0 ||
    config.RATE_LIMIT_PER_GUEST > 0 ||
    config.ADMIN_LOGIN_MAX_FAILURES > 0;
  const redis = config.REDIS_URL && counts ? openRedis(config.REDIS_URL, logger) : undefined;
  const limiter =
    rateLimiter ??
    createRateLimiter({
      perKey: config.RATE_LIMIT_PER_KEY,
      perMerchant: config.RATE_LIMIT_PER_MERCHANT,
      perSession: config.RATE_LIMIT_PER_SESSION,
      perGuest: config.RATE_LIMIT_PER_GUEST,
      windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
      redis,
    });
  const notifications = databaseUrl ? listenTo(databaseUrl, [AUTH_CHANNEL, PROGRAM_CHANNEL], logger) : undefined;
  // on a Citus coordinator, each merchant's requests enter at its worker (src/db/merchant-nodes.ts)
  const nodes =
    databaseUrl && config.CITUS_WORKER_ENTRY
      ? merchantNodes(db, databaseUrl, {
          poolMax: config.DB_POOL_MAX,
          pool: { preparedStatements: config.DB_PREPARED_STATEMENTS, pipelined: config.DB_PIPELINE },
          logger,
        })
      : undefined;
  const { yoga: publicApi, close: closePublicApi } = createPublicApi({ db, notifications, config, logger, rateLimiter: limiter, nodes });
  const { yoga: adminApi, app: adminApp, close: closeAdminApi } = createAdminApi({ db, config, logger, appDist: adminAppDist, redis });
  const faces = { admin: adminApi, app: adminApp, public: publicApi };

  /** Paths answered before either API: health, readiness, metrics, the API reference page, the storefront panel. */
  const operational = (path: string, authorization: string | null | undefined) =>
    path === HEALTH_PATH
      ? healthz()
      : path === READY_PATH
        ? readyz(db, { redis, notifications })
        : path === METRICS_PATH
          ? metrics(config.METRICS_TOKEN, authorization)
          : path === DOCS_PATH || path.startsWith(`${DOCS_PATH}/`)
            ? docs(path, OPENAPI_PATH)
            : path.startsWith(`${STOREFRONT_PATH}/`)
              ? storefrontPanel(path, config.NODE_ENV !== 'production')
              : undefined;

  return {
    async fetch(url: string, init?: RequestInit): Promise<Response> {
      const request = new Request(url, init);
      const path = new URL(url).pathname;
      return tracedFetch(
        request.method,
        path,
        async () => (await operational(path, request.headers.get('authorization'))) ?? faces[faceOf(path)].fetch(request),
      );
    },
    listener(req: IncomingMessage, res: ServerResponse) {
      const path = (req.url ?? '/').split('?')[0]!;
      const answer = operational(path, req.headers.authorization);
      if (answer) {
        void Promise.resolve(answer).then((response) => writeResponse(res, response));
        return;
      }
      return tracedListener(req, res, () => faces[faceOf(path)](req, res));
    },
    async close() {
      closePublicApi();
      await Promise.all([closeAdminApi(), limiter.close(), notifications?.close(), nodes?.close()]);
      await redis?.close();
    },
  };
}
