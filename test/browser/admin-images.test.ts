// Product images in the admin app's lists, in Chromium: the page's CSP lets images come from
// any https address (and nothing else from elsewhere); a reward or an earning rule with a
// product image shows it small beside its name, alt text the product's name. An image that
// fails, or one named by a plain http address (which the CSP refuses; the API refuses it on
// input, but a row stored before may hold one), leaves a square named the same. The https host
// is answered by the test through Playwright's routing: the request leaves the page, so the
// page's CSP decides first whether it may be made at all. The form refuses, before sending, an
// address the API would refuse (the same rule, src/domain/shared/urls.ts).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { adminClient, newMerchant, type TestApp, testApp, testConfig } from '../harness.js';
import { axeViolations, freshDashboard, hasChromium, launch, openPage, screenshotPath, serve } from './browser.js';

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');
const CDN = 'https://images.shop.example';

describe.skipIf(!hasChromium)('product images in the admin app (/admin) in Chromium', () => {
  let test: TestApp;
  let app: ReturnType<typeof createApp>;
  let served: Awaited<ReturnType<typeof serve>>;
  let browser: Browser;
  let page: Page;
  let problems: string[] = [];
  let outside: string[] = [];
  const asked: string[] = [];

  beforeAll(async () => {
    test = await testApp();
    const merchant = await newMerchant(test, 'images');
    const admin = adminClient(test, merchant.admin_token);
    const reward = (name: string, product_name: string, product_image_url: string) =>
      admin(`mutation ($input: RewardInput!) { create_reward(input: $input) { id } }`, {
        input: { name, reward_type: 'free_product', points_cost: 500, reward_rule: { product_id: 'p-1' }, product_name, product_image_url },
      });
    for (const res of [
      await reward('Free tote', 'Canvas tote', `${CDN}/tote.png`),
      await reward('Free kettle', 'Copper kettle', `${CDN}/kettle-gone.png`),
      await reward('Free mug', 'Stoneware mug', `${CDN}/mug.png`),
      await admin(`mutation ($input: EarningRuleInput!) { create_earning_rule(input: $input) { id } }`, {
        input: {
          name: 'Tote bonus',
          campaign_type: 'purchase',
          earning_rule: { type: 'fixed', value: 50 },
          conditions: { product_ids: ['p-1'] },
          product_name: 'Canvas tote',
          product_image_url: `${CDN}/tote.png?size=small`,
        },
      }),
    ])
      expect(res.body.errors).toBeUndefined();
    // a plain http image is refused on input now; a row stored before that rule may still hold one
    await test.db.reward.updateMany({
      where: { merchantId: merchant.id, name: 'Free mug' },
      data: { productImageUrl: 'http://images.shop.example/mug.png' },
    });
    app = createApp({ db: test.db, config: testConfig() });
    served = await serve(app);
    browser = await launch();
    ({ page, outside, problems } = await openPage(browser, served.url));
    // the shop's CDN: the tote's image is there, the kettle's is gone
    await page.route(/^https?:\/\/images\.shop\.example\//, (route) => {
      const url = route.request().url();
      asked.push(url);
      return url.includes('/tote.png')
        ? route.fulfill({ status: 200, contentType: 'image/png', body: PNG })
        : route.fulfill({ status: 404, contentType: 'text/plain', body: 'gone' });
    });
    await page.goto(`${served.url}/admin`);
    await page.getByLabel('Admin token').fill(merchant.admin_token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await served?.close();
    await app?.close();
  });

  it('serves the app under a CSP whose only outside source is https images', async () => {
    const res = await fetch(`${served.url}/admin/program`);
    const directives = Object.fromEntries(
      res.headers
        .get('content-security-policy')!
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([name, ...sources]) => [name, sources.join(' ')]),
    );
    expect(directives['img-src']).toBe("'self' data: https:");
    for (const [name, sources] of Object.entries(directives)) if (name !== 'img-src') expect(sources, name).toMatch(/^'(self|none)'$/);
  });

  it('shows each product image small beside its name, with the product name as alt text; a missing one leaves a named square', async () => {
    await freshDashboard(page, served.url);
    await page.getByRole('link', { name: 'Program', exact: true }).click();
    await page.getByRole('heading', { name: 'Rewards' }).waitFor();

    const tote = page.getByRole('row', { name: /Free tote/ }).getByRole('img', { name: 'Canvas tote' });
    await expect.poll(() => tote.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
    expect(await tote.getAttribute('src')).toBe(`${CDN}/tote.png`);
    expect(await tote.evaluate((img) => img.tagName)).toBe('IMG');
    const box = (await tote.boundingBox())!;
    expect(box.width).toBeLessThanOrEqual(40);
    expect(box.height).toBeLessThanOrEqual(40);

    // the CDN answered 404: the image gives way to a square named the same
    const kettle = page.getByRole('row', { name: /Free kettle/ }).getByRole('img', { name: 'Copper kettle' });
    await expect.poll(() => kettle.evaluate((el) => el.tagName)).toBe('SPAN');
    // plain http: never requested (the CSP would refuse it), a square from the start
    const mug = page.getByRole('row', { name: /Free mug/ }).getByRole('img', { name: 'Stoneware mug' });
    expect(await mug.evaluate((el) => el.tagName)).toBe('SPAN');
    expect(asked.some((url) => url.startsWith('http:'))).toBe(false);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('admin-product-images'), fullPage: true });

    await page.getByRole('navigation', { name: 'Program' }).getByRole('link', { name: 'Earning rules' }).click();
    const rule = page.getByRole('row', { name: /Tote bonus/ }).getByRole('img', { name: 'Canvas tote' });
    await expect.poll(() => rule.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
    expect(await rule.getAttribute('src')).toBe(`${CDN}/tote.png?size=small`);
    expect(await axeViolations(page)).toEqual([]);
  });

  it("refuses in the form, before sending, an image address the API would refuse, in the API's words", async () => {
    await page.getByRole('navigation', { name: 'Program' }).getByRole('link', { name: 'Rewards' }).click();
    await page.getByRole('button', { name: 'Edit Free tote' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit Free tote' });
    const sent: string[] = [];
    const watch = (request: { postData(): string | null }) => {
      if (request.postData()?.includes('update_reward')) sent.push(request.postData()!);
    };
    page.on('request', watch);
    const field = dialog.getByLabel('Product image address');
    for (const [address, told] of [
      ['javascript:alert(document.cookie)', 'This is not a web address: enter one starting with https://.'],
      ['http://images.shop.example/tote.png', 'Must start with https:// (pages served over HTTPS block images from plain http addresses).'],
    ] as const) {
      await field.fill(address);
      await dialog.getByRole('button', { name: 'Save reward' }).click();
      await dialog.getByText(told).waitFor();
    }
    expect(sent).toEqual([]);
    await field.fill(`${CDN}/tote.png`);
    await dialog.getByRole('button', { name: 'Save reward' }).click();
    await dialog.waitFor({ state: 'detached' });
    page.off('request', watch);
    expect(sent).toHaveLength(1);
  });

  it('asked nothing of the network but the service and the CDN, and logged no error but the missing image', () => {
    expect(outside).toEqual([]);
    expect(asked.every((url) => url.startsWith(`${CDN}/`))).toBe(true);
    // the 404 of the kettle's image and the 401 of the session asked before signing in, which
    // Chromium reports on the console; no CSP refusal
    expect(problems.filter((p) => !/Failed to load resource: the server responded with a status of (401|404)\b/.test(p))).toEqual([]);
    expect(problems.filter((p) => /Content Security Policy/i.test(p))).toEqual([]);
  });
});
