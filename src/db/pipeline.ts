// The hot reads of one turn of the event loop share connections, pipelined: pg sends each
// statement with its own Sync, a connection's group in one write, and PostgreSQL answers them
// in order, so five reads take one connection and one round trip, where the pool would spread
// them over five connections and wake five backends. A storefront panel's links all ask in one
// turn; under load, so do the reads of many requests. Each statement is still its own
// implicit transaction: one that fails fails alone. While connections sit idle the turn is
// spread over them (a lone request then runs its reads side by side, not one after another);
// when none is idle it queues for one connection rather than for many.
import type { Writable } from 'node:stream';
import pg from 'pg';

interface Pending {
  query: pg.QueryConfig;
  resolve: (result: pg.QueryResult) => void;
  reject: (err: Error) => void;
}

/** At most this many statements ride one connection: one slow statement delays those behind it. */
const MAX_PER_CONNECTION = 16;

export interface Pipeline {
  query(query: pg.QueryConfig): Promise<pg.QueryResult>;
}

/** Statements sent through the result in one turn share the pool's connections (its clients must be `pipeline: true`). */
export function pipelineOn(pool: pg.Pool): Pipeline {
  let turn: Pending[] | null = null;
  const flush = () => {
    const sent = turn!;
    turn = null;
    const per = Math.min(MAX_PER_CONNECTION, Math.ceil(sent.length / Math.max(1, pool.idleCount)));
    for (let i = 0; i < sent.length; i += per) void together(pool, sent.slice(i, i + per));
  };
  return {
    query: (query) =>
      new Promise((resolve, reject) => {
        if (!turn) {
          turn = [];
          // after the turn's microtasks and nextTicks: DataLoader dispatches its batches there
          setImmediate(flush);
        }
        turn.push({ query, resolve, reject });
      }),
  };
}

async function together(pool: pg.Pool, group: Pending[]) {
  if (group.length === 1) {
    const [one] = group as [Pending];
    return pool.query(one.query).then(one.resolve, one.reject);
  }
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    for (const p of group) p.reject(err as Error);
    return;
  }
  // an error PostgreSQL answered leaves the connection usable; any other (the connection lost)
  // fails the statements behind it too, and the pool must not lend that connection again
  let lost: Error | undefined;
  // a lent client's connection error is emitted on it, and unheard it would end the process
  const onError = (err: Error) => {
    lost ??= err;
  };
  client.on('error', onError);
  // a pipelined client writes each statement as it is queried, one write (a syscall, and on
  // loopback the receiver's TCP work too) per statement; corked, the group leaves in one
  const { stream } = (client as unknown as { connection: { stream: Writable } }).connection;
  stream.cork();
  let answered: Promise<unknown>;
  try {
    answered = Promise.all(
      group.map((p) =>
        client.query(p.query).then(p.resolve, (err: Error) => {
          if (!(err instanceof pg.DatabaseError)) lost ??= err;
          p.reject(err);
        }),
      ),
    );
  } finally {
    stream.uncork();
  }
  await answered;
  client.off('error', onError);
  client.release(lost);
}
