// The Prisma client with its pg driver adapter, nothing else.
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client.js';

export type Db = PrismaClient;

export function createPrisma(
  connectionString: string,
  poolMax = 10,
  onPoolError: (err: Error) => void = (err) => console.error(`database pool error: ${err.message}`),
): Db {
  const adapter = new PrismaPg(
    {
      connectionString,
      max: poolMax,
      // v7 has no connect timeout by default: a dead database would hang requests
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
    },
    // an idle client's error must not crash the process; the pool replaces it
    { onPoolError },
  );
  return new PrismaClient({ adapter });
}
