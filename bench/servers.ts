// Starting the servers under test as separate processes (the service exactly as `npm start`
// runs it: the bundle dist/server.mjs with plain node, built first if stale), timing start-up to the first answer, sampling their
// resident memory from /proc, and stopping them.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, readSync, statSync, writeFileSync, writeSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildIfStale } from '../scripts/build.mjs';
import { repoRoot } from './config.js';

export type ServerKind = 'service' | 'fastify-prisma' | 'raw-pg';

const entries: Record<ServerKind, string> = {
  service: 'dist/server.mjs',
  'fastify-prisma': 'bench/baselines/fastify-prisma.ts',
  'raw-pg': 'bench/baselines/raw-pg.ts',
};

export interface RunningServer {
  kind: ServerKind;
  pid: number;
  url: string;
  startupMs: number;
  /** What the server logged (the service's pino lines, the baselines' output), without the GC trace. */
  logFile: string;
  /** V8's --trace-gc-nvp lines, one per collection. */
  gcFile: string;
  /** Bytes the JavaScript heap allocated so far: the sum of `allocated=` over the GC trace read. */
  allocatedBytes(): number;
  /** False once the process has exited (e.g. killed by something else on the machine). */
  alive(): boolean;
  exitCode(): number | string | null;
  /** Current resident set size in MB (VmRSS). */
  rssMb(): number;
  /** Peak resident set size of the process so far in MB (VmHWM). */
  hwmMb(): number;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface StartOptions {
  kind: ServerKind;
  key: string;
  /** DATABASE_URL, or DATA_DIR for the embedded database. */
  database: { url: string } | { dataDir: string };
  label: string;
  cpuProfDir?: string;
  /** Extra environment for the service (experiments: LOG_LEVEL=warn, RATE_LIMIT_PER_KEY=0, ...). */
  serviceEnv?: Record<string, string>;
}

/** Starts a server and waits for its first 200 on GET /v1/rewards (the start-up time). */
export async function startServer(opts: StartOptions): Promise<RunningServer> {
  const port = await freePort();
  const logFile = path.join(os.tmpdir(), `loyalty-bench-${opts.label}.log`);
  const gcFile = path.join(os.tmpdir(), `loyalty-bench-${opts.label}.gc.log`);
  // appended to by the child's stderr and by splitGcTrace: both at the end of the file
  writeFileSync(logFile, '');
  const logFd = openSync(logFile, 'a');
  const gcFd = openSync(gcFile, 'w');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    NODE_ENV: 'production',
    // the limiter stays in the request path, with a budget the benchmark never exhausts
    RATE_LIMIT_PER_KEY: '1000000000',
    RATE_LIMIT_PER_MERCHANT: '1000000000',
    RATE_LIMIT_PER_SESSION: '1000000000',
    REDIS_URL: '',
    DATABASE_URL: 'url' in opts.database ? opts.database.url : '',
    ...('dataDir' in opts.database ? { DATA_DIR: opts.database.dataDir } : {}),
    ...(opts.kind === 'service' ? opts.serviceEnv : {}),
  };
  if (opts.kind === 'service') buildIfStale();
  // the baselines are TypeScript files of the benchmark, run through tsx
  const loader = opts.kind === 'service' ? [] : ['--import', 'tsx'];
  // --trace-gc-nvp: each collection writes a line to stdout with the bytes allocated since the
  // one before (`allocated=`), which allocationCounter sums per measured window
  const args = [
    '--trace-gc-nvp',
    ...(opts.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', opts.cpuProfDir] : []),
    ...loader,
    entries[opts.kind],
  ];
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', logFd] });
  closeSync(logFd);
  const gcTrace = splitGcTrace(child, logFile, gcFd);
  let exited: number | string | null = null;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exited = code ?? signal ?? -1;
      resolve();
    }),
  );
  // the last lines the pipe still holds are read before `exit` is reported to callers
  const drained = new Promise<void>((resolve) => child.stdout!.once('close', resolve));
  const url = `http://127.0.0.1:${port}`;

  for (;;) {
    if (exited !== null) {
      throw new Error(`${opts.label} exited with ${exited} before answering; log:\n${readFileSync(logFile, 'utf8').slice(-3000)}`);
    }
    if (performance.now() - started > 180_000) {
      child.kill('SIGKILL');
      throw new Error(`${opts.label} did not answer within 180 s; log: ${logFile}`);
    }
    try {
      const res = await fetch(`${url}/v1/rewards?per_page=1`, { headers: { authorization: `Bearer ${opts.key}` } });
      await res.arrayBuffer();
      if (res.status === 200) break;
      if (res.status !== 503) throw new Error(`${opts.label}: GET /v1/rewards answered ${res.status}`);
    } catch (err) {
      if (err instanceof Error && err.message.includes('answered')) throw err;
    }
    await sleep(25);
  }
  const startupMs = performance.now() - started;
  const pid = child.pid!;
  return {
    kind: opts.kind,
    pid,
    url,
    startupMs,
    logFile,
    gcFile,
    allocatedBytes: () => gcTrace.allocated,
    alive: () => exited === null,
    exitCode: () => exited,
    rssMb: () => statusKb(pid, 'VmRSS') / 1024,
    hwmMb: () => statusKb(pid, 'VmHWM') / 1024,
    async stop() {
      if (exited !== null) return;
      child.kill('SIGTERM');
      // the service's graceful stop may take its deadlines in turn (requests 10 s, then a running
      // job 15 s) before node writes a --cpu-prof profile: killed sooner, the profile is lost
      const done = await Promise.race([exit.then(() => true), sleep(60_000).then(() => false)]);
      if (!done) {
        child.kill('SIGKILL');
        await exit;
      }
      await drained;
    },
  };
}

