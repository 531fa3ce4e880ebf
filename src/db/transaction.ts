// A transaction held open across hooks of a request: Prisma's interactive transaction runs a
// callback, so the callback here waits until `commit` or `rollback` is called. Everything the
// request writes through `client` commits or rolls back together; if the process dies first,
// the database rolls it all back when the connection closes.
import type { Db } from './client.js';

export interface OpenTransaction {
  /** The transaction's client: a `Db` whose statements run inside the transaction. */
  client: Db;
  /** Commits; throws when the commit failed (then nothing, or everything, may have committed). */
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

const transactions = new WeakSet<object>();

/** Whether `db` is a transaction's client (statements on it run inside that transaction). */
const isTransaction = (db: Db) => transactions.has(db);

class Rollback extends Error {}

/** How long a domain operation's own transaction may run before the database side gives it up. */
const ATOMIC_TIMEOUT_MS = 15_000;

/**
 * Runs `work` in one transaction: its own, or a nested one (a savepoint) inside the caller's.
 * Nothing it writes outlives its failure, or a crash before it returns. Prisma rolls an own
 * transaction back by itself after `timeoutMs`.
 */
export function atomically<T>(db: Db, work: (tx: Db) => Promise<T>, timeoutMs = ATOMIC_TIMEOUT_MS): Promise<T> {
  return db.$transaction(
    (tx) => {
      transactions.add(tx);
      return work(tx as Db);
    },
    { timeout: timeoutMs },
  );
}

/** Opens a transaction that Prisma rolls back by itself after `timeoutMs`. */
export function openTransaction(db: Db, timeoutMs: number): Promise<OpenTransaction> {
  return new Promise((opened, failed) => {
    let finish!: (commit: boolean) => void;
    const decided = new Promise<boolean>((resolve) => (finish = resolve));
    const done = atomically(
      db,
      async (client) => {
        opened({ client, commit, rollback });
        if (!(await decided)) throw new Rollback();
      },
      timeoutMs,
    ).then(
      () => undefined,
      (err: unknown) => {
        if (!(err instanceof Rollback)) throw err;
      },
    );
    // a transaction that could not start: no client was handed out
    done.catch(failed);
    async function commit() {
      finish(true);
      await done;
    }
    async function rollback() {
      finish(false);
      await done.catch(() => {});
    }
  });
}

/**
 * Runs `write` so that a statement of it that fails can be caught and the work go on: inside a
 * transaction, as a nested one (a savepoint), since a failed statement would otherwise abort the
 * whole transaction; outside one, as it is (each statement is its own transaction).
 */
export function recoverable<T>(db: Db, write: (db: Db) => Promise<T>): Promise<T> {
  return isTransaction(db) ? atomically(db, write) : write(db);
}

/** Transactions whose SET LOCALs already reach the workers. */
const propagating = new WeakSet<object>();

/**
 * `SET LOCAL` of `settings` for the rest of transaction `tx`, wherever its statements run: on a
 * Citus cluster they run on the workers, which see a SET LOCAL only when
 * citus.propagate_set_commands says so (set_config on the coordinator never reaches them).
 * Elsewhere that setting is an unused placeholder. Names and values are the service's own
 * constants, never input.
 */
export async function setLocal(tx: Pick<Db, '$executeRawUnsafe'>, settings: Record<string, string | number>) {
  if (!propagating.has(tx)) {
    await tx.$executeRawUnsafe(`SET LOCAL citus.propagate_set_commands = 'local'`);
    propagating.add(tx);
  }
  for (const [name, value] of Object.entries(settings)) {
    if (!/^[a-z_.]+$/.test(name) || !/^[\w.]+$/.test(String(value))) throw new Error(`unsafe setting ${name}=${value}`);
    await tx.$executeRawUnsafe(`SET LOCAL ${name} = '${value}'`);
  }
}
