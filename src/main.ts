// `npm start`: serve the public API (GraphQL + REST v1) and the admin API on PORT/HOST.
// Migrations are applied at start; a fresh embedded database gets a demo merchant and
// a printed Full Access key, so a newcomer can curl at once.
import { createServer as createHttpServer } from 'node:http';
import { ConfigError, loadConfig } from './config.js';
import { connect } from './db/database.js';
import { findRunningEmbedded } from './db/embedded.js';
import { bootstrapDemo } from './cli/seed/first-start.js';
import { createApp } from './http/app.js';
import { createLogger } from './http/logging.js';

const SHUTDOWN_GRACE_MS = 10_000;

async function main() {
  const config = loadConfig();
  if (!config.DATABASE_URL && (await findRunningEmbedded(config.DATA_DIR))) {
    throw new ConfigError(`The embedded database in ${config.DATA_DIR} is already in use by another process (is the server running?)`);
  }
  const started = Date.now();
  const logger = createLogger(config.LOG_LEVEL);
  const { db, database, applied, close } = await connect(config, {
    // an idle connection's error: the pool replaces the connection
    onPoolError: (err) => logger.warn({ err: err.message }, 'database pool error'),
  });
  if (applied.length) console.log(`Applied migrations: ${applied.join(', ')}`);

  if (database.embedded) {
    const demo = await bootstrapDemo(db);
    if (demo) {
      console.log(
        [
          '',
          `First start: created demo merchant "${demo.slug}" with a demo program.`,
          `  Full Access API key (shown once): ${demo.key}`,
          `  Admin token (shown once):         ${demo.admin_token}`,
          `  Try: curl -H "Authorization: Bearer ${demo.key}" http://${config.HOST}:${config.PORT}/v1/rewards`,
          '',
        ].join('\n'),
      );
    }
  }

  const app = createApp({ db, config, logger });
  const server = createHttpServer(app.listener);
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = config.REQUEST_TIMEOUT_MS;
  server.headersTimeout = Math.min(config.REQUEST_TIMEOUT_MS, 60_000);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, resolve);
  });
  const where = database.embedded ? `embedded database in ${config.DATA_DIR}` : 'PostgreSQL';
  console.log(`Loyalty service listening on http://${config.HOST}:${config.PORT} (${where}, ready in ${Date.now() - started} ms)`);
  console.log(`  REST v1: /v1   GraphQL: /graphql   Admin GraphQL: /admin/graphql   OpenAPI: /v1/openapi.json`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: finishing in-flight requests`);
    const closed = new Promise<void>((resolve) => server.once('close', resolve));
    server.close();
    // keep-alive connections become idle as their requests finish: close them as they do,
    // and give stragglers a deadline
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const deadline = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    await closed;
    clearInterval(sweep);
    clearTimeout(deadline);
    await app.close();
    await close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
