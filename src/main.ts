// `npm start`: serve the public API (GraphQL + REST v1), the admin API and the admin app on PORT/HOST.
// The port is taken first; then migrations are applied, and a fresh embedded database gets a demo
// merchant and a printed Full Access key, so a newcomer can curl at once. What stops a start
// (a port in use, a database down or too busy, Redis silent) is one line on stderr, exit 1.
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import v8 from 'node:v8';
import { bootstrapDemo } from './cli/seed/first-start.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { connect } from './db/database.js';
import { findRunningEmbedded } from './db/embedded.js';
import { DatabaseStartError } from './db/errors.js';
import { createApp, writeResponse } from './http/app.js';
import { HEALTH_PATH, healthz, READY_PATH } from './http/health.js';
import { redactRedisUrl, STARTUP_TIMEOUT_MS, waitForRedis } from './http/redis.js';
import { startJobs } from './jobs/queue.js';
import { createLogger, flushLogger, type Logger } from './observability/logger.js';
import { startTracing } from './observability/tracing.js';

const SHUTDOWN_GRACE_MS = 10_000;

/** Sets a V8 flag at start unless node's command line gave it (`--name`, `--no-name`, `_` for `-`): that wins. */
function defaultV8Flag(name: string, setting: string) {
  const given = process.execArgv.some((arg) =>
    arg
      .replace(/_/g, '-')
      .replace(/^--no-/, '--')
      .startsWith(`--${name}`),
  );
  if (!given) v8.setFlagsFromString(setting);
}

/**
 * How far the old generation may grow past what the last full collection kept before the next
 * one (V8 picks 1.1-4× itself, near 4× for a heap this small). Under load the requests in
 * flight outlive a scavenge or two and are promoted, so at 4× a ~50 MB service swelled by
 * ~150 MB between full collections; at 1.3× it peaks ~50 MB lower for a collection every
 * second or two, which V8 marks concurrently. Read by V8 at each
 * full collection, so setting it at start takes effect.
 */
const HEAP_GROWING_PERCENT = 30;
defaultV8Flag('heap-growing-percent', `--heap-growing-percent=${HEAP_GROWING_PERCENT}`);

/**
 * Allocation-site pretenuring off: under concurrency every request's rows and result objects are
 * still in flight at a scavenge, so V8 learns to allocate them straight into the old generation,
 * and keeps doing so when the load falls. Measured with npm run bench: at concurrency 1
 * after busier rows the service then promoted ~630 KB a scavenge, ran a full collection a
 * second and paid 1.8 ms a scavenge; without pretenuring, 6 KB, none, and 0.4 ms.
 */
defaultV8Flag('allocation-site-pretenuring', '--no-allocation-site-pretenuring');

/**
 * Binds PORT on HOST before anything else is done: a port another process holds stops the start
 * in one line, before a database is created, a demo seeded or a key printed that could never be
 * used.
 */
async function bindPort(config: Config, handle: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createHttpServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, resolve);
  }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EADDRINUSE') {
      throw new ConfigError(
        `Port ${config.PORT} on ${config.HOST} is already in use (another process, or this server already running?): stop it, or set PORT to a free port`,
      );
    }
    if (err.code === 'EACCES') throw new ConfigError(`Not allowed to listen on port ${config.PORT}: set PORT to a port above 1023`);
    if (err.code === 'EADDRNOTAVAIL') throw new ConfigError(`HOST ${config.HOST} is not an address of this machine: correct HOST`);
    throw err;
  });
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = config.REQUEST_TIMEOUT_MS;
  server.headersTimeout = Math.min(config.REQUEST_TIMEOUT_MS, 60_000);
  return server;
}

/** The service once started: what answers, and what a stop closes. */
interface Service {
  app: ReturnType<typeof createApp>;
  logger: Logger;
  close(): Promise<void>;
  tracing: Awaited<ReturnType<typeof startTracing>>;
  /** The job workers (webhooks, daily expiry) unless WORKERS=false; `loyalty worker` runs only them. */
  jobs?: ReturnType<typeof startJobs>;
}

