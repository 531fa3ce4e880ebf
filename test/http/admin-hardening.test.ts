// The admin API's front door (issue 14): a client address that keeps sending wrong admin
// tokens is locked out for a while (each failure logged without the token), and each admin
// token has a request budget like an API key.
import { pino } from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { newMerchant, testApp, testConfig, type TestApp } from '../harness.js';

let app: TestApp;
let token: string;

beforeAll(async () => {
  app = await testApp();
  token = (await newMerchant(app, 'hardened')).admin_token;
});

const query = (served: ReturnType<typeof createApp>, bearer: string) =>
  served.fetch('http://loyalty.test/admin/graphql', {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
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
