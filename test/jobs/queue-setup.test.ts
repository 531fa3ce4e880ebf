// Job runtimes starting together on a database where no queue exists yet (instances of a new
// deployment starting at once): each creates or updates every queue, none fails. pg-boss creates
// a queue in a transaction that can deadlock with another creating one; on PostgreSQL and Citus
// the race is real (the embedded database runs one statement at a time).
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { JobsRuntime } from '../../src/jobs/queue.js';
import { type TestApp, testApp } from '../harness.js';
import { workers } from '../webhooks/receiver.js';

let app: TestApp;
const runtimes: JobsRuntime[] = [];
beforeAll(async () => {
  app = await testApp({ ownDatabase: true });
});
afterAll(async () => {
  await Promise.all(runtimes.map((r) => r.stop({ graceful: false })));
});

it('starts three job runtimes at once on a database without queues', async () => {
  const started = await Promise.allSettled([workers(app), workers(app), workers(app)]);
  for (const s of started) if (s.status === 'fulfilled') runtimes.push(s.value);
  expect(started.map((s) => (s.status === 'rejected' ? String(s.reason) : 'started'))).toEqual(['started', 'started', 'started']);

  const queues = (await runtimes[0]!.boss.getQueues()).map((q) => q.name);
  expect(queues).toEqual(expect.arrayContaining(['webhook-delivery']));
  expect(queues.length).toBeGreaterThan(3);
});
