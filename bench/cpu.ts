// CPU time of the processes serving a measurement, read from /proc: the server under test and
// the PostgreSQL backends connected to the benchmark's database, per cluster (a backend's
// command line is its process title, `postgres: 15/citus1: postgres loyalty_bench …`). So a row
// says how many CPU milliseconds a request cost on the single node, on the coordinator and on
// the workers, which a capacity estimate needs and req/s on a shared machine does not give.
import { readdirSync, readFileSync } from 'node:fs';

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

/**
 * Starts counting; the returned function gives the CPU milliseconds used since, by the server
 * (`app`) and by the database's backends per cluster. Backends that ended in between are not
 * counted (the pools keep theirs open; a coordinator keeps one cached connection per worker).
 */
export function startCpuCount(serverPid: number, database: string): () => Record<string, number> {
  const before = new Map<number, number>();
  const app0 = cpuTicks(serverPid) ?? 0;
  for (const pid of backendsOf(database).keys()) before.set(pid, cpuTicks(pid) ?? 0);
  return () => {
    const used: Record<string, number> = { app: ((cpuTicks(serverPid) ?? app0) - app0) * (1000 / TICKS_PER_SECOND) };
    for (const [pid, cluster] of backendsOf(database)) {
      const now = cpuTicks(pid);
      if (now === null) continue;
      used[cluster] = (used[cluster] ?? 0) + (now - (before.get(pid) ?? 0)) * (1000 / TICKS_PER_SECOND);
    }
    return used;
  };
}
