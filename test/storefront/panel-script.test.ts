// The panel's script and the demo storefront as the service serves them: the script to any
// page (it holds no secret), with a short public cache life; the demo page outside production
// only. What the panel does in a browser: test/browser/panel.test.ts.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { PANEL_SOURCE } from '../../src/http/storefront-panel.js';
import { testApp, testConfig } from '../harness.js';

describe('GET /storefront/loyalty-panel.js', () => {
  it('is the committed script, public for five minutes, loadable from any origin', async () => {
    const app = await testApp();
    const res = await app.fetch('/storefront/loyalty-panel.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    const body = await res.text();
    expect(body).toBe(readFileSync(PANEL_SOURCE, 'utf8'));
    expect(body).toContain("customElements.define('loyalty-panel'");
  });

  it('stays small, and names no other host (no third-party request)', () => {
    const source = readFileSync(PANEL_SOURCE);
    // docs/storefronts.md records the size; a panel past these has grown by half
    expect(source.length).toBeLessThan(25_000);
    expect(gzipSync(source, { level: 9 }).length).toBeLessThan(8_000);
    expect(source.toString().match(/https?:\/\/[^\s'"`]+/g) ?? []).toEqual(['https://loyalty.example.com/storefront/loyalty-panel.js']);
  });
});

describe('GET /storefront/demo', () => {
  it('is a page showing the panel outside production, with a strict CSP', async () => {
    const app = await testApp();
    const res = await app.fetch('/storefront/demo');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await res.text();
    expect(html).toContain('<loyalty-panel');
    expect(html).toContain('<script src="/storefront/loyalty-panel.js"></script>');
    expect((await app.fetch('/storefront/demo/demo.js')).status).toBe(200);
    expect((await app.fetch('/storefront/other')).status).toBe(404);
  });

  it('is not served in production (the script is)', async () => {
    const app = createApp({ db: (await testApp()).db, config: testConfig({ NODE_ENV: 'production' }) });
    try {
      expect((await app.fetch('http://loyalty.test/storefront/demo')).status).toBe(404);
      expect((await app.fetch('http://loyalty.test/storefront/demo/demo.js')).status).toBe(404);
      expect((await app.fetch('http://loyalty.test/storefront/loyalty-panel.js')).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});
