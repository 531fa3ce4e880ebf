// Each of the service's connections names itself (pg_stat_activity.application_name), so an
// operator can tell the connections answering requests from the job queue's, the outbox
// dispatcher's and the notification feed's. PostgreSQL only: the embedded database has one
// connection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobsRuntime } from '../../src/jobs/queue.js';
import { newMerchant, type TestApp, testApp } from '../harness.js';
import { workers } from '../webhooks/receiver.js';

describe.skipIf(!process.env.TEST_DATABASE_URL)('connection names', () => {
  let app: TestApp;
  let jobs: JobsRuntime;

  beforeAll(async () => {
    app = await testApp();
    jobs = await workers(app);
  });
  afterAll(async () => {
    await jobs?.stop();
  });

  it('says which part of the service holds each connection', async () => {
    // a request, so the request pool has a connection open
    await newMerchant(app, 'named');
    const names = async () =>
      (
        await app.db.$queryRaw<{ name: string }[]>`
          SELECT DISTINCT application_name AS name FROM pg_stat_activity WHERE datname = current_database()`
      ).map((r) => r.name);
    await expect
      .poll(names, { timeout: 10_000 })
      .toEqual(expect.arrayContaining(['loyalty', 'loyalty-jobs', 'loyalty-dispatcher', 'loyalty-notifications']));
  });
});
