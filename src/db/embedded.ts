// The embedded database: PGlite in DATA_DIR, served on a loopback port so the service
// uses the same pg driver path as with PostgreSQL. PGlite is single-process, so the
// process that owns it records its port in DATA_DIR/embedded.json; another process
// (the CLI while the server runs) connects to that port instead of opening the files.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGliteServer } from './pglite-server.js';

export interface Database {
  url: string;
  embedded: boolean;
  /** The owner announces the database ready (migrated) to other processes. */
  markReady(): void;
  /** The PGlite instance when this process owns the embedded database. */
  pglite?: PGlite;
  close(): Promise<void>;
}

interface OwnerRecord {
  pid: number;
  port: number;
  /** false while the owner is still migrating: other processes wait. */
  ready: boolean;
}

const ownerFile = (dataDir: string) => path.join(dataDir, 'embedded.json');

function urlFor(port: number) {
  return `postgresql://postgres@127.0.0.1:${port}/postgres`;
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

function processAlive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The live owner of this data directory, if another process serves it. */
export async function findRunningEmbedded(dataDir: string): Promise<OwnerRecord | undefined> {
  const file = ownerFile(dataDir);
  if (!existsSync(file)) return undefined;
  try {
    const owner = JSON.parse(readFileSync(file, 'utf8')) as OwnerRecord;
    if (owner.pid !== process.pid && processAlive(owner.pid) && (await canConnect(owner.port))) return owner;
  } catch {
    // unreadable record: treat as stale
  }
  return undefined;
}

/** Waits (up to `timeoutMs`) for the owner to finish migrating; its URL then. */
async function whenReady(dataDir: string, timeoutMs = 120_000): Promise<string | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const owner = await findRunningEmbedded(dataDir);
    if (!owner) return undefined;
    if (owner.ready) return urlFor(owner.port);
    if (Date.now() > deadline) throw new Error(`The server owning ${dataDir} did not become ready`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Opens PGlite in `dataDir` (or in memory, optionally from a dumped data directory) and
 * serves it on a loopback port.
 */
export async function startEmbedded(dataDir: string | 'memory', loadDataDir?: Blob): Promise<Database> {
  const inMemory = dataDir === 'memory';
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(inMemory ? undefined : path.join(dataDir, 'pglite'), { loadDataDir });
  const server = new PGliteServer(db);
  const port = await server.start('127.0.0.1', 0);
  const announce = (ready: boolean) => {
    if (!inMemory) writeFileSync(ownerFile(dataDir), JSON.stringify({ pid: process.pid, port, ready } satisfies OwnerRecord));
  };
  announce(false);
  return {
    url: urlFor(port),
    embedded: true,
    markReady: () => announce(true),
    pglite: db,
    async close() {
      if (!inMemory) rmSync(ownerFile(dataDir), { force: true });
      await server.stop();
      await db.close();
    },
  };
}

/** DATABASE_URL when given; else the running embedded server; else open the embedded files. */
export async function openDatabase(opts: { databaseUrl?: string; dataDir: string }): Promise<Database> {
  if (opts.databaseUrl) return { url: opts.databaseUrl, embedded: false, markReady() {}, close: async () => {} };
  const running = await whenReady(opts.dataDir);
  if (running) return { url: running, embedded: true, markReady() {}, close: async () => {} };
  return startEmbedded(opts.dataDir);
}
