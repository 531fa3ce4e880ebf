// The admin API's front door: a client address that keeps sending wrong admin
// tokens is locked out for a while (each failure logged without the token), and each admin
// token has a request budget like an API key. Behind a load balancer the client address comes
// from X-Forwarded-For as TRUST_PROXY says (never otherwise), so one address's failures lock
// that address only; failures are counted per token prefix too; an API key sent by mistake is
// told so and not counted.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { isWellFormed } from '../../src/domain/access/tokens.js';
import { createApp } from '../../src/http/app.js';
import type { Logger } from '../../src/observability/logger.js';
import { newKey, newMerchant, type TestApp, testApp, testConfig } from '../harness.js';

let app: TestApp;
let token: string;

beforeAll(async () => {
  app = await testApp();
  token = (await newMerchant(app, 'hardened')).admin_token;
});

const query = (served: ReturnType<typeof createApp>, bearer: string, headers: Record<string, string> = {}) =>
  served.fetch('http://loyalty.test/admin/graphql', {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query: '{ merchant { name } }' }),
  });

describe('failed admin sign-ins', () => {
  it('locks the address out after the allowed failures, even for a right token, and logs each failure without the token', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const served = createApp({
      db: app.db,
      logger,
      config: testConfig({ ADMIN_LOGIN_MAX_FAILURES: '3', ADMIN_LOGIN_LOCKOUT_SECONDS: '60', REDIS_URL: '' }),
    });
    const wrong = `lpa_${'x'.repeat(38)}`;
    expect((await query(served, token)).status).toBe(200);
    const failures = [];
    for (let i = 0; i < 3; i++) failures.push((await query(served, wrong)).status);
    expect(failures).toEqual([401, 401, 401]);
    const locked = await query(served, token);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await locked.json()).errors[0].extensions.code).toBe('rate_limited');
    const logged = lines.filter((l) => l.includes('admin authentication failed'));
    expect(logged).toHaveLength(3);
    expect(lines.join('\n')).not.toContain(wrong);
    await served.close();
  });
});

