// The what-if replay's queue (domain/finance/replay-jobs.ts): a job a merchant starts from the
// admin app, carrying the merchant's id; its pg-boss id is the replay job's. Not retried: a
// replay cut off by its process's end reads as failed, and the merchant starts it again.
import PgBoss from 'pg-boss';
import { type EnqueueReplay, type ReplayJobData, runReplayJob } from '../domain/finance/replay-jobs.js';
import { AppError } from '../domain/shared/errors.js';
import { ensureQueue, type QueueWorkers } from './queue-setup.js';

const REPLAY_QUEUE = 'program-replay';
const SCHEMA = 'pgboss';

/** pg-boss, only to write jobs through a caller's transaction (never started: no connection of its own). */
const writer = new PgBoss({ schema: SCHEMA, db: { executeSql: async () => ({ rows: [] }) } });

/** Queues a replay job in the transaction that records it. */
export const enqueueReplay: EnqueueReplay = async ({ id, merchantId }, tx) => {
  const data: ReplayJobData = { merchant_id: merchantId };
  let inserted = 0;
  try {
    await writer.insert([{ id, name: REPLAY_QUEUE, data }], {
      db: {
        executeSql: async (text: string, values: unknown[]) => {
          inserted = await tx.$executeRawUnsafe(text, ...values);
          return { rows: [] };
        },
      },
    });
  } catch {
    inserted = 0;
  }
  // nothing is inserted into a queue that does not exist yet: the workers create it when they first start
  if (inserted !== 1)
    throw new AppError(
      'service_unavailable',
      'The job queue is not running: start the workers (loyalty worker, or the server without WORKERS=false)',
    );
};

/** The replay queue and its workers: one replay at a time per process. */
export async function workReplays(boss: PgBoss, { db, polling, wrap }: QueueWorkers) {
  const queue = { name: REPLAY_QUEUE, retryLimit: 0, expireInSeconds: 4 * 3600 };
  await ensureQueue(boss, queue);
  const stopping = new AbortController();
  await boss.work(
    REPLAY_QUEUE,
    { ...polling, batchSize: 1 },
    wrap(async ([job]: PgBoss.Job<ReplayJobData>[]) => {
      if (job) await runReplayJob(db, job.data.merchant_id, job.id, { signal: stopping.signal });
    }),
  );
  return { stop: () => stopping.abort() };
}
