// The Prisma client with its pg driver adapter over a pg pool the metrics can see.
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.js';
import { watchPool } from '../observability/metrics.js';
import { applicationNames } from './application-names.js';
import { nameOf, registerPool } from './sql.js';

export type Db = PrismaClient;

export interface PoolOptions {
  onPoolError?: (err: Error) => void;
  /** Statements named, parsed once per connection (src/db/sql.ts). Not on the embedded database. */
  preparedStatements?: boolean;
  /** The hot reads of one turn share connections (src/db/pipeline.ts). Not on the embedded database. */
  pipelined?: boolean;
  /**
   * A Citus worker's connections: the hot reads name their merchant as a constant, the only
   * statements named there; Prisma's go unnamed (src/db/sql.ts, forMerchant).
   */
  merchantConstant?: boolean;
  /**
   * How long a statement or a transaction waits for a connection of the pool (and a new
   * connection may take to open) before the request is refused as busy (or the database as down).
   */
  connectionWaitMs?: number;
}

const CONNECTION_WAIT_MS = 5_000;

export function createPrisma(
  connectionString: string,
  poolMax = 10,
  {
    onPoolError = (err) => console.error(`database pool error: ${err.message}`),
    preparedStatements = false,
    pipelined = false,
    merchantConstant = false,
    connectionWaitMs = CONNECTION_WAIT_MS,
  }: PoolOptions = {},
): Db {
  // our own pool (the adapter ends it with the client), so its connections can be reported
  const pool = new pg.Pool({
    connectionString,
    application_name: applicationNames.requests,
    max: poolMax,
    // v7 has no connect timeout by default: a dead database would hang requests
    connectionTimeoutMillis: connectionWaitMs,
    idleTimeoutMillis: 30_000,
    // each client writes a statement without waiting for the one before (pipeline.ts)
    pipeline: pipelined,
  });
  watchPool(pool);
  // an idle client's error must not crash the process; the pool replaces it. Set here, not
  // through the adapter's onPoolError, which it sets only at Prisma's first query: the reads
  // on the pool (src/db/sql.ts) may come long before one, and an unheard error would be thrown
  pool.on('error', onPoolError);
  const adapter = new PrismaPg(pool, {
    disposeExternalPool: true,
    // Prisma's statements named as ours are (nameOf); one without parameters stays unnamed, so pg
    // sends it as a simple query: BEGIN and COMMIT need no plan, and a script of several statements
    // cannot be prepared
    ...(preparedStatements &&
      !merchantConstant && { statementNameGenerator: (q) => (q.args.length ? nameOf(q.sql) : undefined) as string }),
  });
  // a transaction waits for its connection as long as a single statement does (Prisma's own
  // default, 2 s, refused batches as busy while statements beside them still waited)
  const db = new PrismaClient({ adapter, transactionOptions: { maxWait: connectionWaitMs } });
  // hot reads send their SQL on the same pool (src/db/sql.ts)
  registerPool(db, pool, { prepared: preparedStatements, pipelined, merchantConstant });
  return db;
}
