// The Citus-only half of the schema (docs/scaling-out.md): which tables are reference tables,
// which are distributed by merchant, and the functions sent whole to the merchant's worker
// (the ledger's change, a redemption). The migrations define every table, key, trigger and function the same way on every
// database; this step only hands them to Citus, and is a no-op where Citus is not installed.
import type { Db } from './client.js';
import { atomically } from './transaction.js';

/** Read before the merchant is known (a key's hash, an admin token, a session, a CORS origin): a copy on every node. */
export const REFERENCE_TABLES = ['merchants', 'api_keys', 'admin_sessions', 'storefront_settings'];
/** The co-location group's root: every other tenant table is placed with it. */
const COLOCATION_ROOT = 'customers';
const DISTRIBUTION_COLUMN = 'merchant_id';
/** Stays local to the coordinator, like pg-boss's schema. */
const LOCAL_TABLES = ['_prisma_migrations'];
/** The functions sent whole to the worker holding the merchant named by their p_merchant: a ledger change, a redemption. */
const DELEGATED_FUNCTIONS = ['loyalty_apply_points', 'loyalty_redeem'];
const MERCHANT_ARG = 'p_merchant';
/** Serialises concurrent runs (two instances migrating at once): each reads the catalog after the other committed. */
const LOCK_KEY = 4_871_203_311;

export type DistributeResult =
  | { distributed: false; reason: string }
  | {
      distributed: true;
      /** Tables made distributed by this run, then tables made reference tables. */
      tables: string[];
      reference: string[];
      /** Tables that already were Citus tables. */
      skipped: string[];
      /** Each delegated function (the ledger's change, a redemption): delegated by this run, or already. */
      functions: Record<string, 'distributed' | 'already distributed' | 'absent'>;
      /** PL/pgSQL functions set to custom plans by this run (customPlans). */
      custom_plans: string[];
    };

