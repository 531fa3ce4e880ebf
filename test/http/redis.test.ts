// A Redis (REDIS_URL) that is down is said loudly, never a silent slowdown: start-up refuses a
// REDIS_URL that does not answer; while running, every request still answers at once, the rate
// limits count in the process's own counters, /readyz and loyalty_redis_up say Redis is down,
// and one error line is logged when it goes (one warning when it is back).
// Fakes on 127.0.0.1: a port nobody listens on, a server that accepts and never answers, and a
// TCP proxy in front of the machine's real Redis (only when REDIS_URL is set, as CI's
// PostgreSQL run does) that the test closes and opens again.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { newKey, newMerchant, type TestApp, testApp, testConfig } from '../harness.js';
import { cuttableProxy, freePort, projectRoot, SERVER, startServerProcess } from '../processes.js';

const METRICS_TOKEN = 'metrics-token-0123456789';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A port on 127.0.0.1 with nothing listening (taken from the system, then let go). */
async function deadPort() {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/** A server that accepts connections and never says a word. */
async function silentServer() {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', () => sockets.delete(s));
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

let app: TestApp;
let merchantId: string;

beforeAll(async () => {
  app = await testApp();
  merchantId = (await newMerchant(app, 'redis')).id;
});

/** An app on `redisUrl` with a budget of `perKey` requests per key, its log lines, and timed calls. */
function served(redisUrl: string, perKey = 2, overrides: Record<string, string> = {}) {
  const lines: { level: number; msg: string; [k: string]: unknown }[] = [];
  const raw: string[] = [];
  const logger = pino(
    { level: 'info' },
    {
      write: (line: string) => {
        raw.push(line);
        lines.push(JSON.parse(line));
      },
    },
  );
  const service = createApp({
    db: app.db,
    logger,
    config: testConfig({
      REDIS_URL: redisUrl,
      RATE_LIMIT_PER_KEY: String(perKey),
      RATE_LIMIT_WINDOW_SECONDS: '60',
      METRICS_TOKEN,
      ...overrides,
    }),
  });
  /** The answer's status and how long it took; a failure if it takes 5 s. */
  const timed = async (url: string, init?: RequestInit) => {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${url}: no answer within 5 s`)), 5000);
    });
    try {
      const res = await Promise.race([service.fetch(`http://loyalty.test${url}`, init), late]);
      return { status: res.status, body: await res.text(), ms: performance.now() - started };
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    service,
    lines,
    raw,
    get: (key: string) => timed('/v1/tiers', { headers: { authorization: `Bearer ${key}` } }),
    admin: (token: string) =>
      timed('/admin/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ merchant { id } }' }),
      }),
    ready: async () => {
      const res = await timed('/readyz');
      return { status: res.status, body: JSON.parse(res.body) };
    },
    redisUp: async () => {
      const res = await timed('/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      return /^loyalty_redis_up (\S+)$/m.exec(res.body)?.[1];
    },
    errors: () => lines.filter((l) => l.level >= 50 && /redis/i.test(l.msg)),
  };
}

