// A service started as its own process, the way an operator runs it: for tests of start-up,
// signals, several instances and crashes. In-process tests use harness.ts instead.
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { describe } from 'vitest';

export const projectRoot = path.resolve(import.meta.dirname, '..');

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  base: string;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
}

/**
 * A port no one listens on now (another test file's server, or a service of the machine's such
 * as RabbitMQ's 25672), drawn below Linux's ephemeral range (32768+), where an outgoing
 * connection may hold one.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 12000);
    const free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

/**
 * For the files whose processes run on an embedded database of their own (DATABASE_URL ''),
 * whatever TEST_DATABASE_URL names: the run on Citus (LOYALTY_TEST_SKIP_OWN_EMBEDDED=1, set by
 * scripts/citus.sh test) leaves them out, as they would repeat the run on PostgreSQL.
 */
export const describeOnOwnEmbedded = describe.skipIf(process.env.LOYALTY_TEST_SKIP_OWN_EMBEDDED === '1');

/** The server as operators run it: the bundle, which test/global-setup.ts builds when stale. */
export const SERVER = 'dist/server.mjs';
/** The CLI as operators run it (bin/loyalty.mjs runs dist/cli.mjs). */
export const CLI = 'bin/loyalty.mjs';

/**
 * The delivery queue's retry delay. It is kept in the database's queue (pg-boss), set by each
 * instance's workers as they start: every worker a test starts, in its process or as a server
 * process, starts with this one, or a file's redelivery beside it on a shared test database
 * would wait the default 30 s.
 */
export const QUEUE_ENV = { WEBHOOK_RETRY_DELAY_SECONDS: '1' };

/**
 * Spawns `node <args>` in the project folder and waits for `ready` in its output: by default
 * the server's 'listening on' log line (an info log, so LOG_LEVEL is info unless the caller
 * sets it). The queue's retry delay is the tests' (QUEUE_ENV) unless the caller sets it.
 */
export async function startServerProcess(
  env: Record<string, string | undefined>,
  {
    args = [SERVER],
    port: chosen,
    timeoutMs = 90_000,
    ready = /listening on/,
  }: { args?: string[]; port?: number; timeoutMs?: number; ready?: RegExp } = {},
): Promise<ServerProcess> {
  const port = chosen ?? (await freePort());
  const child = spawn(process.execPath, args, {
    cwd: projectRoot,
    env: { ...process.env, LOG_LEVEL: 'info', HOST: '127.0.0.1', ...QUEUE_ENV, ...env, PORT: String(port) },
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + timeoutMs;
  while (!ready.test(output)) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`server did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, port, base: `http://127.0.0.1:${port}`, output: () => output, exited };
}

/** The exit code, or a failure showing the process's output when it has not exited in time. */
export function exitCode(server: ServerProcess, timeoutMs = 30_000): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not exit:\n${server.output()}`)), timeoutMs);
    void server.exited.then((code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/**
 * A TCP proxy to `target` (a database's or Redis's URL) that the test can cut (every connection
 * closed, nothing listening), freeze (connections stay open, and what is sent goes nowhere) or
 * open again on the same port. `sent` sees what each client sends; `passed`, made once per
 * connection, may change what the server answers on it.
 */
export function cuttableProxy(
  target: URL,
  defaultPort = 5432,
  { sent, passed }: { sent?: (data: Buffer) => void; passed?: () => (data: Buffer) => Buffer } = {},
) {
  let server: net.Server | undefined;
  let frozen = false;
  const sockets = new Set<net.Socket>();
  let port = 0;
  const open = () =>
    new Promise<void>((resolve) => {
      frozen = false;
      server = net.createServer((client) => {
        const upstream = net.connect(Number(target.port || defaultPort), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => s.destroy());
        }
        const answer = passed?.() ?? ((d: Buffer) => d);
        client.on('data', (d) => {
          sent?.(d);
          if (!frozen) upstream.write(d);
        });
        upstream.on('data', (d) => void (frozen || client.write(answer(d))));
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as net.AddressInfo).port;
        resolve();
      });
    });
  return {
    open,
    get port() {
      return port;
    },
    freeze() {
      frozen = true;
    },
    async cut() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server!.close(() => resolve()));
    },
  };
}
