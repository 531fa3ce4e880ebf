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
import { messages } from '../../src/domain/shared/messages.js';
import { createApp } from '../../src/http/app.js';
import type { JobsRuntime } from '../../src/jobs/queue.js';
import { adminClient, newMerchant, type TestApp, testApp } from '../harness.js';
import { jobsConfig, workers } from '../webhooks/receiver.js';
import { axeViolations, freshDashboard, hasChromium, launch, openPage, screenshotPath, serve } from './browser.js';

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
    // its own database: a job must wait while this file stops its workers, and on a shared database
    // another file's workers would run it
    test = await testApp({ ownDatabase: true });
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
    for (let i = 2; i <= 20; i++)
      expect((await admin(`mutation { create_storefront_key(name: "k${i}") { id } }`)).body.errors).toBeUndefined();
    const refused = await admin(`mutation { create_storefront_key(name: "over") { id } }`);
    expect(refused.body.errors![0].extensions.code).toBe('validation_error');
    const sentence = (Object.values(refused.body.errors![0].extensions.details as Record<string, string[]>)[0] ?? [])[0]!;
    expect(sentence).toBe(messages.tooManyLiveKeys(20));
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

  it('tries a change to the program: a draft edited from the program as it stands, replayed as a job (one cancelled while it waits), and the report the admin API gives for that draft', async () => {
    await freshDashboard(page, served.url);
    await admin(`mutation { set_points_valuation(point_value: 0.01) { point_value } }`);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Program' }).click();
    await heading('Program');
    await page.getByRole('navigation', { name: 'Program' }).getByRole('link', { name: 'Try a change' }).click();
    const points = page.getByLabel('Points of Earn on every purchase');
    await points.waitFor();
    expect(await points.inputValue()).toBe('5');
    await checked('try-draft');

    // a number that is not one is refused before anything is sent
    await points.fill('lots');
    await page.getByRole('button', { name: 'Replay the period' }).click();
    await page.getByText(`Earn on every purchase, Value: ${messages.number}`).waitFor();
    expect(await points.getAttribute('aria-invalid')).toBe('true');
    await checked('try-draft-error');

    // the draft: a rule's value changed, one turned off, one added, a booster added, a tier's threshold changed
    await points.fill('10');
    await page.getByLabel('Big basket bonus on').uncheck();
    await page.getByRole('button', { name: 'Add an earning rule' }).click();
    await page.getByLabel(/^Name of new rule/).fill('Welcome bonus');
    await page.getByLabel('Points of Welcome bonus').fill('1');
    await page.getByRole('button', { name: 'Add a booster over the period' }).click();
    // what the API refuses in the draft is named by its record, in the catalogue's words, and starts nothing
    const sent: { from: string; to: string; draft: unknown }[] = [];
    page.on('request', (request) => {
      const body = request.postDataJSON() as { query?: string; variables?: { from: string; to: string; draft: unknown } } | null;
      if (body?.query?.includes('start_program_replay') && body.variables) sent.push(body.variables);
    });
    await page.getByLabel('Threshold of Silver').fill('-5');
    await page.getByRole('button', { name: 'Replay the period' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'Silver, Threshold: ' });
    await refusal.waitFor();
    const asked = await admin(
      `query ($from: Date!, $to: Date!, $draft: JSON!) { program_replay(from: $from, to: $to, draft: $draft) { orders } }`,
      sent[0],
    );
    expect(asked.body.errors![0]!.extensions.details).toEqual({ 'draft.tiers.1.threshold': [expect.any(String)] });
    const sentence = (asked.body.errors![0]!.extensions.details as Record<string, string[]>)['draft.tiers.1.threshold']![0]!;
    expect(await refusal.innerText()).toBe(`Silver, Threshold: ${sentence}`);
    expect(await test.db.replayJob.count({ where: { merchantId: merchant.id } })).toBe(0);
    await checked('try-draft-refused');
    await page.getByLabel('Threshold of Silver').fill('100');
    // from the keyboard
    await page.getByLabel('Earn multiplier of Silver').focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Threshold of Gold');

    // while no worker runs, the job waits, and is cancelled
    await jobs!.stop();
    jobs = undefined;
    await page.getByRole('button', { name: 'Replay the period' }).click();
    await page.getByText('Waiting to start…').waitFor();
    await checked('try-queued');
    await page.getByRole('button', { name: 'Cancel the replay' }).click();
    await page.getByText('Cancelled: no report was kept.').waitFor();
    await checked('try-cancelled');

    jobs = await workers(test);
    await page.getByRole('button', { name: 'Change the draft' }).click();
    expect(await points.inputValue()).toBe('10');
    await page.getByRole('button', { name: 'Replay the period' }).click();
    await page.getByText(/^Done: /).waitFor({ timeout: 30_000 });
    await page.getByRole('heading', { name: 'What would have happened' }).waitFor();
    expect(sent).toHaveLength(3);
    const { from, to, draft } = sent[2]!;
    expect(Object.keys(draft as object).sort()).toEqual(['booster_campaigns', 'earning_rules', 'tiers']);

    // the same draft asked of the admin API directly: the page shows its figures
    const res = await admin(
      `query ($from: Date!, $to: Date!, $draft: JSON!) { program_replay(from: $from, to: $to, draft: $draft, top: 10) {
        issued { actual draft difference } liability { change } tier_changes { customers }
        by_rule { name draft } customers_most_affected { customer_id difference } } }`,
      { from, to, draft },
    );
    expect(res.body.errors).toBeUndefined();
    const report = res.body.data.program_replay;
    expect(report.issued.difference).not.toBe(0);
    const stat = (label: string) =>
      page
        .locator('.stat', { has: page.locator('dt', { hasText: label }) })
        .locator('.stat-value')
        .innerText();
    const n = (x: number) => new Intl.NumberFormat('en-US').format(x);
    expect(await stat('Points issued')).toBe(n(report.issued.actual));
    expect(await stat('Under the draft')).toBe(n(report.issued.draft));
    expect(await stat('Change in liability')).toBe(`${report.liability.change > 0 ? '+' : ''}${n(report.liability.change)} points`);
    const money = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(report.liability.change * 0.01);
    await page.getByText(`${money}: the points times the point value`).waitFor();
    expect(await stat('Customers whose tier would differ')).toBe(n(report.tier_changes.customers));
    const rules = page.getByRole('table', { name: 'Points per earning rule' });
    for (const rule of report.by_rule)
      expect(
        await rules
          .getByRole('row', { name: new RegExp(`^${rule.name}`) })
          .getByRole('cell')
          .nth(1)
          .innerText(),
      ).toBe(n(rule.draft));
    expect(report.by_rule.map((r: { name: string }) => r.name)).toContain('Welcome bonus');
    const affected = page.getByRole('table', { name: 'Customers most affected' });
    expect(await affected.getByRole('row').count()).toBe(report.customers_most_affected.length + 1);
    await checked('try-report');
    // nothing was changed: the program stands as it was
    expect((await admin('{ earning_rules(per_page: 100) { data { name is_active } } }')).body.data.earning_rules.data).toContainEqual({
      name: 'Big basket bonus',
      is_active: true,
    });
  });

  it('lists the recent replays newest first, and opens a finished one’s report from the list', async () => {
    const { data } = (
      await admin(`{ program_replay_jobs { data { id state created_at report { issued { draft } } } meta { pagination { total } } } }`)
    ).body;
    // the run cancelled while it waited, then the one that finished; the refused draft recorded nothing
    expect(data.program_replay_jobs.meta.pagination.total).toBe(2);
    const [done, cancelled] = data.program_replay_jobs.data;
    expect([done.state, cancelled.state]).toEqual(['done', 'cancelled']);
    await page.reload();
    const recent = page.getByRole('table', { name: 'Recent replays' });
    await recent.waitFor();
    const rows = recent.getByRole('row');
    // the table shows at once, with a loading row until the list has come
    await expect.poll(() => rows.count()).toBe(3);
    const cells = async (i: number) => (await rows.nth(i).getByRole('cell').allInnerTexts()).map((t) => t.trim());
    expect((await cells(1)).slice(2, 3)).toEqual(['Done']);
    // cells after the row header (when started): period, draft, state, finished, the button
    expect((await cells(1))[1]).toMatch(/^Earning rules \(\d+\), Booster campaigns \(\d+\), Tiers \(\d+\)$/);
    expect((await cells(1))[3]).not.toBe('—');
    expect((await cells(2)).slice(2, 3)).toEqual(['Cancelled']);
    expect(await rows.nth(2).getByRole('button').count()).toBe(0);
    await checked('try-recent');
    await rows
      .nth(1)
      .getByRole('button', { name: /^Open the report of / })
      .click();
    await page.getByText(/^Done: /).waitFor();
    await page.getByRole('heading', { name: 'What would have happened' }).waitFor();
    const underDraft = await page
      .locator('.stat', { has: page.locator('dt', { hasText: 'Under the draft' }) })
      .locator('.stat-value')
      .innerText();
    expect(underDraft).toBe(new Intl.NumberFormat('en-US').format(done.report.issued.draft));
    await checked('try-recent-opened');
  });

  it('logs no error but the answers it shows (401 before signing in, 422 refusals) and reaches nothing outside', () => {
    expect(problems.filter((p) => !/Failed to load resource: the server responded with a status of (401|422)\b/.test(p))).toEqual([]);
    expect(outside).toEqual([]);
  });
});