export async function hasCitus(db: Db): Promise<boolean> {
  const rows = await db.$queryRawUnsafe<unknown[]>(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
  return rows.length > 0;
}

/**
 * Makes the reference and distributed tables that are still plain tables, in one transaction;
 * a second run changes nothing. Citus refuses to distribute a table that has triggers or foreign
 * keys to or from plain tables, so those of the tables it hands over are read from the catalog,
 * dropped, and created again from their own definitions afterwards.
 */
export async function distribute(db: Db): Promise<DistributeResult> {
  if (!(await hasCitus(db))) return { distributed: false, reason: 'the database has no citus extension' };
  return atomically(
    db,
    async (tx) => {
      const exec = (sql: string, ...values: unknown[]) => tx.$executeRawUnsafe(sql, ...values);
      const query = <T>(sql: string, ...values: unknown[]) => tx.$queryRawUnsafe<T[]>(sql, ...values);
      await query(`SELECT 1 FROM pg_advisory_xact_lock(${LOCK_KEY})`);
      // trigger DDL on Citus tables needs it (firing them does not)
      await exec(`SET LOCAL citus.enable_unsafe_triggers = on`);
      // one connection per node for the whole transaction: foreign keys added after a parallel
      // operation on a distributed table in the same transaction are refused
      await exec(`SET LOCAL citus.multi_shard_modify_mode = 'sequential'`);

      // every table of schema public (the coordinator's own placements of reference tables
      // are shards in public too: not ours) with its Citus kind: 'h' distributed, 't' reference,
      // 's' a Citus local table (a plain table Citus converted for a foreign key to a reference
      // table: still to be handed over), null a plain table
      const tables = await query<{ name: string; tenant: boolean; kind: string | null }>(
        `SELECT c.relname AS name,
                EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = $1 AND NOT a.attisdropped) AS tenant,
                CASE WHEN p.partmethod = 'h' THEN 'h' WHEN p.repmodel = 't' THEN 't' WHEN p.logicalrelid IS NOT NULL THEN 's' END AS kind
           FROM pg_class c
           LEFT JOIN pg_dist_partition p ON p.logicalrelid = c.oid
          WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
            AND NOT relation_is_a_known_shard(c.oid)
          ORDER BY c.relname`,
        DISTRIBUTION_COLUMN,
      );
      const done = (t: { kind: string | null }) => t.kind === 'h' || t.kind === 't';
      const skipped = tables.filter(done).map((t) => t.name);
      const reference = tables.filter((t) => !done(t) && REFERENCE_TABLES.includes(t.name)).map((t) => t.name);
      const distributed = tables
        .filter((t) => !done(t) && t.tenant && !REFERENCE_TABLES.includes(t.name) && !LOCAL_TABLES.includes(t.name))
        // the co-location root first: the others are placed with it
        .map((t) => t.name)
        .sort((a, b) => Number(b === COLOCATION_ROOT) - Number(a === COLOCATION_ROOT));
      const handed = [...reference, ...distributed];

      if (handed.length) {
        const names = `ARRAY[${handed.map((_, i) => `$${i + 1}`).join(', ')}]::text[]`;
        const ids = `(SELECT oid FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relname = ANY (${names}))`;
        const foreignKeys = await query<{ table: string; name: string; definition: string }>(
          `SELECT conrelid::regclass::text AS "table", conname AS name, pg_get_constraintdef(oid) AS definition
             FROM pg_constraint WHERE contype = 'f' AND (conrelid IN ${ids} OR confrelid IN ${ids})
            ORDER BY conrelid::regclass::text, conname`,
          ...handed,
        );
        const triggers = await query<{ table: string; name: string; definition: string }>(
          `SELECT tgrelid::regclass::text AS "table", tgname AS name, pg_get_triggerdef(oid) AS definition
             FROM pg_trigger WHERE NOT tgisinternal AND tgrelid IN ${ids}
            ORDER BY tgrelid::regclass::text, tgname`,
          ...handed,
        );
        for (const fk of foreignKeys) await exec(`ALTER TABLE ${fk.table} DROP CONSTRAINT ${quoteIdent(fk.name)}`);
        for (const t of triggers) await exec(`DROP TRIGGER ${quoteIdent(t.name)} ON ${t.table}`);
        for (const t of reference) {
          await query(`SELECT 1 FROM create_reference_table($1)`, t);
        }
        for (const t of distributed) {
          // the root joins the default group of its column type (then the others join the root)
          const colocate = t === COLOCATION_ROOT ? 'default' : COLOCATION_ROOT;
          await query(`SELECT 1 FROM create_distributed_table($1, $2, colocate_with => $3)`, t, DISTRIBUTION_COLUMN, colocate);
        }
        // the rows copied into the shards stay, hidden, in the coordinator's table: free them
        // while no foreign key refers to them
        for (const t of handed) await query(`SELECT 1 FROM truncate_local_data_after_distributing_table($1)`, t);
        for (const fk of foreignKeys) await exec(`ALTER TABLE ${fk.table} ADD CONSTRAINT ${quoteIdent(fk.name)} ${fk.definition}`);
        for (const t of triggers) await exec(t.definition);
      }

      const functions: Record<string, 'distributed' | 'already distributed' | 'absent'> = {};
      for (const name of DELEGATED_FUNCTIONS) functions[name] = await delegate(tx, name);
      return { distributed: true, tables: distributed, reference, skipped, functions, custom_plans: await customPlans(tx) };
    },
    // copying a populated database into its shards takes longer than a request's transaction
    600_000,
  );
}

/** Registers a function with Citus, which then runs each call on the worker holding its merchant. */
async function delegate(tx: Db, name: string): Promise<'distributed' | 'already distributed' | 'absent'> {
  const [fn] = await tx.$queryRawUnsafe<{ signature: string; registered: boolean }[]>(
    `SELECT p.oid::regprocedure::text AS signature,
            EXISTS (SELECT 1 FROM pg_dist_object o WHERE o.classid = 'pg_proc'::regclass AND o.objid = p.oid
                       AND o.distribution_argument_index IS NOT NULL) AS registered
       FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace AND p.proname = $1`,
    name,
  );
  if (!fn) return 'absent';
  if (fn.registered) return 'already distributed';
  // force_delegation: delegated inside a transaction block too (redemption, imports)
  await tx.$queryRawUnsafe(
    `SELECT 1 FROM create_distributed_function($1, distribution_arg_name => $2, colocate_with => $3, force_delegation => true)`,
    fn.signature,
    MERCHANT_ARG,
    COLOCATION_ROOT,
  );
  return 'distributed';
}

/**
 * Makes every PL/pgSQL function that may read or write tables (not IMMUTABLE: the enum casts
 * and pure helpers stay as they are) plan its statements afresh on each call. On a worker,
 * Citus 13.2 appends a new local plan to a generic plan's cache on every local execution of a
 * fast-path statement whose merchant is a parameter, and never finds it again
 * (citusdata/citus#8824, fixed after 13.2.2): a worker backend that runs the ledger function
 * grew by ~220 KB a call (691 MB after 3,000 credits). PL/pgSQL switches to generic plans after
 * five calls, so the functions the shards' triggers and the delegated ledger run would leak
 * on every connection the coordinator keeps. Custom plans cost the worker less than the cache
 * misses did (1.9 → 2.2 ms CPU a credit, with no growth). Only on Citus: PostgreSQL keeps its
 * generic plans (0.75 ms a credit against 1.3 with custom ones). Migrations that replace a
 * function reset its settings; migrate runs this step after them.
 */
async function customPlans(tx: Db): Promise<string[]> {
  const functions = await tx.$queryRawUnsafe<{ signature: string }[]>(
    `SELECT p.oid::regprocedure::text AS signature
       FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
      WHERE p.pronamespace = 'public'::regnamespace AND l.lanname = 'plpgsql' AND p.provolatile <> 'i'
        AND NOT coalesce('plan_cache_mode=force_custom_plan' = ANY (p.proconfig), false)
      ORDER BY 1`,
  );
  for (const f of functions) await tx.$executeRawUnsafe(`ALTER FUNCTION ${f.signature} SET plan_cache_mode = force_custom_plan`);
  return functions.map((f) => f.signature);
}

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** What a run did, for people. */
export function distributeText(r: DistributeResult): string {
  if (!r.distributed) return `Nothing to distribute: ${r.reason}.`;
  const list = (names: string[]) => (names.length ? names.join(', ') : 'none');
  return [
    `Distributed by merchant_id: ${list(r.tables)}`,
    `Reference tables: ${list(r.reference)}`,
    `Already Citus tables (skipped): ${list(r.skipped)}`,
    ...Object.entries(r.functions).map(([name, state]) => `Function ${name}: ${state}`),
    `Functions set to custom plans: ${r.custom_plans.length ? r.custom_plans.length : 'none'}`,
  ].join('\n');
}
