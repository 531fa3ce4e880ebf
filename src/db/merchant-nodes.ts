// Requests enter where the merchant lives (docs/scaling-out.md, "Requests at the merchant's
// worker"). On a Citus cluster every worker has the metadata and can plan any statement, so a
// request's statements are sent to the worker that holds its merchant's shard group: there they
// run as local shard queries, where through the coordinator each was planned twice and its rows
// relayed. The coordinator keeps what is not one merchant's: API key and session lookups,
// pg-boss, migrations, LISTEN and the admin API (whose writes to reference tables announce
// themselves by NOTIFY, which only the coordinator may send).
//
// Where a merchant lives is read from Citus's own metadata and kept a short while: a route gone
// stale (a shard moved or isolated) still answers right, the worker it reaches forwards the
// statement, and the next lookup finds the new node. Anything that fails here falls back to the
// coordinator, said once in the log.
import type { Logger } from '../observability/logger.js';
import { applicationNames } from './application-names.js';
import { createPrisma, type Db, type PoolOptions } from './client.js';
import { hasCitus } from './cluster.js';
import { forMerchant } from './sql.js';

/** How long a merchant's route is kept before Citus's metadata is read again. */
const ROUTE_TTL_MS = 30_000;

export interface MerchantNodes {
  /** The client whose statements reach the merchant's worker (the coordinator's when there is none). */
  dbFor(merchantId: string): Promise<Db>;
  close(): Promise<void>;
}

interface Route {
  db: Db;
  until: number;
}

/**
 * Worker entry for `db` (the coordinator's client, `url` its URL). Where the database is not a
 * Citus coordinator, every merchant's client is `db`.
 */
export function merchantNodes(
  db: Db,
  url: string,
  { poolMax, pool, logger }: { poolMax: number; pool: PoolOptions; logger: Logger },
): MerchantNodes {
  const workers = new Map<string, Db>();
  const routes = new Map<string, Route>();
  let warned = false;
  const citus = hasCitus(db).catch(() => false);

  /** A worker's client: the coordinator's URL with the worker's host and port. */
  function workerDb(host: string, port: number): Db {
    const key = `${host}:${port}`;
    let worker = workers.get(key);
    if (!worker) {
      const at = new URL(url);
      at.hostname = host;
      at.port = String(port);
      if (!at.searchParams.has('application_name')) at.searchParams.set('application_name', applicationNames.workerEntry);
      // each merchant's hot reads name it as a constant there, and only they are named: Citus 13.2
      // plans them on the shard directly and keeps their generic plans, where a generic plan of a
      // statement whose merchant is a parameter grows the connection on every run (src/db/sql.ts,
      // forMerchant; src/db/cluster.ts, customPlans)
      worker = createPrisma(at.toString(), poolMax, { ...pool, merchantConstant: true });
      workers.set(key, worker);
    }
    return worker;
  }

  async function lookUp(merchantId: string): Promise<Db> {
    if (!(await citus)) return db;
    try {
      const [node] = await db.$queryRaw<{ host: string; port: number }[]>`
        SELECT n.nodename AS host, n.nodeport AS port
          FROM pg_dist_placement p JOIN pg_dist_node n ON n.groupid = p.groupid
         WHERE p.shardid = get_shard_id_for_distribution_column('customers', ${merchantId}::uuid)
           AND n.isactive AND n.noderole = 'primary' AND n.hasmetadata AND n.metadatasynced AND n.groupid <> 0
         LIMIT 1`;
      return node ? forMerchant(workerDb(node.host, node.port), merchantId) : db;
    } catch (err) {
      if (!warned) logger.warn({ err }, 'worker entry: the merchant’s worker could not be found; requests go through the coordinator');
      warned = true;
      return db;
    }
  }

  return {
    async dbFor(merchantId) {
      const route = routes.get(merchantId);
      if (route && route.until > Date.now()) return route.db;
      const found = await lookUp(merchantId);
      routes.set(merchantId, { db: found, until: Date.now() + ROUTE_TTL_MS });
      return found;
    },
    async close() {
      await Promise.all([...workers.values()].map((w) => w.$disconnect()));
      workers.clear();
      routes.clear();
    },
  };
}
