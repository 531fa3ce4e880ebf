// CORS: no page of another origin may call the API unless the operator lists its
// origin (CORS_ORIGINS); keys travel in the Authorization header, so no credentials are allowed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { newKey, newMerchant, type TestApp, testApp, testConfig } from '../harness.js';

let app: TestApp;
let key: string;
const listed = createAppWith('https://shop.example.com,https://other.example.com');

function createAppWith(origins: string) {
  let made: ReturnType<typeof createApp> | undefined;
  return async () => (made ??= createApp({ db: (await testApp()).db, config: testConfig({ CORS_ORIGINS: origins }) }));
}

beforeAll(async () => {
  app = await testApp();
  const merchant = await newMerchant(app, 'cors');
  key = await newKey(app, merchant.id);
});

afterAll(async () => (await listed()).close());

const preflight = (origin: string, path = '/graphql') => ({
  path,
  init: {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
  },
});

describe('by default', () => {
  it('gives a page of any origin no CORS grant, on /graphql, /v1 and /admin/graphql', async () => {
    for (const path of ['/graphql', '/v1/tiers', '/admin/graphql']) {
      const { init } = preflight('https://evil.example.com', path);
      const res = await app.fetch(path, init);
      expect(res.headers.get('access-control-allow-origin'), path).toBeNull();
      expect(res.headers.get('access-control-allow-credentials'), path).toBeNull();
    }
    const read = await app.fetch('/v1/tiers', { headers: { authorization: `Bearer ${key}`, origin: 'https://evil.example.com' } });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('with CORS_ORIGINS', () => {
  it('grants the listed origins (without credentials) and no other', async () => {
    const served = await listed();
    const ask = (origin: string, path?: string) => {
      const p = preflight(origin, path);
      return served.fetch(`http://loyalty.test${p.path}`, p.init);
    };
    const shop = await ask('https://shop.example.com');
    expect(shop.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
    expect(shop.headers.get('access-control-allow-credentials')).toBeNull();
    expect(shop.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    expect(shop.headers.get('access-control-max-age')).toBe('600');
    const evil = await ask('https://evil.example.com');
    expect(evil.headers.get('access-control-allow-origin')).not.toBe('https://evil.example.com');
    const read = await served.fetch('http://loyalty.test/v1/tiers', {
      headers: { authorization: `Bearer ${key}`, origin: 'https://other.example.com' },
    });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBe('https://other.example.com');
    expect(read.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
    // the admin API stays same-origin whatever the list says
    const admin = await ask('https://shop.example.com', '/admin/graphql');
    expect(admin.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses a malformed origin list at start-up', () => {
    for (const bad of [
      'shop.example.com',
      'https://shop.example.com/path',
      'https://user@shop.example.com',
      'https://shop.example.com:99999',
      '*',
    ]) {
      expect(() => testConfig({ CORS_ORIGINS: `https://ok.example.com,${bad}` }), bad).toThrow(/CORS_ORIGINS\.1: must be an origin like/);
    }
  });

  it('takes an origin as the storefront settings take it and grants it as a browser sends it', async () => {
    const config = testConfig({ CORS_ORIGINS: ' HTTPS://Shop.Example.com:443/ , http://[::1]:3000' });
    expect(config.CORS_ORIGINS).toEqual(['https://shop.example.com', 'http://[::1]:3000']);
    const served = createApp({ db: app.db, config });
    try {
      for (const origin of ['https://shop.example.com', 'http://[::1]:3000']) {
        const p = preflight(origin, '/v1/tiers');
        const res = await served.fetch(`http://loyalty.test${p.path}`, p.init);
        expect(res.headers.get('access-control-allow-origin'), origin).toBe(origin);
      }
    } finally {
      await served.close();
    }
  });
});
