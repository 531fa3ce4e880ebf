// The redemption rate estimate's queue (domain/finance/rate-estimates.ts): one job per merchant,
// carrying its id, queued each night for every merchant, when the merchant asks, and when a
// valuation finds none. The queue's 'short' policy keeps at most one job of a merchant waiting
// (its id is the job's singleton key): asking again while one waits adds nothing.
import PgBoss from 'pg-boss';
import type { Db } from '../db/client.js';
import { computeRedemptionRateEstimate, type EnqueueEstimate } from '../domain/finance/rate-estimates.js';
import { AppError } from '../domain/shared/errors.js';
import { ensureQueue, type QueueWorkers } from './queue-setup.js';

const ESTIMATE_QUEUE = 'redemption-rate-estimate';
const SCHEMA = 'pgboss';
/** Jobs written per statement by the nightly run. */
const BATCH = 500;

interface EstimateJobData {
  merchant_id: string;
}

/** pg-boss, only to write jobs through the service's own client (never started: no connection of its own). */
const writer = new PgBoss({ schema: SCHEMA, db: { executeSql: async () => ({ rows: [] }) } });

/** Queues the merchants' jobs; how many were added (a merchant's job already waiting is not). */
async function insertJobs(db: Db, merchantIds: string[]): Promise<number> {
  let inserted = 0;
  await writer.insert(
    merchantIds.map((id) => ({ name: ESTIMATE_QUEUE, data: { merchant_id: id } satisfies EstimateJobData, singletonKey: id })),
    {
      db: {
        executeSql: async (text: string, values: unknown[]) => {
          inserted = await db.$executeRawUnsafe(text, ...values);
          return { rows: [] };
        },
      },
    },
  );
  return inserted;
}

/** Whether the workers have created the queue (pg-boss's own tables are missing before they first start). */
async function queueExists(db: Db) {
  const reader = new PgBoss({
    schema: SCHEMA,
    db: { executeSql: async (text: string, values: unknown[]) => ({ rows: await db.$queryRawUnsafe<unknown[]>(text, ...values) }) },
  });
  return (await reader.getQueue(ESTIMATE_QUEUE).catch(() => null)) !== null;
}

/**
 * Binds the enqueue to a client: the merchant's request's. A job already waiting answers false;
 * a queue that does not exist yet (no worker ever started) is 503 when `required`, else nothing.
 */
export function estimateQueue(db: Db, { required }: { required: boolean }): EnqueueEstimate {
  return async (merchantId) => {
    // nothing is inserted into a queue that does not exist yet: the workers create it when they first start
    if (!(await queueExists(db))) {
      if (!required) return false;
      throw new AppError(
        'service_unavailable',
        'The job queue is not running: start the workers (loyalty worker, or the server without WORKERS=false)',
      );
    }
    return (await insertJobs(db, [merchantId])) === 1;
  };
}

/** Every merchant's job, for the nightly run. */
export async function queueEstimates(db: Db): Promise<{ merchants: number; queued: number }> {
  const merchants = (await db.merchant.findMany({ select: { id: true }, orderBy: { id: 'asc' } })).map((m) => m.id);
  let queued = 0;
  for (let i = 0; i < merchants.length; i += BATCH) queued += await insertJobs(db, merchants.slice(i, i + BATCH));
  return { merchants: merchants.length, queued };
}

/** The queue and its worker: one estimate at a time per process (each reads a whole ledger). */
export async function workEstimates(boss: PgBoss, { db, polling, wrap }: QueueWorkers) {
  const queue: PgBoss.Queue = { name: ESTIMATE_QUEUE, policy: 'short', retryLimit: 2, retryDelay: 60, expireInSeconds: 3600 };
  await ensureQueue(boss, queue);
  await boss.work(
    ESTIMATE_QUEUE,
    { ...polling, batchSize: 1 },
    wrap(async ([job]: PgBoss.Job<EstimateJobData>[]) => {
      if (job) await computeRedemptionRateEstimate(db, job.data.merchant_id);
    }),
  );
}