describe('start-up with a REDIS_URL that does not answer', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'loyalty-redis-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  /** The server process's exit code, output and time to exit (it is killed after 20 s). */
  async function start(redisUrl: string) {
    const child = spawn(process.execPath, [SERVER], {
      cwd: projectRoot,
      env: {
        ...process.env,
        DATABASE_URL: '',
        DATA_DIR: dataDir,
        REDIS_URL: redisUrl,
        LOG_LEVEL: 'info',
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
        WORKERS: 'false',
      },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const started = performance.now();
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearTimeout(killer);
    return { code, output, ms: performance.now() - started };
  }

  it('refuses to start when nothing listens there: exit 1, one line naming REDIS_URL (never its password)', async () => {
    const port = await deadPort();
    const { code, output, ms } = await start(`redis://:hunter2@127.0.0.1:${port}`);
    expect(code, output).toBe(1);
    expect(ms).toBeLessThan(15_000);
    const named = output.split('\n').filter((l) => l.includes('REDIS_URL'));
    expect(named, output).toHaveLength(1);
    expect(named[0]).toContain(`127.0.0.1:${port}`);
    expect(output).not.toContain('hunter2');
    expect(output).not.toMatch(/listening on/);
  }, 30_000);

  it('refuses to start when a server there accepts and never answers', async () => {
    const silent = await silentServer();
    try {
      const { code, output, ms } = await start(`redis://127.0.0.1:${silent.port}`);
      expect(code, output).toBe(1);
      expect(ms).toBeLessThan(15_000);
      expect(
        output.split('\n').filter((l) => l.includes('REDIS_URL')),
        output,
      ).toHaveLength(1);
    } finally {
      await silent.close();
    }
  }, 30_000);

  it.skipIf(!process.env.REDIS_URL)(
    'starts when Redis answers, and says so on /readyz',
    async () => {
      const database = process.env.TEST_DATABASE_URL
        ? { DATABASE_URL: process.env.TEST_DATABASE_URL }
        : { DATABASE_URL: '', DATA_DIR: dataDir };
      const server = await startServerProcess({ ...database, REDIS_URL: process.env.REDIS_URL, WORKERS: 'false' });
      try {
        const ready = async () => {
          const res = await fetch(`${server.base}/readyz`);
          return { status: res.status, body: await res.json() };
        };
        // (the database's notifications come up just after the server answers)
        await expect.poll(ready).toEqual({ status: 200, body: { status: 'ready', redis: 'up', notifications: 'up' } });
      } finally {
        server.child.kill('SIGKILL');
        await server.exited;
      }
    },
    120_000,
  );
});

describe('Redis unreachable while the service runs', () => {
  /** Requests for `forMs`: each answers well within the request timeout, and the key's budget still holds. */
  async function keepsAnswering(s: ReturnType<typeof served>, key: string, forMs: number) {
    const statuses: number[] = [];
    const until = Date.now() + forMs;
    while (Date.now() < until) {
      const { status, ms } = await s.get(key);
      expect(ms, `request ${statuses.length + 1}`).toBeLessThan(2000);
      statuses.push(status);
      await sleep(100);
    }
    return statuses;
  }

  it('nothing listening: answers at once, limits from the process’s own counters, says so once', async () => {
    const s = served(`redis://:hunter2@127.0.0.1:${await deadPort()}`, 2, { ADMIN_LOGIN_MAX_FAILURES: '2' });
    try {
      const key = await newKey(app, merchantId);
      // over 3 s the client's reconnection delays grow well past a second
      const statuses = await keepsAnswering(s, key, 3000);
      expect(statuses.slice(0, 3)).toEqual([200, 200, 429]);
      expect(new Set(statuses.slice(2))).toEqual(new Set([429]));
      // the admin sign-in lockout too
      const { admin_token } = await newMerchant(app, 'redis-admin');
      const attempts = [];
      for (const token of [`lpa_${'x'.repeat(38)}`, `lpa_${'x'.repeat(38)}`, admin_token]) attempts.push(await s.admin(token));
      expect(attempts.map((a) => a.status)).toEqual([401, 401, 429]);
      for (const a of attempts) expect(a.ms).toBeLessThan(2000);
      expect(await s.ready()).toEqual({ status: 200, body: { status: 'degraded', redis: 'down' } });
      expect(await s.redisUp()).toBe('0');
      expect(s.errors()).toHaveLength(1);
      expect(s.raw.join('')).not.toContain('hunter2');
    } finally {
      await s.service.close();
    }
  }, 30_000);

  it('a server that accepts and never answers: the same', async () => {
    const silent = await silentServer();
    const s = served(`redis://127.0.0.1:${silent.port}`);
    try {
      const key = await newKey(app, merchantId);
      const statuses = await keepsAnswering(s, key, 3000);
      expect(statuses.slice(0, 3)).toEqual([200, 200, 429]);
      expect(await s.ready()).toEqual({ status: 200, body: { status: 'degraded', redis: 'down' } });
      expect(await s.redisUp()).toBe('0');
      expect(s.errors()).toHaveLength(1);
    } finally {
      await s.service.close();
      await silent.close();
    }
  }, 30_000);

  describe.skipIf(!process.env.REDIS_URL)('the real Redis, behind a proxy the test controls', () => {
    const target = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');

    it('goes away (connections cut, nothing listening) and comes back', async () => {
      const proxy = cuttableProxy(target, 6379);
      await proxy.open();
      const s = served(`redis://127.0.0.1:${proxy.port}`, 3);
      try {
        await expect.poll(async () => (await s.ready()).body).toEqual({ status: 'ready', redis: 'up' });
        expect(await s.redisUp()).toBe('1');
        const key = await newKey(app, merchantId);
        expect((await s.get(key)).status).toBe(200); // counted in Redis

        await proxy.cut();
        // the process's own counters start afresh: 3 more, then 429
        const statuses = await keepsAnswering(s, key, 2000);
        expect(statuses.slice(0, 4)).toEqual([200, 200, 200, 429]);
        expect(await s.ready()).toEqual({ status: 200, body: { status: 'degraded', redis: 'down' } });
        expect(await s.redisUp()).toBe('0');
        expect(s.errors()).toHaveLength(1);

        await proxy.open();
        // reconnection backs off up to 5 s between attempts
        await expect.poll(async () => (await s.ready()).body, { interval: 200 }).toEqual({ status: 'ready', redis: 'up' });
        expect(await s.redisUp()).toBe('1');
        expect(s.lines.filter((l) => l.level === 40 && /redis/i.test(l.msg) && /back/i.test(l.msg))).toHaveLength(1);
        expect(s.errors()).toHaveLength(1);
        // shared again: Redis remembers the one request it counted before it went away
        const again = await s.get(key);
        expect(again.status).toBe(200);
      } finally {
        await s.service.close();
        await proxy.cut().catch(() => {});
      }
    }, 60_000);

    it('stops answering with its connections open: requests wait at most a moment', async () => {
      const proxy = cuttableProxy(target, 6379);
      await proxy.open();
      const s = served(`redis://127.0.0.1:${proxy.port}`, 3);
      try {
        await expect.poll(async () => (await s.ready()).body).toEqual({ status: 'ready', redis: 'up' });
        const key = await newKey(app, merchantId);
        expect((await s.get(key)).status).toBe(200);
        proxy.freeze();
        const statuses = await keepsAnswering(s, key, 3000);
        expect(statuses.slice(0, 4)).toEqual([200, 200, 200, 429]);
        expect(await s.ready()).toEqual({ status: 200, body: { status: 'degraded', redis: 'down' } });
        expect(s.errors()).toHaveLength(1);
      } finally {
        await s.service.close();
        await proxy.cut().catch(() => {});
      }
    }, 60_000);
  });
});
