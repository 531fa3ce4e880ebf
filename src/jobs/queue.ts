// The job queue (pg-boss 10, in the service's own database: the embedded one or PostgreSQL)
// and the workers: webhook delivery, the outbox dispatcher, and every scheduled job of the
// registry (schedules.ts). The server runs them unless WORKERS=false; `loyalty worker` runs
// only them. stop() lets running jobs finish (up to a deadline), then returns the others to
// the queue (pg-boss fails them into their retry), so nothing is lost.
import pg from 'pg';
import PgBoss from 'pg-boss';
import type { Config } from '../config.js';
import { applicationNames } from '../db/application-names.js';
import type { Db } from '../db/client.js';
import { type AttemptOptions, attemptDelivery, deliveryMerchant, dispatchOutbox, type Enqueue } from '../domain/webhooks/deliveries.js';
import { postWebhook } from '../domain/webhooks/send.js';
import type { Logger } from '../observability/logger.js';
import { watchJobs, webhookDeliveries } from '../observability/metrics.js';
import { ensureQueue, inSetupTurn } from './queue-setup.js';
import { workEstimates } from './rate-estimates.js';
import { workReplays } from './replay.js';
import { schedules } from './schedules.js';

const DELIVERY_QUEUE = 'webhook-delivery';
const SCHEMA = 'pgboss';
/** Enough retries for the window: the window itself (attemptDelivery) decides when to give up. */
const DELIVERY_RETRY_LIMIT = 40;
const DELIVERY_WORKERS = 4;
const STOP_DEADLINE_MS = 15_000;

/** A delivery job's data. */
interface DeliveryJob {
  delivery_id: string;
  merchant_id?: string;
}

export interface JobsOptions {
  db: Db;
  databaseUrl: string;
  config: Config;
  logger: Logger;
  /**
   * pg-boss housekeeping (expired jobs back to retry, archiving) every this many seconds: one
   * instance does it each time (pg-boss takes turns through the database), a few statements.
   * It bounds how long a delivery cut off by a crash waits for its retry.
   */
  maintenanceSeconds?: number;
}

export interface JobsRuntime {
  boss: PgBoss;
  /** One dispatcher pass now (tests; the loop runs by itself). */
  dispatch(): Promise<{ events: number; queued: number; more: boolean }>;
  /** graceful (default): finish running jobs first; otherwise return them to the queue at once. */
  stop(opts?: { graceful?: boolean }): Promise<void>;
}

