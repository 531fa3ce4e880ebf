// CPU time of the processes serving a measurement, read from /proc: the server under test and
// the PostgreSQL backends connected to the benchmark's database, per cluster (a backend's
// command line is its process title, `postgres: 15/citus1: postgres loyalty_bench …`). So a row
// says how many CPU milliseconds a request cost on the single node, on the coordinator and on
// the workers, which a capacity estimate needs and req/s on a shared machine does not give.
import { readdirSync, readFileSync } from 'node:fs';
import { withClient } from './data.js';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** utime + stime of a process in ticks (null when it is gone). */
function cpuTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // fields after the command name (which may hold spaces), in parentheses
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/** The backends of `database`, by pid, with their cluster's name (15/main, 15/citus1, …). */
function backendsOf(database: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let title: string;
    try {
      title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    const m = /^postgres: ([^:\s]+): \S+ (\S+) /.exec(title);
    if (m && m[2] === database) out.set(Number(entry), m[1]!);
  }
  return out;
}

/** The application names of the service's own background connections (src/db/application-names.ts). */
const BACKGROUND = ['loyalty-jobs', 'loyalty-dispatcher', 'loyalty-notifications'];

/** The key a row's CPU of the service's background connections is kept under, apart from its requests' database CPU. */
export const BACKGROUND_KEY = 'service background';

/** The backends of the service's background connections on these servers (pids; pg_stat_activity is per server). */
export async function backgroundBackends(adminUrls: readonly string[]): Promise<Set<number>> {
  const pids = new Set<number>();
  for (const url of adminUrls) {
    try {
      const { rows } = await withClient(url, (c) =>
        c.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = ANY($1)', [BACKGROUND]),
      );
      for (const r of rows) pids.add(r.pid);
    } catch {
      // a server that does not answer has no backends to set apart
    }
  }
  return pids;
}

/**
 * Checkpoints the server has begun so far (PostgreSQL 15-16's pg_stat_bgwriter; null where it
 * cannot be read): after one, the first change to each page writes the whole page to the WAL,
 * which a write row's commits wait for.
 */
export async function checkpointsBegun(adminUrl: string): Promise<number | null> {
  try {
    const { rows } = await withClient(adminUrl, (c) =>
      c.query<{ n: string }>('SELECT checkpoints_timed + checkpoints_req AS n FROM pg_stat_bgwriter'),
    );
    return Number(rows[0]!.n);
  } catch {
    return null;
  }
}

/** CPU ms used in a window: the server's (`app`) and each database backend's, with its cluster. */
export interface CpuUsed {
  app: number;
  backends: Map<number, { cluster: string; ms: number }>;
}

/**
 * Starts counting; the returned function gives the CPU milliseconds used since by the server
 * and by each of the database's backends. Backends that ended in between are not counted (the
 * pools keep theirs open; a coordinator keeps one cached connection per worker).
 */
export function startCpuCount(serverPid: number, database: string): () => CpuUsed {
  const before = new Map<number, number>();
  const app0 = cpuTicks(serverPid) ?? 0;
  for (const pid of backendsOf(database).keys()) before.set(pid, cpuTicks(pid) ?? 0);
  return () => {
    const app = ((cpuTicks(serverPid) ?? app0) - app0) * (1000 / TICKS_PER_SECOND);
    const backends = new Map<number, { cluster: string; ms: number }>();
    for (const [pid, cluster] of backendsOf(database)) {
      const now = cpuTicks(pid);
      if (now !== null) backends.set(pid, { cluster, ms: (now - (before.get(pid) ?? 0)) * (1000 / TICKS_PER_SECOND) });
    }
    return { app, backends };
  };
}

/**
 * CPU ms by where it went: `app`, each cluster's backends, and the service's background
 * connections (its job queue, outbox dispatcher and notification feed) under BACKGROUND_KEY,
 * whichever server's row was measured: they dispatch every server's writes' events, and run
 * whenever the service is up, so they are the service's cost but no request's.
 */
export function cpuByPlace(used: CpuUsed, background: ReadonlySet<number>): Record<string, number> {
  const out: Record<string, number> = { app: used.app };
  for (const [pid, { cluster, ms }] of used.backends) {
    const key = background.has(pid) ? BACKGROUND_KEY : cluster;
    out[key] = (out[key] ?? 0) + ms;
  }
  return out;
}
