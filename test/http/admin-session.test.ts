// The admin app's session rules: sign in once with the admin token, then an
// HttpOnly, SameSite=Strict session cookie scoped to /admin (Secure behind HTTPS), kept
// server-side as a hash with idle and absolute expiry; CSRF token on every GraphQL request and
// on sign-out; /admin refuses cross-origin requests; failed sign-ins share the admin lockout.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { rotateAdminToken } from '../../src/domain/merchants/merchants.js';
import { createApp } from '../../src/http/app.js';
import { newMerchant, type TestApp, testApp, testConfig } from '../harness.js';

const ORIGIN = 'http://loyalty.test';
let app: TestApp;
let served: ReturnType<typeof createApp>;
let merchant: Awaited<ReturnType<typeof newMerchant>>;
let dist: string;

beforeAll(async () => {
  app = await testApp();
  merchant = await newMerchant(app, 'session');
  // a stand-in for the built app: the tests here are about the HTTP rules, not the page
  dist = mkdtempSync(path.join(tmpdir(), 'admin-app-'));
  mkdirSync(path.join(dist, 'assets'));
  writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>Loyalty admin</title>');
  writeFileSync(path.join(dist, 'assets', 'app-1234.js'), 'console.log(1)');
  served = createApp({ db: app.db, config: testConfig(), adminAppDist: dist });
});

afterAll(async () => {
  await served?.close();
});

const call = (p: string, init: RequestInit = {}, via = served) => via.fetch(`${ORIGIN}${p}`, init);

async function signIn(token = merchant.admin_token, headers: Record<string, string> = {}, via = served) {
  const res = await call(
    '/admin/session',
    {
      method: 'POST',
      headers: { origin: ORIGIN, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ token }),
    },
    via,
  );
  const setCookie = res.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0]!;
  return {
    res,
    setCookie,
    cookie,
    body: res.status === 201 ? ((await res.json()) as { csrf_token: string; merchant: { slug: string } }) : null,
  };
}

function gql(cookie: string, csrf: string | null, query: string, headers: Record<string, string> = {}, via = served) {
  return call(
    '/admin/app/graphql',
    {
      method: 'POST',
      headers: {
        origin: ORIGIN,
        cookie,
        'content-type': 'application/json',
        ...(csrf === null ? {} : { 'x-csrf-token': csrf }),
        ...headers,
      },
      body: JSON.stringify({ query }),
    },
    via,
  );
}

const codeOf = async (res: Response) => {
  const body = (await res.json()) as { error?: { code: string }; errors?: { extensions: { code: string } }[] };
  return body.error?.code ?? body.errors?.[0]?.extensions.code;
};