export async function startJobs({ db, databaseUrl, config, logger, maintenanceSeconds = 20 }: JobsOptions): Promise<JobsRuntime> {
  const log = logger.child({ component: 'jobs' });
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: SCHEMA,
    max: 4,
    application_name: applicationNames.jobs,
    maintenanceIntervalSeconds: maintenanceSeconds,
  });
  boss.on('error', (err) => log.error({ err: err.message }, 'job queue error'));
  await boss.start();

  // the dispatcher's own connection: its transactions hold the events, deliveries and jobs
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    application_name: applicationNames.dispatcher,
    max: 1,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  pool.on('error', (err) => log.warn({ err: err.message }, 'dispatcher connection error'));

  const deliveryQueue = {
    name: DELIVERY_QUEUE,
    retryLimit: DELIVERY_RETRY_LIMIT,
    retryDelay: config.WEBHOOK_RETRY_DELAY_SECONDS,
    retryBackoff: true,
    // a delivery whose process died is retried once this has passed since it started (and
    // housekeeping has run): the post gives up after WEBHOOK_TIMEOUT_MS, and recording its
    // outcome takes milliseconds, so 10 s more never cuts off a delivery that is still running
    expireInSeconds: Math.ceil(config.WEBHOOK_TIMEOUT_MS / 1000) + 10,
  };

  let stopped = false;
  /**
   * A job a worker fetched just as stop() began (its fetch still on the way) is not started:
   * it fails into its retry, or, once the queue has closed, waits for its expiry, as after a crash.
   */
  const unlessStopped =
    <A extends unknown[]>(handler: (...args: A) => Promise<void>) =>
    async (...args: A) => {
      if (stopped) throw new Error('the workers are stopping');
      await handler(...args);
    };

  const polling = { pollingIntervalSeconds: config.JOBS_POLL_SECONDS };
  const deliver = unlessStopped(async ([job]: PgBoss.JobWithMetadata<DeliveryJob>[]) => {
    if (!job) return;
    const deliveryId = job.data.delivery_id;
    // a job queued by a version whose jobs name no merchant: its delivery found by id alone, so none is lost on upgrade
    const merchantId = job.data.merchant_id ?? (await deliveryMerchant(db, deliveryId));
    const attempt: AttemptOptions = {
      windowMs: config.WEBHOOK_RETRY_WINDOW_SECONDS * 1000,
      lastTry: job.retryCount >= job.retryLimit,
      jobId: job.id,
      send: (req) => postWebhook({ ...req, timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_URLS }),
    };
    const outcome = merchantId ? await attemptDelivery(db, { merchantId, deliveryId }, attempt) : 'skipped';
    webhookDeliveries.inc({ outcome });
    // the queue retries with backoff; the job's failure is the delivery's failed attempt
    if (outcome === 'retry') throw new Error(`delivery ${deliveryId} failed; retrying`);
  });

  // the queues created or brought up to date and their workers started, one runtime at a time
  const replays = await inSetupTurn(pool, async () => {
    await ensureQueue(boss, deliveryQueue);
    for (let i = 0; i < DELIVERY_WORKERS; i++) {
      await boss.work(DELIVERY_QUEUE, { ...polling, batchSize: 1, includeMetadata: true }, deliver);
    }

    const registered = new Set<string>();
    for (const job of schedules) {
      await ensureQueue(boss, { name: job.name, retryLimit: 2, retryDelay: 60, expireInSeconds: 3600 });
      await boss.schedule(job.name, job.cron(config), {}, { tz: 'UTC' });
      const run = unlessStopped(async () => {
        const started = Date.now();
        const result = await job.run({ db, config });
        log.info({ job: job.name, result, ms: Date.now() - started }, 'scheduled job done');
      });
      await boss.work(job.name, polling, run);
      registered.add(job.name);
    }
    const replays = await workReplays(boss, { db, polling, wrap: unlessStopped });
    await workEstimates(boss, { db, polling, wrap: unlessStopped });
    for (const old of await boss.getSchedules()) {
      if (!registered.has(old.name)) await boss.unschedule(old.name);
    }
    return replays;
  });

  const enqueue: Enqueue = async (jobs, client) => {
    await boss.insert(
      jobs.map((j) => {
        const data: DeliveryJob = { delivery_id: j.deliveryId, merchant_id: j.merchantId };
        return { id: j.jobId, name: DELIVERY_QUEUE, data, ...(j.startAfter ? { startAfter: j.startAfter } : {}) };
      }),
      { db: { executeSql: (text, values) => client.query(text, values) } },
    );
  };
  const dispatch = async () => {
    const client = await pool.connect();
    try {
      return await dispatchOutbox(client, enqueue, {
        onError: (merchantId, err) => log.warn({ merchantId, err: (err as Error).message }, 'webhook dispatch failed for a merchant'),
      });
    } finally {
      client.release();
    }
  };

  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (!stopped) {
      try {
        // again at once only after a full batch: a pass that took less has emptied the outbox
        // as it stood. Passing again whenever it found anything ran a transaction every few
        // events under steady writes, so they wait and go in batches
        if ((await dispatch()).more) continue;
      } catch (err) {
        if (!stopped) log.warn({ err: (err as Error).message }, 'webhook dispatcher pass failed');
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, config.WEBHOOK_DISPATCH_INTERVAL_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();

  watchJobs(async () => {
    const { rows } = await boss.getDb().executeSql(
      `SELECT name AS queue, state::text AS state, count(*)::int AS count FROM ${SCHEMA}.job
        WHERE state IN ('created', 'retry', 'active', 'failed') GROUP BY name, state`,
      [],
    );
    return rows as { queue: string; state: string; count: number }[];
  });
  log.info({ schedules: schedules.map((s) => `${s.name} (${s.cron(config)})`) }, 'job workers started');

  return {
    boss,
    dispatch,
    async stop({ graceful = true } = {}) {
      if (stopped) return;
      stopped = true;
      // a replay can run for minutes: it stops at the end of its page, as failed
      replays.stop();
      wake?.();
      await loop;
      watchJobs(undefined);
      await boss.stop({ graceful, wait: true, timeout: STOP_DEADLINE_MS });
      await pool.end();
    },
  };
}
