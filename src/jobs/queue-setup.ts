// What each queue's worker module needs from the job runtime (queue.ts): its queue created or
// brought up to date, and the runtime's polling and stop-aware wrapper for its handler.
import type pg from 'pg';
import type PgBoss from 'pg-boss';
import type { Db } from '../db/client.js';

const SETUP_LOCK = 'loyalty.jobs.queue-setup';

/**
 * Runs `setup` once no other job runtime on the database is setting up its queues. pg-boss creates
 * a queue in one transaction that inserts its row, then locks the queue table to add the new
 * partition's foreign keys: runtimes creating queues at once (the instances of a new deployment
 * starting together) deadlock, and the database aborts one after each deadlock_timeout.
 */
export async function inSetupTurn<T>(pool: pg.Pool, setup: () => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [SETUP_LOCK]);
    return await setup();
  } finally {
    // a connection that cannot take the unlock is closed, which ends the turn too: a setup that
    // succeeded is not failed by it
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [SETUP_LOCK]).then(
      () => client.release(),
      (err: Error) => client.release(err),
    );
  }
}

/** Creates the queue, or brings its options up to date with the configuration (inside a setup turn). */
export async function ensureQueue(boss: PgBoss, queue: PgBoss.Queue) {
  if (await boss.getQueue(queue.name)) await boss.updateQueue(queue.name, queue);
  else await boss.createQueue(queue.name, queue);
}

/** What the runtime gives a queue's workers. */
export interface QueueWorkers {
  db: Db;
  polling: PgBoss.WorkOptions;
  /** Holds the handler's jobs back while the runtime stops. */
  wrap: <A extends unknown[]>(h: (...args: A) => Promise<void>) => (...args: A) => Promise<void>;
}
