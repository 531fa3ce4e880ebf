// GET /docs in a real browser: the REST v1 reference renders with no request
// leaving this machine (every asset and the OpenAPI document come from the service).
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { testApp, testConfig } from '../harness.js';
import { hasChromium, launch, screenshotPath, serve } from './browser.js';

describe.skipIf(!hasChromium)('the API reference page (/docs) in Chromium', () => {
  let browser: Browser;
  let served: Awaited<ReturnType<typeof serve>>;
  let app: ReturnType<typeof createApp>;

  beforeAll(async () => {
    app = createApp({ db: (await testApp()).db, config: testConfig() });
    served = await serve(app);
    browser = await launch();
  });

  afterAll(async () => {
    await browser?.close();
    await served?.close();
    await app?.close();
  });

  it('lists every REST route, loading nothing from outside', async () => {
    const page = await browser.newPage();
    const requested: string[] = [];
    page.on('request', (request) => void requested.push(request.url()));
    // anything not on our origin is cut, as if the machine had no network
    await page.route(/^(?!http:\/\/127\.0\.0\.1:)/, (route) => route.abort());
    await page.goto(`${served.url}/docs`);
    await page.getByText('/customers/balance').first().waitFor();
    for (const path of ['/customers/transactions', '/rewards/redeemable', '/points/estimate', '/booster-campaigns']) {
      expect(await page.getByText(path, { exact: false }).count(), path).toBeGreaterThan(0);
    }
    await page.screenshot({ path: screenshotPath('docs'), fullPage: false });
    expect(requested.filter((url) => !url.startsWith(served.url) && !url.startsWith('data:'))).toEqual([]);
    expect(requested).toContain(`${served.url}/v1/openapi.json`);
  });
});