/** Samples VmRSS every 50 ms until stopped; returns the peak in MB. */
export function sampleRss(server: RunningServer) {
  let peak = server.rssMb();
  const timer = setInterval(() => {
    peak = Math.max(peak, server.rssMb());
  }, 50);
  return () => {
    clearInterval(timer);
    return Math.max(peak, server.rssMb());
  };
}

/** V8's --trace-gc-nvp line: `[pid:0x…]   123 ms: pause=… allocated=N …`. */
const GC_LINE = /\[\d+:0x[0-9a-f]+\]\s+\d+ ms: pause=/;

/**
 * Reads the server's stdout, where pino and V8's GC trace both write (V8 one whole line per
 * write), and sends each GC line to `gcFd` and everything else to the log, in order, so the log
 * holds only what the server logged. A pino chunk cut mid-line by a GC line between its halves
 * is joined again. Keeps the running sum of `allocated=`.
 */
function splitGcTrace(child: ChildProcess, logFile: string, gcFd: number) {
  const logFd = openSync(logFile, 'a');
  const state = { allocated: 0 };
  let rest = '';
  child.stdout!.setEncoding('latin1');
  child.stdout!.on('data', (chunk: string) => {
    const text = rest + chunk;
    const end = text.lastIndexOf('\n') + 1;
    rest = text.slice(end);
    let log = '';
    const lines = text.slice(0, end).split('\n');
    lines.pop(); // the empty string after the last newline
    for (const line of lines) {
      const gc = GC_LINE.exec(line);
      if (!gc) {
        log += `${line}\n`;
        continue;
      }
      // what came before the GC line is the first half of a log line: its rest follows
      log += line.slice(0, gc.index);
      const trace = line.slice(gc.index);
      writeSync(gcFd, `${trace}\n`, null, 'latin1');
      const allocated = / allocated=(\d+) /.exec(trace);
      if (allocated) state.allocated += Number(allocated[1]);
    }
    if (log) writeSync(logFd, log, null, 'latin1');
  });
  child.stdout!.once('close', () => {
    if (rest) writeSync(logFd, rest, null, 'latin1');
    closeSync(logFd);
    closeSync(gcFd);
  });
  return state;
}

/**
 * Counts the bytes the server's JavaScript heap allocates from now until the returned function
 * is called: the sum of `allocated=` over the collections V8 traces (--trace-gc-nvp) in between.
 * What was allocated before the window's first collection is counted and what follows its last
 * is not (each at most one young generation, and they tend to cancel): sound over a window of
 * many collections, which the measured windows are.
 */
export function allocationCounter(server: RunningServer) {
  const from = server.allocatedBytes();
  return () => server.allocatedBytes() - from;
}

/** The size of the server's log now: what it logs from here on is read from this offset (loggedSince). */
export function logOffset(server: RunningServer): number {
  try {
    return statSync(server.logFile).size;
  } catch {
    return 0;
  }
}

/** What the server logged from `offset` on (whole lines; at most the last 1 MB of them). */
export function loggedSince(logFile: string, offset: number): string {
  let fd: number;
  try {
    fd = openSync(logFile, 'r');
  } catch {
    return '';
  }
  try {
    const size = statSync(logFile).size;
    const from = Math.max(offset, size - 2 ** 20);
    if (size <= from) return '';
    const buf = Buffer.alloc(size - from);
    readSync(fd, buf, 0, buf.length, from);
    return buf.toString('utf8');
  } finally {
    closeSync(fd);
  }
}
