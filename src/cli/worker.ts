// `loyalty worker`: only the job workers (webhook delivery, the outbox dispatcher, scheduled
// jobs), no HTTP; run as many as needed beside servers started with WORKERS=false. SIGTERM or
// SIGINT lets running jobs finish, then stops.
import type { Config } from '../config.js';
import { connect } from '../db/database.js';
import { startJobs } from '../jobs/queue.js';
import { createLogger, flushLogger } from '../observability/logger.js';

export async function runWorker(config: Config) {
  const logger = createLogger(config.LOG_LEVEL);
  const { db, database, close } = await connect(config, {
    onPoolError: (err) => logger.warn({ err: err.message }, 'database pool error'),
  });
  const jobs = await startJobs({ db, databaseUrl: database.url, config, logger });
  logger.info('worker running (no HTTP); stop with SIGTERM');
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  logger.info('finishing running jobs, then stopping');
  // running jobs get the queue's deadline (then go back to the queue); past ours, a job or query
  // that still holds on is left to the queue's expiry: it runs again elsewhere
  const stopped = (async () => {
    await jobs.stop();
    await close();
  })();
  await Promise.race([stopped, new Promise((r) => setTimeout(r, STOP_DEADLINE_MS).unref())]);
  await flushLogger(logger);
  process.exit(0);
}

const STOP_DEADLINE_MS = 25_000;
