// Pipelined reads on PostgreSQL (src/db/pipeline.ts): the reads of one turn share the idle
// connections, a statement that fails fails alone, and a connection lost mid-pipeline fails what
// it carried and is not lent again. The embedded database never pipelines; on PostgreSQL every
// test's reads go through it (test/harness.ts), as the service's do.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrisma, type Db } from '../../src/db/client.js';
import { rowsOf } from '../../src/db/sql.js';
import { Prisma } from '../../src/generated/prisma/client.js';

describe.skipIf(!process.env.TEST_DATABASE_URL)('pipelined reads on PostgreSQL', () => {
  let admin: pg.Client;
  const connectionsOf = async (label: string) =>
    Number((await admin.query('SELECT count(*) FROM pg_stat_activity WHERE application_name = $1', [label])).rows[0].count);
  const pids = async (db: Db, statements: Prisma.Sql[]) =>
    Promise.allSettled(statements.map((s) => rowsOf<{ pid: number }>(db, s).then((rows) => rows[0]!.pid)));
  const valuesOf = (settled: PromiseSettledResult<number>[]) => settled.map((r) => (r as PromiseFulfilledResult<number>).value);
  const pid = Prisma.sql`SELECT pg_backend_pid() AS pid`;
  /** `run` on a pipelined pool of its own, its connections named `label` so pg_stat_activity can count them; closed after. */
  const withOwnPool = async (run: (db: Db, label: string) => Promise<void>) => {
    const label = `pipeline-${randomUUID().slice(0, 8)}`;
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.searchParams.set('application_name', label);
    const db = createPrisma(url.toString(), 10, { preparedStatements: true, pipelined: true });
    try {
      await run(db, label);
    } finally {
      await db.$disconnect();
    }
  };

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
  });

  it("sends a turn's reads together on the idle connection, or spread over the idle connections", () =>
    withOwnPool(async (db, label) => {
      // four reads in one turn on a pool with no connection yet: one connection, where the pool would open four
      const one = valuesOf(await pids(db, [pid, pid, pid, pid]));
      expect(new Set(one).size).toBe(1);
      // a second connection, opened by a read of another turn while the first is busy
      await Promise.all([
        pids(db, [Prisma.sql`SELECT pg_sleep(${0.2}::float8), 0 AS pid`]),
        new Promise((r) => setImmediate(r)).then(() => pids(db, [pid])),
      ]);
      expect(await connectionsOf(label)).toBe(2);
      // with two idle, a turn of four runs two and two side by side
      const spread = valuesOf(await pids(db, [pid, pid, pid, pid]));
      expect(new Set(spread).size).toBe(2);
      expect(spread.filter((p) => p === spread[0])).toHaveLength(2);
    }));

  it('fails only the statement PostgreSQL refused, and keeps the connection', () =>
    withOwnPool(async (db, label) => {
      const [a, refused, b] = await pids(db, [pid, Prisma.sql`SELECT 1 / ${0}::int AS pid`, pid]);
      expect(a?.status).toBe('fulfilled');
      expect(refused).toMatchObject({ status: 'rejected', reason: { code: '22012' } });
      expect(b).toEqual(a);
      // the next turn is answered on the same connection
      expect((await pids(db, [pid, pid]))[0]).toEqual(a);
      expect(await connectionsOf(label)).toBe(1);
    }));

  it('fails what a lost connection carried, and answers the next reads on another', () =>
    withOwnPool(async (db) => {
      const [lost] = valuesOf(await pids(db, [pid]));
      // three reads behind a sleep on that connection; the backend is ended while it sleeps
      const carried = pids(db, [Prisma.sql`SELECT pg_backend_pid() AS pid, pg_sleep(${2}::float8)`, pid, pid]);
      await new Promise((r) => setTimeout(r, 300));
      await admin.query('SELECT pg_terminate_backend($1::int)', [lost]);
      const results = await carried;
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
      const [next] = await pids(db, [pid, pid]);
      expect(next).toMatchObject({ status: 'fulfilled' });
      expect((next as PromiseFulfilledResult<number>).value).not.toBe(lost);
    }));
});