describe('sign-in', () => {
  it('sets an HttpOnly, SameSite=Strict cookie scoped to /admin, without Secure over plain HTTP, and answers the CSRF token (never the token)', async () => {
    const { res, setCookie, body } = await signIn();
    expect(res.status).toBe(201);
    expect(setCookie).toMatch(/^loyalty_admin_session=[\w-]{43}; Path=\/admin; Max-Age=86400; HttpOnly; SameSite=Strict$/);
    expect(body!.merchant.slug).toBe(merchant.slug);
    expect(body!.csrf_token).toMatch(/^[\w-]{43}$/);
    expect(JSON.stringify(body)).not.toContain(merchant.admin_token);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('behind a proxy TRUST_PROXY believes, takes the scheme and host from X-Forwarded-*: Secure over HTTPS, and that origin is its own', async () => {
    const proxied = createApp({ db: app.db, config: testConfig({ TRUST_PROXY: '1' }), adminAppDist: dist });
    try {
      const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'shop.example' };
      const { res, setCookie } = await signIn(merchant.admin_token, { origin: 'https://shop.example', ...forwarded }, proxied);
      expect(res.status).toBe(201);
      expect(setCookie).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
      // the request's own origin is no longer the one the browser used
      expect((await signIn(merchant.admin_token, forwarded, proxied)).res.status).toBe(403);
    } finally {
      await proxied.close();
    }
  });

  it('without TRUST_PROXY, ignores X-Forwarded-Proto and -Host, which any client can write', async () => {
    // the cookie's Secure follows the connection, not the header
    const { res, setCookie } = await signIn(merchant.admin_token, { 'x-forwarded-proto': 'https' });
    expect(res.status).toBe(201);
    expect(setCookie).not.toMatch(/Secure/);
    // nor can a request name another origin as the app's own
    const foreign = await signIn(merchant.admin_token, {
      origin: 'https://evil.example',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'evil.example',
    });
    expect(foreign.res.status).toBe(403);
    expect(await codeOf(foreign.res)).toBe('csrf_rejected');
  });

  it('stores only a hash of the session id', async () => {
    const { cookie } = await signIn();
    const id = cookie.split('=')[1]!;
    const rows = await app.db.adminSession.findMany({ where: { merchantId: merchant.id } });
    expect(rows.some((r) => r.idHash === createHash('sha256').update(id).digest('hex'))).toBe(true);
    expect(rows.some((r) => JSON.stringify(r).includes(id))).toBe(false);
  });

  it('refuses a wrong token (401), a body that is not JSON (415), and a sign-in from another origin (403)', async () => {
    expect((await signIn(`lpa_${'x'.repeat(38)}`)).res.status).toBe(401);
    const form = await call('/admin/session', { method: 'POST', headers: { origin: ORIGIN, 'content-type': 'text/plain' }, body: 'x' });
    expect(form.status).toBe(415);
    const foreign = await signIn(merchant.admin_token, { origin: 'https://evil.example' });
    expect(foreign.res.status).toBe(403);
    expect(await codeOf(foreign.res)).toBe('csrf_rejected');
  });

  it('locks the client out after ADMIN_LOGIN_MAX_FAILURES failures, counted with the bearer API', async () => {
    const locked = createApp({ db: app.db, config: testConfig({ ADMIN_LOGIN_MAX_FAILURES: '3', REDIS_URL: '' }), adminAppDist: dist });
    const wrong = `lpa_${'y'.repeat(38)}`;
    expect((await signIn(wrong, {}, locked)).res.status).toBe(401);
    const bearer = await call(
      '/admin/graphql',
      {
        method: 'POST',
        headers: { authorization: `Bearer ${wrong}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ merchant { id } }' }),
      },
      locked,
    );
    expect(bearer.status).toBe(401);
    expect((await signIn(wrong, {}, locked)).res.status).toBe(401);
    // the right token is refused too while locked out
    const refused = await signIn(merchant.admin_token, {}, locked);
    expect(refused.res.status).toBe(429);
    expect(Number(refused.res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await codeOf(refused.res)).toBe('rate_limited');
    await locked.close();
  });
});

describe('the app GraphQL endpoint', () => {
  it('runs the admin schema as the session merchant with the CSRF header', async () => {
    const { cookie, body } = await signIn();
    const res = await gql(cookie, body!.csrf_token, '{ merchant { slug } }');
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).data.merchant.slug).toBe(merchant.slug);
  });

  it('refuses a request without the CSRF header, or with another session’s (403 csrf_rejected)', async () => {
    const { cookie } = await signIn();
    const other = await signIn();
    for (const csrf of [null, '', other.body!.csrf_token]) {
      const res = await gql(cookie, csrf, 'mutation { update_merchant_settings(name: "Hacked") { name } }');
      expect(res.status).toBe(403);
      expect(await codeOf(res)).toBe('csrf_rejected');
    }
    expect((await app.db.merchant.findUniqueOrThrow({ where: { id: merchant.id } })).name).not.toBe('Hacked');
  });

  it('refuses cross-origin requests even with a valid cookie and CSRF token', async () => {
    const { cookie, body } = await signIn();
    const csrf = body!.csrf_token;
    const cases: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { origin: '', 'sec-fetch-site': 'cross-site' },
      { origin: '', 'sec-fetch-site': 'same-site' },
      // no proof of where it comes from
      { origin: '' },
    ];
    for (const headers of cases) {
      const sent = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== ''));
      const res = await call('/admin/app/graphql', {
        method: 'POST',
        headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json', ...sent },
        body: JSON.stringify({ query: '{ merchant { slug } }' }),
      });
      expect(res.status, JSON.stringify(headers)).toBe(403);
    }
    const sameOrigin = await call('/admin/app/graphql', {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
      body: JSON.stringify({ query: '{ merchant { slug } }' }),
    });
    expect(sameOrigin.status).toBe(200);
    const preflight = await call('/admin/app/graphql', {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('is 401 without a session, and the bearer API never accepts the cookie', async () => {
    expect((await gql('', 'x', '{ merchant { slug } }')).status).toBe(401);
    const { cookie, body } = await signIn();
    const bearer = await call('/admin/graphql', {
      method: 'POST',
      headers: { origin: ORIGIN, cookie, 'x-csrf-token': body!.csrf_token, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ merchant { slug } }' }),
    });
    expect(bearer.status).toBe(401);
  });
});

describe('session end', () => {
  const sessionRow = async (cookie: string) => {
    const idHash = createHash('sha256').update(cookie.split('=')[1]!).digest('hex');
    return { idHash, row: await app.db.adminSession.findUnique({ where: { idHash } }) };
  };

  it('signs out with the CSRF header (204, cookie cleared, session gone); without it 403', async () => {
    const { cookie, body } = await signIn();
    const headers = { origin: ORIGIN, cookie };
    expect((await call('/admin/session', { method: 'DELETE', headers })).status).toBe(403);
    const out = await call('/admin/session', { method: 'DELETE', headers: { ...headers, 'x-csrf-token': body!.csrf_token } });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^loyalty_admin_session=; Path=\/admin; Max-Age=0; HttpOnly; SameSite=Strict/);
    expect((await sessionRow(cookie)).row).toBeNull();
    expect((await call('/admin/session', { headers })).status).toBe(401);
    expect((await gql(cookie, body!.csrf_token, '{ merchant { slug } }')).status).toBe(401);
  });

  it('ends after the idle time and at the absolute end', async () => {
    const idle = await signIn();
    const { idHash } = await sessionRow(idle.cookie);
    // the idle time (8 h), plus the minute by which the stored last request may lag the real one
    await app.db.adminSession.update({ where: { idHash }, data: { lastSeenAt: new Date(Date.now() - 8 * 3600_000 - 60_000) } });
    const res = await gql(idle.cookie, idle.body!.csrf_token, '{ merchant { slug } }');
    expect(res.status).toBe(401);
    expect(await codeOf(res)).toBe('invalid_token');

    const old = await signIn();
    const at = await sessionRow(old.cookie);
    await app.db.adminSession.update({ where: { idHash: at.idHash }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await call('/admin/session', { headers: { origin: ORIGIN, cookie: old.cookie } })).status).toBe(401);

    const fresh = await signIn();
    const info = await call('/admin/session', { headers: { origin: ORIGIN, cookie: fresh.cookie } });
    expect(info.status).toBe(200);
    const described = (await info.json()) as { csrf_token: string; expires_at: string; idle_expires_at: string };
    expect(described.csrf_token).toBe(fresh.body!.csrf_token);
    expect(Date.parse(described.idle_expires_at) - Date.now()).toBeGreaterThan(8 * 3600_000 - 60_000);
    expect(Date.parse(described.expires_at) - Date.now()).toBeGreaterThan(24 * 3600_000 - 60_000);
  });

  it('ends every session of the merchant when its admin token is rotated', async () => {
    const own = await newMerchant(app, 'rotate');
    const { cookie, body } = await signIn(own.admin_token);
    expect((await gql(cookie, body!.csrf_token, '{ merchant { slug } }')).status).toBe(200);
    await rotateAdminToken(app.db, own.slug);
    expect((await gql(cookie, body!.csrf_token, '{ merchant { slug } }')).status).toBe(401);
  });
});

describe('a short idle time (ADMIN_SESSION_IDLE_SECONDS=60)', () => {
  // The clock is faked (Date only): minutes pass without waiting. The last request's time is
  // written at most every min(60 s, idle / 4) = 15 s here, so a session left alone ends 60 to
  // 75 s after its last request, and one in use never ends by idleness.
  let short: ReturnType<typeof createApp>;
  beforeAll(() => {
    short = createApp({ db: app.db, config: testConfig({ ADMIN_SESSION_IDLE_SECONDS: '60' }), adminAppDist: dist });
  });
  afterAll(async () => {
    await short?.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Signs in at the faked time; then `at(ms)` moves the clock to ms after the sign-in and makes a request. */
  async function session() {
    const start = Date.now();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(start);
    const { cookie, body } = await signIn(merchant.admin_token, {}, short);
    let last = 0;
    const at = async (ms: number) => {
      vi.setSystemTime(start + ms);
      last = ms;
      return (await gql(cookie, body!.csrf_token, '{ merchant { slug } }', {}, short)).status;
    };
    const info = async () => {
      const res = await call('/admin/session', { headers: { origin: ORIGIN, cookie } }, short);
      return {
        status: res.status,
        idleEnd: res.status === 200 ? Date.parse(((await res.json()) as { idle_expires_at: string }).idle_expires_at) - start : 0,
      };
    };
    const idHash = createHash('sha256').update(cookie.split('=')[1]!).digest('hex');
    const lastSeen = async () => (await app.db.adminSession.findUniqueOrThrow({ where: { idHash } })).lastSeenAt.getTime() - start;
    return { at, info, lastSeen, last: () => last };
  }

  it('keeps a session used every 25 s for ten minutes (it used to end at 75 s)', async () => {
    const { at } = await session();
    for (let ms = 25_000; ms <= 600_000; ms += 25_000) expect(await at(ms), `at ${ms / 1000} s`).toBe(200);
  });

  it('keeps a session whose requests are uneven but never 60 s apart', async () => {
    const { at } = await session();
    let ms = 0;
    for (const gap of [14_000, 59_000, 14_000, 59_900, 1000, 59_999, 44_000, 15_000, 59_999, 59_999]) {
      ms += gap;
      expect(await at(ms), `after a gap of ${gap / 1000} s, at ${ms / 1000} s`).toBe(200);
    }
  });

  it('ends a session left alone between 60 and 75 s after its last request, as idle_expires_at says', async () => {
    const first = await session();
    for (const ms of [20_000, 30_000, 50_000]) expect(await first.at(ms)).toBe(200);
    const { status, idleEnd } = await first.info();
    expect(status).toBe(200);
    expect(idleEnd).toBeGreaterThanOrEqual(first.last() + 60_000);
    expect(idleEnd).toBeLessThanOrEqual(first.last() + 75_000);
    expect(await first.at(first.last() + 75_000)).toBe(401);
    vi.useRealTimers();

    // just under the idle time after the last request: still in use
    const second = await session();
    expect(await second.at(10_000)).toBe(200);
    expect(await second.at(10_000 + 59_999)).toBe(200);
    // and a session never used after sign-in ends too
    vi.useRealTimers();
    const third = await session();
    expect(await third.at(75_000)).toBe(401);
  });

  it('writes the last request time at most every 15 s, never backwards', async () => {
    const { at, lastSeen } = await session();
    expect(await lastSeen()).toBe(0);
    expect(await at(10_000)).toBe(200);
    expect(await lastSeen()).toBe(0);
    expect(await at(15_000)).toBe(200);
    expect(await lastSeen()).toBe(15_000);
    expect(await at(29_000)).toBe(200);
    expect(await lastSeen()).toBe(15_000);
    expect(await at(30_000)).toBe(200);
    expect(await lastSeen()).toBe(30_000);
  });
});

describe('the session policy (GET /admin/session/policy)', () => {
  it('states the configured lifetimes without a session; same-origin only, GET only', async () => {
    const configured = createApp({
      db: app.db,
      config: testConfig({ ADMIN_SESSION_IDLE_SECONDS: '5400', ADMIN_SESSION_MAX_SECONDS: '172800' }),
      adminAppDist: dist,
    });
    try {
      const res = await call('/admin/session/policy', { headers: { origin: ORIGIN } }, configured);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({ idle_seconds: 5400, max_seconds: 172800, idle_margin_seconds: 60 });
      const defaults = await call('/admin/session/policy', { headers: { 'sec-fetch-site': 'same-origin' } });
      expect(await defaults.json()).toEqual({ idle_seconds: 28800, max_seconds: 86400, idle_margin_seconds: 60 });
      expect((await call('/admin/session/policy', { headers: { origin: 'https://evil.example' } }, configured)).status).toBe(403);
      const post = await call('/admin/session/policy', { method: 'POST', headers: { origin: ORIGIN } }, configured);
      expect(post.status).toBe(405);
      expect(post.headers.get('allow')).toBe('GET');
      // other paths under /admin/session are not pages of the app
      expect((await call('/admin/session/other', { headers: { origin: ORIGIN } }, configured)).status).toBe(404);
    } finally {
      await configured.close();
    }
  });
});

describe('the app files', () => {
  it('answers every page with index.html under a strict CSP, and hashed assets cached for a year', async () => {
    for (const page of ['/admin', '/admin/', '/admin/customers/abc', '/admin/integrations/api-keys']) {
      const res = await call(page, { headers: { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' } });
      expect(res.status, page).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      // this origin only, but for images, which may also come from any https address (products' images)
      expect(res.headers.get('content-security-policy')).toBe(
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
      );
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(await res.text()).toContain('Loyalty admin');
    }
    const asset = await call('/admin/assets/app-1234.js');
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await call('/admin/assets/missing.js')).status).toBe(404);
    expect((await call('/admin/assets/../../package.json')).status).toBe(404);
  });

  it('opens from a link on another site (a navigation), but refuses other cross-site loads', async () => {
    const link = await call('/admin', { headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' } });
    expect(link.status).toBe(200);
    const embedded = await call('/admin/assets/app-1234.js', { headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' } });
    expect(embedded.status).toBe(403);
  });
});
