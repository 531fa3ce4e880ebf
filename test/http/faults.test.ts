// Faults: the database going away mid-run answers 503 service_unavailable and the
// service recovers by itself when it returns; SIGTERM during a burst of writes finishes
// in-flight requests, and exactly the requests that got 201 are in the ledger.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrisma } from '../../src/db/client.js';
import { openDatabase, startEmbedded } from '../../src/db/embedded.js';
import { createApp } from '../../src/http/app.js';
import { SNAPSHOT } from '../global-setup.js';
import { newCustomer, newKey, newMerchant, type TestApp, testApp, testConfig } from '../harness.js';
import { cuttableProxy, exitCode, type ServerProcess, startServerProcess } from '../processes.js';

let app: TestApp;
beforeAll(async () => {
  app = await testApp();
});

describe('database outage', () => {
  it('answers 503 service_unavailable while the database is away, and recovers by itself', async () => {
    const merchant = await newMerchant(app, 'outage');
    const key = await newKey(app, merchant.id);
    const customer = await newCustomer(app, merchant.id, { points: 10 });
    const target = new URL(app.url);
    const proxy = cuttableProxy(target);
    await proxy.open();
    const url = new URL(app.url);
    url.host = `127.0.0.1:${proxy.port}`;
    // on PostgreSQL pipelined, as the service runs there: the cut drops statements in flight on one connection
    const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
    const db = createPrisma(url.toString(), 2, { preparedStatements: onPostgres, pipelined: onPostgres });
    const service = createApp({ db, config: testConfig() });
    const balance = () =>
      service.fetch(`http://t/v1/customers/balance?customer_id=${customer.platformId}`, { headers: { authorization: `Bearer ${key}` } });
    try {
      expect((await balance()).status).toBe(200);
      await proxy.cut();
      const down = await balance();
      expect(down.status).toBe(503);
      expect((await down.json()).error).toEqual({
        code: 'service_unavailable',
        message: 'The database is unavailable; nothing was changed, retry shortly',
      });
      const gql = await service.fetch('http://t/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ rewards { data { id } } }' }),
      });
      expect(gql.status).toBe(503);
      expect((await service.fetch('http://t/readyz')).status).toBe(503);
      await proxy.open();
      let recovered = 0;
      for (let i = 0; i < 50 && recovered !== 200; i++) {
        recovered = (await balance()).status;
        if (recovered !== 200) await new Promise((r) => setTimeout(r, 200));
      }
      expect(recovered).toBe(200);
    } finally {
      await service.close();
      await db.$disconnect();
      await proxy.cut().catch(() => {});
    }
  }, 120_000);
});

describe('telling a database that is down from one that is busy', () => {
  it('sees PostgreSQL restarting through Prisma’s wrapping (no 500 during a restart)', async () => {
    const { databaseTrouble } = await import('../../src/db/errors.js');
    // the shapes seen while PostgreSQL restarted under load
    const prismaWrapped = Object.assign(
      new Error(
        'Invalid `db.reward.count()` invocation: Database error. Code: `57P01`. Message: `terminating connection due to administrator command`',
      ),
      { code: 'P2010' },
    );
    const adapterMeta = Object.assign(new Error('Database error'), {
      code: 'P2010',
      meta: { driverAdapterError: { cause: { originalCode: '57P03', kind: 'postgres', code: '57P03' } } },
    });
    expect(databaseTrouble(prismaWrapped)).toBe('down');
    expect(databaseTrouble(adapterMeta)).toBe('down');
    expect(databaseTrouble(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe('down');
    expect(databaseTrouble(new Error('Connection terminated due to connection timeout'))).toBe('down');
    expect(databaseTrouble(Object.assign(new Error('duplicate key'), { code: 'P2002' }))).toBeUndefined();
    expect(databaseTrouble(Object.assign(new Error('Database error. Code: `23505`'), { code: 'P2010' }))).toBeUndefined();
  });

  it('calls a database busy when no connection came free in time, or the server takes no more', async () => {
    const { databaseTrouble } = await import('../../src/db/errors.js');
    // Prisma's maxWait for a transaction; pg-pool's wait for a connection; PostgreSQL's connection limit
    expect(
      databaseTrouble(
        Object.assign(new Error('Transaction API error: Unable to start a transaction in the given time.'), { code: 'P2028' }),
      ),
    ).toBe('busy');
    expect(databaseTrouble(new Error('timeout exceeded when trying to connect'))).toBe('busy');
    expect(
      databaseTrouble(
        Object.assign(new Error('Database error'), {
          meta: { driverAdapterError: { cause: { originalCode: '53300', kind: 'TooManyConnections' } } },
        }),
      ),
    ).toBe('busy');
  });

  it('answers a request the busy database could not take with 503 in its own words, and changes nothing', async () => {
    const merchant = await newMerchant(app, 'busy');
    const key = await newKey(app, merchant.id);
    const customer = await newCustomer(app, merchant.id, { points: 10 });
    // one connection, held by a transaction of the test's: the request's transaction cannot start
    const db = createPrisma(app.url, 1, { connectionWaitMs: 300 });
    const service = createApp({ db, config: testConfig() });
    let release!: () => void;
    const held = db.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT 1`;
        await new Promise<void>((resolve) => (release = resolve));
      },
      { timeout: 600_000 },
    );
    try {
      await expect.poll(() => typeof release).toBe('function');
      const answer = await service.fetch(`http://t/v1/customers/transactions?customer_id=${customer.platformId}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ points: 5, description: 'while busy' }),
      });
      expect(answer.status).toBe(503);
      expect((await answer.json()).error).toEqual({
        code: 'service_unavailable',
        message: 'The database is too busy to take this request now; nothing was changed, retry shortly',
      });
    } finally {
      release();
      await held;
      await service.close();
      await db.$disconnect();
    }
    expect((await app.db.customer.findFirstOrThrow({ where: { id: customer.id } })).pointsBalance).toBe(10);
  });
});