describe('admin request budget', () => {
  it('answers 429 past the per-token budget, with the rate-limit headers', async () => {
    const served = createApp({
      db: app.db,
      config: testConfig({ RATE_LIMIT_PER_KEY: '2', RATE_LIMIT_WINDOW_SECONDS: '60', REDIS_URL: '' }),
    });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push(await query(served, token));
    expect(statuses.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(statuses[0]!.headers.get('ratelimit')).toMatch(/^"key";r=1;t=\d+$/);
    await served.close();
  });
});

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** A well-formed admin token (right shape and checksum) starting with `prefix` (lpa_ + 8): a guess at that token. */
function guessWithPrefix(prefix: string, n: number) {
  const body = `${prefix.slice(4)}${String(n).padStart(24, '0')}`;
  const digest = createHash('sha256').update(body).digest();
  let check = '';
  for (let i = 0; check.length < 6; i++) check += ALPHABET[digest[i % digest.length]! % 62];
  const token = `lpa_${body}${check}`;
  expect(isWellFormed('admin', token)).toBe(true);
  return token;
}

const lockedApp = (overrides: Record<string, string> = {}, logger?: Logger) =>
  createApp({
    db: app.db,
    logger,
    config: testConfig({ ADMIN_LOGIN_MAX_FAILURES: '3', ADMIN_LOGIN_LOCKOUT_SECONDS: '60', REDIS_URL: '', ...overrides }),
  });
const from = (address: string) => ({ 'x-forwarded-for': address });
const wrong = `lpa_${'x'.repeat(38)}`;

describe('failed admin sign-ins behind a proxy', () => {
  it('TRUST_PROXY=1: failures from one forwarded address lock that address only', async () => {
    const served = lockedApp({ TRUST_PROXY: '1' });
    try {
      for (let i = 0; i < 3; i++) expect((await query(served, wrong, from('203.0.113.7'))).status).toBe(401);
      expect((await query(served, token, from('203.0.113.7'))).status).toBe(429);
      // a client that wrote its own X-Forwarded-For: the proxy appended the address it saw
      expect((await query(served, token, from('198.51.100.1, 203.0.113.7'))).status).toBe(429);
      expect((await query(served, token, from('198.51.100.2'))).status).toBe(200);
      expect((await query(served, token, from('203.0.113.7, 198.51.100.2'))).status).toBe(200);
    } finally {
      await served.close();
    }
  });

  it('without TRUST_PROXY, X-Forwarded-For is ignored: changing it does not escape the lockout', async () => {
    const served = lockedApp({ TRUST_PROXY: '' });
    try {
      for (let i = 0; i < 3; i++) expect((await query(served, wrong, from(`203.0.113.${i}`))).status).toBe(401);
      expect((await query(served, token, from('198.51.100.2'))).status).toBe(429);
    } finally {
      await served.close();
    }
  });

  it('TRUST_PROXY as addresses: through a real socket from a trusted proxy (127.0.0.1), the forwarded address counts', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const served = lockedApp({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8', LOG_LEVEL: 'info' }, logger);
    const server = createServer((req, res) => void served.listener(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const post = (bearer: string, forwarded: string) =>
      fetch(`${base}/admin/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', 'x-forwarded-for': forwarded },
        body: JSON.stringify({ query: '{ merchant { name } }' }),
      }).then((r) => r.status);
    try {
      // 10.1.2.3 is a trusted proxy too: the client is the address before it
      for (let i = 0; i < 3; i++) expect(await post(wrong, '192.0.2.9, 10.1.2.3')).toBe(401);
      expect(await post(token, '192.0.2.9')).toBe(429);
      expect(await post(token, '192.0.2.10, 10.1.2.3')).toBe(200);
      const failures = lines.filter((l) => l.msg === 'admin authentication failed');
      expect(failures.map((l) => l.client)).toEqual(['192.0.2.9', '192.0.2.9', '192.0.2.9']);
      // the request log names the same address
      expect(lines.filter((l) => l.msg === 'request').map((l) => l.client)).toContain('192.0.2.10');
    } finally {
      await new Promise((r) => server.close(r));
      await served.close();
    }
  });

  it('counts failures per token prefix too: one token guessed from many addresses is locked', async () => {
    const target = await newMerchant(app, 'guessed');
    const prefix = target.admin_token.slice(0, 12);
    const served = lockedApp({ TRUST_PROXY: '1' });
    try {
      for (let i = 0; i < 3; i++) expect((await query(served, guessWithPrefix(prefix, i), from(`203.0.113.${10 + i}`))).status).toBe(401);
      // from a fresh address, that prefix is locked, the right token too
      const locked = await query(served, target.admin_token, from('198.51.100.20'));
      expect(locked.status).toBe(429);
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
      // the address is not: another merchant's token from it is served
      expect((await query(served, token, from('198.51.100.20'))).status).toBe(200);
      // and a malformed token (wrong checksum) says nothing of the token it resembles: counted per address only
      const other = await newMerchant(app, 'typo');
      const typo = `${other.admin_token.slice(0, -1)}${other.admin_token.endsWith('A') ? 'B' : 'A'}`;
      for (let i = 0; i < 3; i++) expect((await query(served, typo, from(`203.0.113.${20 + i}`))).status).toBe(401);
      expect((await query(served, other.admin_token, from('198.51.100.21'))).status).toBe(200);
    } finally {
      await served.close();
    }
  });

  it('an API key sent to the admin API is told so (401) and is not a failed sign-in', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const apiKey = await newKey(app, (await newMerchant(app, 'mistaken')).id);
    const served = lockedApp({}, logger);
    try {
      for (let i = 0; i < 5; i++) {
        const res = await query(served, apiKey);
        expect(res.status).toBe(401);
        const error = (await res.json()).errors[0];
        expect(error.extensions.code).toBe('invalid_token');
        expect(error.message).toMatch(/API key.*not an admin token/i);
      }
      // the admin app's sign-in says the same
      const signIn = await served.fetch('http://loyalty.test/admin/session', {
        method: 'POST',
        headers: { origin: 'http://loyalty.test', 'content-type': 'application/json' },
        body: JSON.stringify({ token: apiKey }),
      });
      expect(signIn.status).toBe(401);
      expect((await signIn.json()).error.message).toMatch(/API key.*not an admin token/i);
      expect((await query(served, token)).status).toBe(200);
      expect(lines.filter((l) => l.includes('admin authentication failed'))).toHaveLength(0);
      expect(lines.join('\n')).not.toContain(apiKey);
    } finally {
      await served.close();
    }
  });
});
