// What stops `npm start` says so in one line on stderr and exits 1, before anything is created
// or printed: a port another process holds (the fresh data folder stays empty, no key is shown),
// a database that cannot be reached, one too busy to take a connection. While it starts, the
// server already holds its port: alive (/healthz), not ready (/readyz 503 "starting"). The CLI
// names the same database troubles with service_unavailable.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exitCode, freePort, SERVER, startServerProcess } from '../processes.js';
import { cliRunner } from './run-cli.js';

const dirs: string[] = [];
const servers: net.Server[] = [];
const sockets = new Set<net.Socket>();
afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

const freshDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'loyalty-start-'));
  dirs.push(dir);
  return path.join(dir, 'data');
};

/** A TCP server on a free loopback port, doing `onSocket` with each connection. */
async function listening(onSocket: (socket: net.Socket) => void = () => {}) {
  const server = net.createServer((socket) => {
    sockets.add(socket);
    onSocket(socket);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

/** PostgreSQL's answer to a connection over its limit: ErrorResponse 53300 to the startup message. */
function tooManyClients(socket: net.Socket) {
  socket.on('error', () => {});
  socket.once('data', () => {
    const fields = ['SFATAL', 'VFATAL', 'C53300', 'Msorry, too many clients already'].map((f) => Buffer.from(`${f}\0`));
    const body = Buffer.concat([...fields, Buffer.from([0])]);
    const length = Buffer.alloc(4);
    length.writeInt32BE(body.length + 4);
    socket.end(Buffer.concat([Buffer.from('E'), length, body]));
  });
}

/** The server started with `env` until it exits: its exit code and what it printed. */
async function failedStart(env: Record<string, string>) {
  const server = await startServerProcess({ LOG_LEVEL: 'info', ...env }, { args: [SERVER], ready: /^/ });
  const code = await exitCode(server, 60_000);
  return { code, output: server.output().trim() };
}

describe('a start that cannot go on', () => {
  it('finds its port taken: one line, and nothing created or printed before', async () => {
    const taken = await listening();
    const dataDir = freshDir();
    const server = await startServerProcess({ DATA_DIR: dataDir, DATABASE_URL: '' }, { args: [SERVER], port: taken, ready: /^/ });
    expect(await exitCode(server, 60_000)).toBe(1);
    expect(server.output().trim()).toBe(
      `Port ${taken} on 127.0.0.1 is already in use (another process, or this server already running?): stop it, or set PORT to a free port`,
    );
    // the embedded database was not even opened: no folder, no demo merchant, no key shown once
    expect(readdirSync(path.dirname(dataDir))).toEqual([]);
  });

  it('finds no database at DATABASE_URL: one line naming it, not its password', async () => {
    const closed = await listening();
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const { code, output } = await failedStart({ DATABASE_URL: `postgresql://postgres:secret@127.0.0.1:${closed}/loyalty` });
    expect(code).toBe(1);
    expect(output).toMatch(
      new RegExp(
        `^The database at 127\\.0\\.0\\.1:${closed}/loyalty is unreachable \\([^\\n]*ECONNREFUSED[^\\n]*\\): start it, or correct DATABASE_URL$`,
      ),
    );
    expect(output).not.toContain('secret');
  });

  it('finds the database too busy to take a connection: its own words', async () => {
    const busy = await listening(tooManyClients);
    const { code, output } = await failedStart({ DATABASE_URL: `postgresql://postgres@127.0.0.1:${busy}/loyalty` });
    expect(code).toBe(1);
    expect(output).toBe(
      `The database at 127.0.0.1:${busy}/loyalty is too busy to take a connection (sorry, too many clients already): retry when its load has fallen, or raise its max_connections`,
    );
  });

  it('holds its port while it starts: alive, not ready, until the database gives up', async () => {
    // a database that takes the connection and never answers: the start waits out the connection timeout
    const silent = await listening((socket) => socket.on('error', () => {}));
    const port = await freePort();
    const server = await startServerProcess(
      { DATABASE_URL: `postgresql://postgres@127.0.0.1:${silent}/loyalty` },
      { args: [SERVER], port, ready: /^/ },
    );
    const get = (p: string) =>
      fetch(`http://127.0.0.1:${port}${p}`).then(
        async (r) => ({ status: r.status, body: await r.json() }),
        () => null,
      );
    await expect.poll(() => get('/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    const ready = await get('/readyz');
    // (null once the start has given up and the process has gone)
    if (ready) expect(ready).toEqual({ status: 503, body: { status: 'starting' } });
    expect(await exitCode(server, 60_000)).toBe(1);
    expect(server.output().trim()).toMatch(
      /^The database at 127\.0\.0\.1:\d+\/loyalty is unreachable \(.*timeout.*\): start it, or correct DATABASE_URL$/,
    );
  });

  it('tells the CLI the same: service_unavailable, in one line', async () => {
    const busy = await listening(tooManyClients);
    const cli = cliRunner({ ...process.env, DATABASE_URL: `postgresql://postgres@127.0.0.1:${busy}/loyalty` });
    const answer = await cli('merchants', 'create', '--slug', 'acme', '--name', 'Acme');
    expect(answer.code).toBe(1);
    expect(answer.json).toEqual({
      error: {
        code: 'service_unavailable',
        message: `The database at 127.0.0.1:${busy}/loyalty is too busy to take a connection (sorry, too many clients already): retry when its load has fallen, or raise its max_connections`,
      },
    });
  });
});
