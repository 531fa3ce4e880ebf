// What each queue's worker module needs from the job runtime (queue.ts): its queue created or
// brought up to date, and the runtime's polling and stop-aware wrapper for its handler.
import type PgBoss from 'pg-boss';
import type { Db } from '../db/client.js';

/** Creates the queue, or brings its options up to date with the configuration. */
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