/** Everything after the port: Redis, the database (migrated), the first start's demo, the app. */
async function start(config: Config, base: string): Promise<Service> {
  // Redis holds the counters the instances share: one that does not answer stops start-up here,
  // rather than leaving every instance to count alone without a word
  if (config.REDIS_URL) {
    await waitForRedis(config.REDIS_URL, STARTUP_TIMEOUT_MS).catch((err: Error) => {
      throw new ConfigError(
        `REDIS_URL (${redactRedisUrl(config.REDIS_URL!)}) did not answer at start (${err.message.replace(/\.$/, '')}; allowed ${STARTUP_TIMEOUT_MS / 1000} s): start Redis, correct REDIS_URL, or unset it to keep the rate-limit counters in each process`,
      );
    });
  }
  const logger = createLogger(config.LOG_LEVEL);
  // opt-in: OTEL_EXPORTER_OTLP_ENDPOINT; started before the database client, so SQL is traced
  const tracing = await startTracing();
  if (tracing) logger.info({ endpoint: process.env.OTEL_EXPORTER_OTLP_ENDPOINT }, 'tracing to OTLP/HTTP');
  const { db, database, applied, close } = await connect(config, {
    // an idle connection's error: the pool replaces the connection
    onPoolError: (err) => logger.warn({ err: err.message }, 'database pool error'),
  });
  if (applied.length) logger.info({ migrations: applied }, 'applied migrations');

  if (database.embedded) {
    const demo = await bootstrapDemo(db);
    if (demo) {
      console.log(
        [
          '',
          `First start: created demo merchant "${demo.slug}" with a demo program.`,
          `  Full Access API key (shown once): ${demo.key}`,
          `  Admin token (shown once):         ${demo.admin_token}`,
          `  Try: curl -H "Authorization: Bearer ${demo.key}" ${base}/v1/rewards`,
          `  API reference: ${base}/docs`,
          `  Admin app:     ${base}/admin (sign in with the admin token above)`,
          '',
        ].join('\n'),
      );
    }
  }

  // Prisma's client loads its query compiler on its first query, ~100 ms of blocked event loop:
  // paid before answering, not by the first request that uses Prisma or by the idempotency purge
  // a minute in, which would stall every request in flight. Its
  // connection and module loads overlap building the app.
  const prismaLoaded = db.merchant.findFirst({ select: { id: true } });
  const app = createApp({ db, databaseUrl: database.url, config, logger });
  await prismaLoaded;
  return {
    app,
    logger,
    close,
    tracing,
    jobs: config.WORKERS ? startJobs({ db, databaseUrl: database.url, config, logger }) : undefined,
  };
}

async function main() {
  const config = loadConfig();
  if (!config.DATABASE_URL && (await findRunningEmbedded(config.DATA_DIR))) {
    throw new ConfigError(`The embedded database in ${config.DATA_DIR} is already in use by another process (is the server running?)`);
  }
  const started = Date.now();
  let service: Service | undefined;
  // requests still being handled: a client that hangs up closes its connection, not its
  // request's work, which must still find the database open
  let handling = 0;
  let allHandled: (() => void) | undefined;
  const server = await bindPort(config, (req, res) => {
    // while the service starts it is alive but not ready, and any other request waits for it
    const path = (req.url ?? '/').split('?')[0]!;
    if (!service && (path === HEALTH_PATH || path === READY_PATH)) {
      return void writeResponse(res, path === HEALTH_PATH ? healthz() : Response.json({ status: 'starting' }, { status: 503 }));
    }
    // a face's listener returns the promise of its handling, unless it finished at once
    const work = (service ? service.app.listener(req, res) : starting.then((s) => s.app.listener(req, res))) as
      | PromiseLike<unknown>
      | undefined;
    if (typeof work?.then !== 'function') return;
    handling += 1;
    const done = () => {
      if ((handling -= 1) === 0) allHandled?.();
    };
    work.then(done, done);
  });
  const base = `http://${config.HOST}:${(server.address() as AddressInfo).port}`;

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    // a start under way finishes first (a migration is never cut short); a failed one exits by itself
    const stopped = await starting.catch(() => undefined);
    if (!stopped) return;
    const { app, logger, close, tracing, jobs } = stopped;
    logger.info({ signal }, 'finishing in-flight requests, then stopping');
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // keep-alive connections become idle as their requests finish: close them as they do,
    // and give stragglers a deadline
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const deadline = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    await closed;
    clearInterval(sweep);
    clearTimeout(deadline);
    // every connection is closed, but a request whose client hung up may still be at work
    if (handling > 0) {
      await new Promise<void>((resolve) => {
        allHandled = resolve;
        setTimeout(resolve, SHUTDOWN_GRACE_MS).unref();
      });
    }
    // workers still starting are stopped once started (a failed start has nothing to stop)
    await (await jobs?.catch(() => undefined))?.stop();
    await app.close();
    await close();
    await tracing?.shutdown();
    await flushLogger(logger);
    process.exit(0);
  };
  const starting = start(config, base);
  // from the port on: a signal while the service starts, or answers while its workers start,
  // still stops everything and writes out the log lines held in the buffer
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  service = await starting;
  await service.jobs;
  const where = config.DATABASE_URL ? 'PostgreSQL' : `embedded database in ${config.DATA_DIR}`;
  service.logger.info(
    {
      database: where,
      redis: config.REDIS_URL ? redactRedisUrl(config.REDIS_URL) : 'none: counters in this process',
      ready_ms: Date.now() - started,
      paths: { rest: '/v1', graphql: '/graphql', admin: '/admin/graphql', admin_app: '/admin', openapi: '/v1/openapi.json', docs: '/docs' },
    },
    `Loyalty service listening on ${base}`,
  );
}

main().catch((err) => {
  console.error(err instanceof ConfigError || err instanceof DatabaseStartError ? err.message : err);
  process.exit(1);
});
