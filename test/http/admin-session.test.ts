// The admin app's session rules (issue 13): sign in once with the admin token, then an
// HttpOnly, SameSite=Strict session cookie scoped to /admin (Secure behind HTTPS), kept
// server-side as a hash with idle and absolute expiry; CSRF token on every GraphQL request and
// on sign-out; /admin refuses cross-origin requests; failed sign-ins share the admin lockout.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateAdminToken } from '../../src/domain/merchants/merchants.js';
import { createApp } from '../../src/http/app.js';
import { newMerchant, testApp, testConfig, type TestApp } from '../harness.js';

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
  const res = await call('/admin/session', {
    method: 'POST',
    headers: { origin: ORIGIN, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ token }),
  }, via);
  const setCookie = res.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0]!;
  return { res, setCookie, cookie, body: res.status === 201 ? ((await res.json()) as { csrf_token: string; merchant: { slug: string } }) : null };
}

function gql(cookie: string, csrf: string | null, query: string, headers: Record<string, string> = {}) {
  return call('/admin/app/graphql', {
    method: 'POST',
    headers: {
      origin: ORIGIN,
      cookie,
      'content-type': 'application/json',
      ...(csrf === null ? {} : { 'x-csrf-token': csrf }),
      ...headers,
    },
    body: JSON.stringify({ query }),
  });
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

  it('marks the cookie Secure when the request came over HTTPS (X-Forwarded-Proto from the proxy)', async () => {
    const { res, setCookie } = await signIn(merchant.admin_token, { origin: 'https://loyalty.test', 'x-forwarded-proto': 'https' });
    expect(res.status).toBe(201);
    expect(setCookie).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
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
    const bearer = await call('/admin/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${wrong}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ merchant { id } }' }),
    }, locked);
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
    await app.db.adminSession.update({ where: { idHash }, data: { lastSeenAt: new Date(Date.now() - 8 * 3600_000 - 1000) } });
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

describe('the app files', () => {
  it('answers every page with index.html under a strict CSP, and hashed assets cached for a year', async () => {
    for (const page of ['/admin', '/admin/', '/admin/customers/abc', '/admin/integrations/api-keys']) {
      const res = await call(page, { headers: { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' } });
      expect(res.status, page).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
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