describe('SIGTERM', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'loyalty-sigterm-'));
  let server: ServerProcess | undefined;
  afterAll(() => {
    server?.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finishes in-flight writes: every 201 is in the ledger, and nothing else', async () => {
    const env = {
      DATA_DIR: dataDir,
      DATABASE_URL: process.env.TEST_DATABASE_URL ?? '',
      RATE_LIMIT_PER_KEY: '0',
      RATE_LIMIT_PER_MERCHANT: '0',
    };
    // provision through the database the server will use (embedded: from the migrated snapshot)
    const database = env.DATABASE_URL
      ? await openDatabase({ databaseUrl: env.DATABASE_URL, dataDir })
      : await startEmbedded(dataDir, new Blob([readFileSync(SNAPSHOT)]));
    const db = createPrisma(database.url, 2);
    const merchant = await newMerchant({ db } as TestApp, 'sigterm');
    const key = await newKey({ db } as TestApp, merchant.id);
    const customer = await newCustomer({ db } as TestApp, merchant.id);
    await db.$disconnect();
    await database.close();

    const started = (server = await startServerProcess(env));
    const send = () =>
      fetch(`${started.base}/v1/customers/transactions?customer_id=${customer.platformId}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ points: 1, description: 'burst' }),
      }).then(
        (r) => r.status,
        () => 0, // refused: the server had stopped accepting
      );
    const burst: Promise<number>[] = [];
    for (let i = 0; i < 150; i++) {
      burst.push(send());
      if (i === 60) started.child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 2));
    }
    const statuses = await Promise.all(burst);
    expect(await started.exited).toBe(0);
    const created = statuses.filter((s) => s === 201).length;
    expect(created, JSON.stringify(statuses)).toBeGreaterThan(0);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);

    const after = await openDatabase({ databaseUrl: env.DATABASE_URL || undefined, dataDir });
    const check = createPrisma(after.url, 1);
    try {
      const rows = await check.pointsTransaction.count({ where: { customerId: customer.id, description: 'burst' } });
      const balance = (await check.customer.findFirstOrThrow({ where: { id: customer.id } })).pointsBalance;
      expect(rows).toBe(created);
      expect(balance).toBe(created);
    } finally {
      await check.$disconnect();
      await after.close();
    }
  }, 180_000);

  it('stops cleanly when it comes with the first answer, while the job workers are still starting', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'loyalty-sigterm-start-'));
    try {
      // no line to wait for: the first answer comes before the workers have started and before
      // the 'listening' line, which follows them
      const started = (server = await startServerProcess(
        { DATA_DIR: dir, DATABASE_URL: process.env.TEST_DATABASE_URL ?? '' },
        { ready: /^/ },
      ));
      let status = 0;
      while (status !== 200) {
        if (started.child.exitCode !== null) throw new Error(`exited before answering:\n${started.output()}`);
        status = await fetch(`${started.base}/healthz`).then(
          (r) => r.status,
          () => 0,
        );
        if (status !== 200) await new Promise((r) => setTimeout(r, 5));
      }
      started.child.kill('SIGTERM');
      // a signal before the handlers were set killed the process (no exit code) and lost its log
      expect(await exitCode(started, 60_000)).toBe(0);
      expect(started.output()).toMatch(/finishing in-flight requests, then stopping/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
