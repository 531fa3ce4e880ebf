// The merchant's admin app in a real browser: Chromium signs in with the admin
// token (the sign-in page stating the session lifetimes the service is configured with), creates each kind of API key and uses the key it shows once against /v1, revokes one,
// creates and edits a reward through a validation error, adjusts a customer's points with a
// double click (points move once), and looks at the dashboard (each chart's figures as a table,
// the same as the admin API's) and every other page. Each page
// is checked with axe-core and saved as a screenshot (test-results/screenshots/admin-*.png).
// Nothing loads from outside the service, and no page logs an error (e.g. a CSP refusal).
import { readFileSync } from 'node:fs';
import type { GraphQLEnumType } from 'graphql';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoHistory } from '../../src/cli/seed/demo-history.js';
import { demoProgram } from '../../src/cli/seed/demo-program.js';
import { createApiKey } from '../../src/domain/access/api-keys.js';
import { importProgram } from '../../src/domain/program-import/program-import.js';
import { codeMessages, messages } from '../../src/domain/shared/messages.js';
import { adminSchema } from '../../src/graphql/admin.js';
import { createApp } from '../../src/http/app.js';
import { adminClient, newMerchant, type TestApp, testApp, testConfig } from '../harness.js';
import { axeViolations, freshDashboard, hasChromium, launch, openPage, screenshotPath, serve } from './browser.js';

describe.skipIf(!hasChromium)('the admin app (/admin) in Chromium', () => {
  let test: TestApp;
  let app: ReturnType<typeof createApp>;
  let served: Awaited<ReturnType<typeof serve>>;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let merchant: Awaited<ReturnType<typeof newMerchant>>;
  let problems: string[] = [];
  let outside: string[] = [];

  /** The demo of the first start: its program, and its last weeks of orders and redemptions. */
  async function seed() {
    merchant = await newMerchant(test, 'browser');
    const now = new Date();
    await importProgram(test.db, merchant.id, demoProgram(now));
    await demoHistory(test.db, merchant.id, now);
    await createApiKey(test.db, { merchantId: merchant.id, type: 'full', name: 'Seed key' });
  }

  beforeAll(async () => {
    test = await testApp();
    await seed();
    // session lifetimes other than the defaults (8 h idle, 24 h): the sign-in page states these
    app = createApp({ db: test.db, config: testConfig({ ADMIN_SESSION_IDLE_SECONDS: '5400', ADMIN_SESSION_MAX_SECONDS: '172800' }) });
    served = await serve(app);
    browser = await launch();
    ({ context, page, outside, problems } = await openPage(browser, served.url));
  });

  afterAll(async () => {
    await browser?.close();
    await served?.close();
    await app?.close();
  });

  /** axe-core's WCAG 2.1 A/AA rules on the page as it is now. */
  async function accessible(what: string) {
    expect(await axeViolations(page), what).toEqual([]);
  }

  const shot = (name: string) => page.screenshot({ path: screenshotPath(`admin-${name}`), fullPage: true });
  const heading = (name: string) => page.getByRole('heading', { level: 1, name }).waitFor();
  const v1 = (key: string, method: string, path: string, body?: unknown) =>
    fetch(`${served.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then((r) => r.status);

  /**
   * Each test after the sign-in starts signed in, on a freshly loaded dashboard: one that fails
   * (signing in included) leaves no dialog open and no page half-way for the next.
   */
  async function fresh() {
    if (!(await context.cookies()).some((c) => c.name === 'loyalty_admin_session')) {
      const signIn = await context.request.post(`${served.url}/admin/session`, {
        headers: { origin: served.url },
        data: { token: merchant.admin_token },
      });
      expect(signIn.status()).toBe(201);
    }
    await freshDashboard(page, served.url);
  }

  it('signs in with the admin token (a wrong one is refused), keeping no token in the browser', async () => {
    await context.clearCookies();
    // signed out, the page settles: every answer it asked for is read, nothing stays in flight
    await page.goto(`${served.url}/admin`, { waitUntil: 'networkidle' });
    await heading('Sign in to the loyalty admin');
    // ADMIN_SESSION_IDLE_SECONDS=5400, ADMIN_SESSION_MAX_SECONDS=172800
    await page.getByText('ends when you sign out, after 1 hour 30 minutes without use, or 2 days after you sign in').waitFor();
    expect(await page.locator('main').innerText()).not.toMatch(/8 hours|24 hours/);
    await accessible('sign-in');
    // the page's own check, then the service's refusal: both the catalogue's sentences
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await shownError(page, 'Admin token')).toBe(messages.signIn.tokenMissing);
    await page.getByLabel('Admin token').fill(`lpa_${'x'.repeat(38)}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText(messages.signIn.tokenInvalid, { exact: true }).waitFor();
    await shot('sign-in');
    await page.getByLabel('Admin token').fill(merchant.admin_token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Dashboard');
    expect(page.url()).toBe(`${served.url}/admin/dashboard`);
    const cookies = await context.cookies();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ name: 'loyalty_admin_session', httpOnly: true, sameSite: 'Strict', path: '/admin' });
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie);
    expect(stored).not.toContain('lpa_');
  });

  it('shows the dashboard: points over time, members per tier, redemption rate, top rewards', async () => {
    await fresh();
    await page.getByRole('heading', { name: 'Points over time' }).waitFor();
    await page.locator('.recharts-bar-rectangle').first().waitFor();
    const stats = await page.locator('.stats').innerText();
    expect(stats).toContain('Points issued');
    expect(stats).toMatch(/Redemption rate\s+[\d.]+%/);
    expect(
      await page
        .getByRole('figure', { name: /Top rewards/ })
        .getByRole('row')
        .count(),
    ).toBeGreaterThan(1);

    // members per tier: a table of the chart's figures, the admin API's numbers
    const api = await adminClient(
      test,
      merchant.admin_token,
    )('{ dashboard(range: last_30_days) { members_per_tier { tier_name customers } } }');
    const expected = (api.body.data.dashboard.members_per_tier as { tier_name: string; customers: number }[]).map((t) => [
      t.tier_name,
      t.customers,
    ]);
    expect(expected.length).toBeGreaterThan(1);
    expect(expected.some(([, n]) => Number(n) > 0)).toBe(true);
    const tiers = page.getByRole('figure', { name: /Members per tier/ });
    expect(await tiers.getByRole('columnheader').allInnerTexts()).toEqual(['Tier', 'Customers']);
    const shown = await tiers
      .getByRole('table')
      .locator('tbody tr')
      .evaluateAll((rows) =>
        rows.map((row) => [
          row.querySelector('th')?.textContent ?? '',
          Number((row.querySelector('td')?.textContent ?? '').replace(/\D/g, '')),
        ]),
      );
    expect(shown).toEqual(expected);
    await accessible('dashboard');
    await shot('dashboard');
    await page.getByLabel('Range').selectOption('last_12_months');
    await page.getByText("Per month, in the shop's time zone").waitFor();
    await page.getByLabel('Range').selectOption('last_30_days');
  });

  it('creates a Full Access, a Read-Only and a Custom key, each shown once and working on /v1 as its scopes say', async () => {
    await fresh();
    await page.getByRole('link', { name: 'Integrations' }).click();
    await heading('REST API keys');

    // the dialogs work from the keyboard: opened with Enter, focus inside, Escape closes, focus returns
    await page.getByRole('button', { name: 'Create API key' }).focus();
    await page.keyboard.press('Enter');
    const keyboardDialog = page.getByRole('dialog', { name: 'Create an API key' });
    // its form comes with the scopes the page loads: until then its only control is Close, and a
    // Tab from the last control of a modal dialog leaves it for the browser's own
    await keyboardDialog.getByLabel('Name', { exact: true }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.closest('dialog') !== null)).toBe(true);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('dialog') !== null)).toBe(true);
    await page.keyboard.press('Escape');
    await keyboardDialog.waitFor({ state: 'hidden' });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Create API key');

    async function create(
      name: string,
      type: 'Full Access' | 'Read-Only' | 'Custom',
      custom?: (dialog: ReturnType<Page['getByRole']>) => Promise<void>,
    ) {
      await page.getByRole('button', { name: 'Create API key' }).click();
      const dialog = page.getByRole('dialog', { name: 'Create an API key' });
      await dialog.getByLabel('Name').fill(name);
      await dialog.getByRole('radio', { name: new RegExp(`^${type}`) }).check();
      if (custom) await custom(dialog);
      await dialog.getByRole('button', { name: 'Create key' }).click();
      const shown = page.getByRole('dialog', { name: 'Your new API key' });
      await shown.getByText('you will not see it again').waitFor();
      const key = await shown.getByRole('textbox').inputValue();
      expect(key).toMatch(/^lpk_/);
      await shown.getByRole('button', { name: 'Copy' }).click();
      await shown.getByText('Copied to the clipboard.').waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
      return { key, shown };
    }

    const full = await create('Checkout', 'Full Access');
    await accessible('a key shown once');
    await shot('api-key-shown-once');
    await full.shown.getByRole('button', { name: 'I have copied the key' }).click();
    expect(await v1(full.key, 'GET', '/v1/rewards')).toBe(200);
    expect(await v1(full.key, 'POST', '/v1/customers/transactions?customer_id=demo-1003', { points: 5, description: 'Full key' })).toBe(
      201,
    );

    const readOnly = await create('Reporting', 'Read-Only');
    await readOnly.shown.getByRole('button', { name: 'I have copied the key' }).click();
    expect(await v1(readOnly.key, 'GET', '/v1/rewards')).toBe(200);
    expect(await v1(readOnly.key, 'POST', '/v1/customers/transactions?customer_id=demo-1003', { points: 5, description: 'x' })).toBe(403);

    const custom = await create('Storefront widget', 'Custom', async (dialog) => {
      // one control per scope, offering only that scope's levels
      const options = async (scope: string) => dialog.getByLabel(scope, { exact: true }).locator('option').allInnerTexts();
      expect(await options('customers')).toEqual(['No Access', 'Read', 'Read/Write']);
      expect(await options('orders')).toEqual(['No Access', 'Write']);
      for (const scope of ['activities', 'tiers', 'earning_rules', 'referrals', 'points'])
        expect(await options(scope)).toEqual(['No Access', 'Read']);
      await dialog.getByLabel('rewards', { exact: true }).selectOption('read');
      await dialog.getByLabel('customers', { exact: true }).selectOption('write');
      await accessible('the custom key form');
      await shot('api-key-custom');
    });
    await custom.shown.getByRole('button', { name: 'I have copied the key' }).click();
    expect(await v1(custom.key, 'GET', '/v1/rewards')).toBe(200);
    expect(await v1(custom.key, 'GET', '/v1/customers/balance?customer_id=demo-1001')).toBe(200);
    expect(await v1(custom.key, 'GET', '/v1/tiers')).toBe(403);

    // the header, the three new keys and the one the test data was made with
    const rows = page.getByRole('table').getByRole('row');
    await expect.poll(() => rows.count()).toBe(5);
    const customRow = page.getByRole('row', { name: /Storefront widget/ });
    expect(await customRow.innerText()).toMatch(/Custom[\s\S]*write:customers[\s\S]*read:rewards/);

    // revoke, after a confirmation: the key's next request is refused
    await customRow.getByRole('button', { name: 'Revoke Storefront widget' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke this key?' });
    await confirm.getByText('This cannot be undone').waitFor();
    await accessible('the revoke confirmation');
    await shot('api-key-revoke');
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('The key “Storefront widget” is revoked').waitFor();
    await expect.poll(() => customRow.innerText()).toContain('Revoked');
    expect(await v1(custom.key, 'GET', '/v1/rewards')).toBe(401);
    expect(await v1(full.key, 'GET', '/v1/rewards')).toBe(200);
    await accessible('the key list');
    await shot('api-keys');
  });

  it('creates a reward through a validation error shown next to its field, edits it and deactivates it', async () => {
    await fresh();
    await page.getByRole('link', { name: 'Program' }).click();
    await heading('Program');
    await page.getByRole('heading', { name: 'Rewards' }).waitFor();
    await page.getByRole('button', { name: 'New reward' }).click();
    const dialog = page.getByRole('dialog', { name: 'New reward' });
    await dialog.getByLabel('Name').fill('Twenty percent off');
    await dialog.getByLabel('Reward type').selectOption('percentage_discount');
    await dialog.getByLabel('Points cost').fill('800');
    await dialog.getByLabel('Discount (%)').fill('150');
    await dialog.getByRole('button', { name: 'Create reward' }).click();
    // the API's validation_error names reward_rule.discount_value: the message sits under that field
    const field = dialog.getByLabel('Discount (%)');
    await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await field.getAttribute('aria-describedby'))!;
    const message = await page.locator(`[id="${describedBy.split(' ').at(-1)}"]`).innerText();
    expect(message).toMatch(/100/);
    await accessible('a reward with a validation error');
    await shot('reward-validation-error');
    await field.fill('20');
    await dialog.getByRole('button', { name: 'Create reward' }).click();
    await page.getByText('Saved “Twenty percent off”.').waitFor();
    const row = page.getByRole('row', { name: /Twenty percent off/ });
    expect(await row.innerText()).toMatch(/20% off[\s\S]*800[\s\S]*Active/);

    await row.getByRole('button', { name: 'Edit Twenty percent off' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Twenty percent off' });
    await edit.getByLabel('Points cost').fill('0');
    await edit.getByRole('button', { name: 'Save reward' }).click();
    await edit.getByText(messages.atLeast(1)).waitFor();
    await edit.getByLabel('Points cost').fill('900');
    await edit.getByRole('button', { name: 'Save reward' }).click();
    await page.getByText('Saved “Twenty percent off”.').waitFor();
    await expect.poll(() => row.innerText()).toMatch(/900/);
    await row.getByRole('button', { name: 'Deactivate Twenty percent off' }).click();
    await expect.poll(() => row.innerText()).toMatch(/Inactive/);
    await accessible('rewards');
    await shot('program-rewards');
  });

  it('shows the other parts of the program: earning rules with their conditions, tiers, boosters, the referral program', async () => {
    await fresh();
    await page.getByRole('link', { name: 'Program', exact: true }).click();
    await heading('Program');
    for (const [tab, title, name, shown] of [
      ['Earning rules', 'Earning rules', 'earning-rules', 'Big basket bonus'],
      ['VIP tiers', 'VIP tiers', 'tiers', 'Platinum'],
      ['Boosters', 'Booster campaigns', 'boosters', 'Double points fortnight'],
      ['Referral program', 'Referral program', 'referral-program', 'Points for the referrer'],
    ] as const) {
      await page.getByRole('navigation', { name: 'Program' }).getByRole('link', { name: tab }).click();
      await page.getByRole('heading', { level: 2, name: title }).waitFor();
      await page.getByText(shown).first().waitFor();
      await accessible(tab);
      await shot(`program-${name}`);
    }
    // an earning rule's form, with its conditions
    await page.getByRole('navigation', { name: 'Program' }).getByRole('link', { name: 'Earning rules' }).click();
    await page.getByRole('button', { name: 'Edit Big basket bonus' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit Big basket bonus' });
    // the actions offered are the admin schema's CampaignType, every one of them in its order
    const offered = await dialog
      .getByLabel('Action that earns points')
      .locator('option')
      .evaluateAll((o) => o.map((x) => (x as HTMLOptionElement).value));
    const campaignType = adminSchema.getType('CampaignType') as GraphQLEnumType;
    expect(offered).toEqual(campaignType.getValues().map((v) => v.value));
    await dialog.getByLabel('Minimum order subtotal').fill('-5');
    await dialog.getByRole('button', { name: 'Save earning rule' }).click();
    await expect.poll(() => dialog.getByLabel('Minimum order subtotal').getAttribute('aria-invalid')).toBe('true');
    await accessible('an earning rule form');
    await shot('program-earning-rule-form');
    await dialog.getByRole('button', { name: 'Close' }).click();
  });

  it('finds a customer and adjusts their points with a double click: the points move once', async () => {
    await fresh();
    await page.getByRole('link', { name: 'Customers' }).click();
    await heading('Customers');
    await accessible('customers');
    await shot('customers');
    await page.getByLabel('Find a customer').fill('mia.tanaka@example.com');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('1 customer(s) matching').waitFor();
    await page.getByRole('link', { name: 'demo-1003' }).click();
    await heading('Mia Tanaka');
    const before = (await test.db.customer.findFirstOrThrow({ where: { merchantId: merchant.id, platformId: 'demo-1003' } })).pointsBalance;

    // every adjustment request reaches the server twice, as a network retry would: the
    // Idempotency-Key makes the second one a replay
    const sent: string[] = [];
    await page.route('**/admin/app/graphql', async (route) => {
      const body = route.request().postData() ?? '';
      if (!body.includes('AdjustPoints')) return route.continue();
      sent.push(route.request().headers()['idempotency-key'] ?? '');
      await route.fetch();
      return route.fulfill({ response: await route.fetch() });
    });
    const points = page.getByRole('textbox', { name: 'Points', exact: true });
    await points.fill('25');
    await page.getByLabel('Reason').fill('Sorry for the late parcel');
    await page.getByRole('button', { name: 'Credit points' }).dblclick();
    await page.getByText(`Credited 25 points. New balance: ${(before + 25).toLocaleString('en-US')}.`).waitFor();
    await page.unroute('**/admin/app/graphql');
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(new Set(sent).size).toBe(1);
    expect(sent[0]).toMatch(/^adj-[0-9a-f]{32}$/);
    const after = await test.db.customer.findFirstOrThrow({ where: { merchantId: merchant.id, platformId: 'demo-1003' } });
    expect(after.pointsBalance).toBe(before + 25);
    expect(await test.db.pointsTransaction.count({ where: { customerId: after.id, description: 'Sorry for the late parcel' } })).toBe(1);
    const activity = page.getByRole('region', { name: 'Activity' });
    await activity.getByText('Sorry for the late parcel').waitFor();
    await page.getByRole('region', { name: 'Transactions' }).getByText('Sorry for the late parcel').waitFor();

    // a debit below zero is refused, saying why
    await page.getByRole('radio', { name: /Debit/ }).check();
    await points.fill('999999');
    await page.getByLabel('Reason').fill('Too much');
    await page.getByRole('button', { name: 'Debit points' }).click();
    await page.getByText(codeMessages.adjustment_failed).waitFor();
    await accessible('a customer');
    await shot('customer');
  });

  /** The message shown under the field labelled `label` (inside `scope`). */
  async function shownError(scope: ReturnType<Page['getByRole']> | Page, label: string | RegExp) {
    const field = scope.getByLabel(label, { exact: typeof label === 'string' }).first();
    await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await field.getAttribute('aria-describedby'))!;
    return page.locator(`[id="${describedBy.split(' ').at(-1)}"]`).innerText();
  }

  it('walks every form with bad input: each message shown is the catalogue sentence, never schema jargon', async () => {
    await fresh();
    const program = async (tab: string) => {
      await page.getByRole('link', { name: 'Program', exact: true }).click();
      await page.getByRole('navigation', { name: 'Program' }).getByRole('link', { name: tab }).click();
    };
    const seen: string[] = [];
    const expectShown = async (scope: ReturnType<Page['getByRole']> | Page, label: string | RegExp, sentence: string) => {
      const text = await shownError(scope, label);
      seen.push(text);
      expect(text, String(label)).toBe(sentence);
    };

    // a reward: the app's own checks and the API's, in the same words
    await program('Rewards');
    await page.getByRole('button', { name: 'New reward' }).click();
    let dialog = page.getByRole('dialog', { name: 'New reward' });
    await dialog.getByLabel('Points cost', { exact: true }).fill('ten');
    await dialog.getByRole('button', { name: 'Create reward' }).click();
    await expectShown(dialog, 'Points cost', messages.number);
    await dialog.getByLabel('Points cost', { exact: true }).fill('0');
    await dialog.getByRole('button', { name: 'Create reward' }).click();
    await expectShown(dialog, 'Name', messages.required);
    await expectShown(dialog, 'Points cost', messages.atLeast(1));
    await expectShown(dialog, 'Discount amount', messages.required);
    await dialog.getByRole('button', { name: 'Close' }).click();

    // an earning rule
    await program('Earning rules');
    await page.getByRole('button', { name: 'New earning rule' }).click();
    dialog = page.getByRole('dialog', { name: 'New earning rule' });
    await dialog.getByLabel('Points', { exact: true }).fill('1.5');
    await dialog.getByRole('button', { name: 'Create earning rule' }).click();
    await expectShown(dialog, 'Points', messages.wholeNumber);
    await dialog.getByLabel('Points', { exact: true }).fill('10');
    await dialog.getByLabel('Minimum order subtotal', { exact: true }).fill('-5');
    await dialog.getByLabel('Most points per order', { exact: true }).fill('0');
    await dialog.getByRole('button', { name: 'Create earning rule' }).click();
    await expectShown(dialog, 'Minimum order subtotal', messages.atLeast(0));
    await expectShown(dialog, 'Most points per order', messages.above(0));
    await dialog.getByRole('button', { name: 'Close' }).click();

    // a tier
    await program('VIP tiers');
    await page.getByRole('button', { name: 'New tier' }).click();
    dialog = page.getByRole('dialog', { name: 'New tier' });
    await dialog.getByLabel('Name', { exact: true }).fill('Diamond');
    await dialog.getByLabel('Threshold', { exact: true }).fill('-1');
    await dialog.getByLabel('Points multiplier', { exact: true }).fill('500');
    await dialog.getByRole('button', { name: 'Create tier' }).click();
    await expectShown(dialog, 'Threshold', messages.atLeast(0));
    await expectShown(dialog, 'Points multiplier', messages.atMost(100));
    await dialog.getByRole('button', { name: 'Close' }).click();

    // a booster
    await program('Boosters');
    await page.getByRole('button', { name: 'New booster' }).click();
    dialog = page.getByRole('dialog', { name: 'New booster' });
    await dialog.getByLabel('Name', { exact: true }).fill('Triple');
    await dialog.getByLabel('Multiplier', { exact: true }).fill('0');
    await dialog.getByRole('button', { name: 'Create booster' }).click();
    await expectShown(dialog, 'Multiplier', messages.above(0));
    await dialog.getByRole('button', { name: 'Close' }).click();

    // the referral program
    await program('Referral program');
    await page.getByLabel('Points for the referrer', { exact: true }).fill('-3');
    await page.getByRole('button', { name: /^Save/ }).click();
    await expectShown(page, 'Points for the referrer', messages.atLeast(0));

    // a manual adjustment
    await page.getByRole('link', { name: 'Customers' }).click();
    await page.getByRole('link', { name: 'demo-1002' }).click();
    await page.getByRole('heading', { level: 2, name: 'Adjust points' }).waitFor();
    await page.getByRole('button', { name: 'Credit points' }).click();
    await expectShown(page, 'Points', messages.required);
    await expectShown(page, 'Reason', messages.required);

    // the settings
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('Pending days for order points', { exact: true }).fill('400');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expectShown(page, 'Pending days for order points', messages.atMost(365));
    await page.getByLabel('Pending days for order points', { exact: true }).fill('0');

    // the dashboard's custom range
    await page.getByRole('link', { name: 'Dashboard' }).click();
    await page.getByLabel('Range', { exact: true }).selectOption('custom');
    await page.getByLabel('From', { exact: true }).fill('2026-03-10');
    await page.getByLabel('To', { exact: true }).fill('2026-03-01');
    await page.getByRole('button', { name: 'Show' }).click();
    await expectShown(page, 'To', messages.after('From'));
    await page.getByLabel('Range', { exact: true }).selectOption('last_30_days');

    // an API key: the API's check on the name, then the form's own on a custom key given no scope;
    // neither makes a key
    const keysBefore = await test.db.apiKey.count({ where: { merchantId: merchant.id } });
    await page.getByRole('link', { name: 'Integrations' }).click();
    await page.getByRole('heading', { level: 1, name: 'REST API keys' }).waitFor();
    await page.getByRole('button', { name: 'Create API key' }).click();
    dialog = page.getByRole('dialog', { name: 'Create an API key' });
    await dialog.getByLabel('Name', { exact: true }).fill('k'.repeat(201));
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await expectShown(dialog, 'Name', messages.maxLength(200));
    await dialog.getByLabel('Name', { exact: true }).fill('Nothing allowed');
    await dialog.getByRole('radio', { name: /^Custom/ }).check();
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const scopes = dialog.getByRole('group', { name: 'Access per scope' });
    await expect.poll(() => scopes.getAttribute('aria-invalid')).toBe('true');
    const scopesError = await page.locator(`[id="${await scopes.getAttribute('aria-describedby')}"]`).innerText();
    seen.push(scopesError);
    expect(scopesError).toBe(messages.noScope);
    await accessible('the API key form with its messages');
    await shot('api-key-form-errors');
    await dialog.getByRole('button', { name: 'Close' }).click();
    expect(await test.db.apiKey.count({ where: { merchantId: merchant.id } })).toBe(keysBefore);

    // sentences, never zod's or GraphQL's wording (which began "must be…", "Too small: expected number…")
    for (const text of seen) {
      expect(text).toMatch(/^[A-Z].*\.$/);
      expect(text).not.toMatch(/Too small|Too big|Invalid input|expected \w+|received|cannot represent/);
    }
  });

  it('names products by their display name, and shows schedules as distinct badges in words', async () => {
    await fresh();
    const admin = adminClient(test, merchant.admin_token);
    await admin(`mutation { create_reward(input: { name: "Free tote", reward_type: free_product, points_cost: 1500,
      reward_rule: { product_id: "prod-canvas-tote", variant_id: "var-natural" }, product_name: "Canvas tote" }) { id } }`);
    const soon = new Date(Date.now() + 5 * 86_400_000).toISOString();
    const later = new Date(Date.now() + 9 * 86_400_000).toISOString();
    const booster = await admin(
      `mutation ($s: String!, $e: String) { create_booster_campaign(input: { name: "Next week double", multiplier: 2,
      campaign_types: [purchase], starts_at: $s, ends_at: $e }) { id } }`,
      { s: soon, e: later },
    );
    expect(booster.body.errors).toBeUndefined();
    await page.getByRole('link', { name: 'Program', exact: true }).click();
    const tote = page.getByRole('row', { name: /Free tote/ });
    expect(await tote.innerText()).toMatch(/Free Canvas tote/);
    expect(await tote.innerText()).not.toContain('prod-canvas-tote');
    // a reward given no name still says which product, by its ids
    const demoTote = (await page.getByRole('row').allInnerTexts()).find((t) => t.includes('prod-canvas-tote'));
    expect(demoTote).toBeDefined();

    await page.getByRole('navigation', { name: 'Program' }).getByRole('link', { name: 'Boosters' }).click();
    const scheduled = page.getByRole('row', { name: /Next week double/ }).locator('.badge');
    await scheduled.waitFor();
    expect(await scheduled.innerText()).toMatch(/Scheduled/);
    expect(await scheduled.getAttribute('class')).toBe('badge badge-scheduled');
    const styles = await page
      .locator('.badge')
      .evaluateAll((badges) =>
        badges.map((b) => `${b.textContent!.trim()}|${getComputedStyle(b).backgroundColor}|${getComputedStyle(b).color}`),
      );
    const colourOf = (state: string) => new Set(styles.filter((st) => st.includes(state)).map((st) => st.split('|').slice(1).join('|')));
    expect(colourOf('Scheduled').size).toBe(1);
    expect([...colourOf('Scheduled')][0]).not.toBe([...colourOf('Active')][0]);
    // not red: a scheduled campaign is not an error
    expect([...colourOf('Scheduled')][0]).not.toMatch(/rgb\(1[3-9]\d, [0-5]\d, [0-5]\d\)/);
    await accessible('boosters with a scheduled one');
    await shot('program-boosters-badges');

    // an unknown page under /program, or anywhere, is a not-found page
    for (const path of ['/admin/program/nothing-here', '/admin/nowhere']) {
      await page.goto(`${served.url}${path}`);
      await heading('Page not found');
      await page.getByRole('link', { name: 'Go to the dashboard' }).waitFor();
    }
    await accessible('not found');
    await shot('not-found');
    await page.getByRole('link', { name: 'Go to the dashboard' }).click();
    await heading('Dashboard');
  });

  it('shows every dashboard figure beside the previous period, for a preset or custom range, each chart with its table', async () => {
    await fresh();
    const api = await adminClient(
      test,
      merchant.admin_token,
    )(
      '{ dashboard(range: last_7_days) { points_issued active_members redemptions previous { points_issued active_members redemptions } } }',
    );
    const d = api.body.data.dashboard;
    await page.getByRole('link', { name: 'Dashboard' }).click();
    await heading('Dashboard');
    await page.getByLabel('Range').selectOption('last_7_days');
    const comparison = page.getByRole('figure', { name: /Compared with the previous period/ });
    await comparison.waitFor();
    const readTable = () =>
      comparison
        .getByRole('table')
        .locator('tbody tr')
        .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('th, td')].map((c) => c.textContent ?? '')));
    const n = (v: number) => v.toLocaleString('en-US');
    // the range's figures replace the previous range's once its answer arrives
    await expect
      .poll(async () => (await readTable()).find((r) => r[0] === 'Points issued')?.slice(1, 3))
      .toEqual([n(d.points_issued), n(d.previous.points_issued)]);
    const table = await readTable();
    expect(table.map((r) => r[0])).toEqual([
      'Points issued',
      'Points redeemed',
      'Points expired',
      'Active members',
      'Redemptions',
      'Redemption rate',
    ]);
    const row = (figure: string) => table.find((r) => r[0] === figure)!;
    expect(row('Points issued').slice(1, 3)).toEqual([n(d.points_issued), n(d.previous.points_issued)]);
    expect(row('Active members').slice(1, 3)).toEqual([n(d.active_members), n(d.previous.active_members)]);
    expect(row('Redemptions').slice(1, 3)).toEqual([n(d.redemptions), n(d.previous.redemptions)]);
    const stats = await page.locator('.stats').innerText();
    for (const figure of ['Points issued', 'Points redeemed', 'Points expired', 'Active members', 'Redemptions', 'Redemption rate']) {
      expect(stats).toMatch(new RegExp(`${figure}[\\s\\S]*?Previous period: `));
    }
    // every chart on the page comes with its table
    const figures = page.getByRole('figure');
    for (let i = 0; i < (await figures.count()); i++) {
      const figure = figures.nth(i);
      if ((await figure.locator('.recharts-wrapper').count()) > 0)
        expect(await figure.locator('table').count(), await figure.innerText()).toBe(1);
    }
    // a custom range of dates
    const today = new Date().toISOString().slice(0, 10);
    const start = new Date(Date.now() - 20 * 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel('Range').selectOption('custom');
    await page.getByLabel('From', { exact: true }).fill(start);
    await page.getByLabel('To', { exact: true }).fill(today);
    await page.getByRole('button', { name: 'Show' }).click();
    await expect
      .poll(() =>
        page
          .getByRole('figure', { name: /Points over time/ })
          .locator('tbody tr')
          .count(),
      )
      .toBe(21);
    await accessible('the dashboard, custom range');
    await shot('dashboard-custom-range');
    await page.getByLabel('Range').selectOption('last_30_days');
  });

  it('exports and erases a customer from their page, each after a confirmation naming the consequences; both are in the audit log', async () => {
    await fresh();
    await page.getByRole('link', { name: 'Customers' }).click();
    await page.getByRole('link', { name: 'demo-1007' }).click();
    const customer = await test.db.customer.findFirstOrThrow({ where: { merchantId: merchant.id, platformId: 'demo-1007' } });
    await page.getByRole('button', { name: 'Export data…' }).click();
    const ask = page.getByRole('dialog', { name: /^Export .*'s data\?$/ });
    await ask.getByText('keep it safe').waitFor();
    await ask.getByText('recorded in the audit log').waitFor();
    await accessible('the export confirmation');
    await shot('customer-export-confirm');
    const [download] = await Promise.all([page.waitForEvent('download'), ask.getByRole('button', { name: 'Download export' }).click()]);
    expect(download.suggestedFilename()).toBe('customer-demo-1007.json');
    const file = JSON.parse(readFileSync((await download.path())!, 'utf8'));
    expect(file).toMatchObject({ format: 'loyalty.customer-export/1', customer: { id: customer.id, platform_id: 'demo-1007' } });
    await page.getByText('The export was downloaded').waitFor();

    await page.getByRole('button', { name: 'Erase personal data…' }).click();
    const erase = page.getByRole('dialog', { name: /^Erase .*'s personal data\?$/ });
    await erase.getByText('This cannot be undone.').waitFor();
    await erase.getByText(/points stay in your totals/).waitFor();
    await accessible('the erase confirmation');
    await shot('customer-erase-confirm');
    // cancelling changes nothing
    await erase.getByRole('button', { name: 'Cancel' }).click();
    expect(
      (await test.db.customer.findUniqueOrThrow({ where: { merchantId_id: { merchantId: merchant.id, id: customer.id } } })).erasedAt,
    ).toBeNull();
    await page.getByRole('button', { name: 'Erase personal data…' }).click();
    await erase.getByRole('button', { name: 'Erase personal data' }).click();
    await heading('Customers');
    await page.getByText("The customer's personal data was erased.").waitFor();
    expect(
      (await test.db.customer.findUniqueOrThrow({ where: { merchantId_id: { merchantId: merchant.id, id: customer.id } } })).erasedAt,
    ).not.toBeNull();

    const audit = await adminClient(
      test,
      merchant.admin_token,
    )(`{ audit_log(resource_id: "${customer.id}") { data { action actor resource_type } } }`);
    const actions = (audit.body.data.audit_log.data as { action: string; actor: string }[]).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['customer_export', 'erase_customer']));
    expect((audit.body.data.audit_log.data as { actor: string }[]).every((e) => e.actor.startsWith('session:'))).toBe(true);
  });

  it("formats numbers, money and dates in the merchant's language and region", async () => {
    await fresh();
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('Language and region').selectOption('de-DE');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    await page.getByRole('link', { name: 'Program', exact: true }).click();
    // the demo's 1,250 points in German: 1.250
    const reward = page.getByRole('row', { name: /\$15 off orders over \$75/ });
    await expect.poll(() => reward.innerText()).toMatch(/1\.250/);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('Language and region').selectOption('en-US');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    await page.getByRole('link', { name: 'Program', exact: true }).click();
    await expect.poll(() => reward.innerText()).toMatch(/1,250/);
  });

  it('changes the settings (points expiry, time zone, pending days, late earning days), then signs out: the session is gone', async () => {
    await fresh();
    await page.getByRole('link', { name: 'Settings' }).click();
    await heading('Settings');
    await page.getByLabel('Points expire after a period without activity').check();
    await page.getByLabel('Days without activity').fill('0');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => page.getByLabel('Days without activity').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Days without activity').fill('365');
    // the time zone is picked from the IANA zones, found by a search, each with its offset now
    await page.getByLabel('Search time zones').fill('auckland');
    const zone = page.getByRole('listbox', { name: /^Time zone/ });
    expect((await zone.locator('option').allInnerTexts()).sort()).toEqual([
      expect.stringMatching(/^Pacific\/Auckland \(UTC\+1[23]:00\)$/),
      'UTC (UTC+00:00)',
    ]);
    await zone.selectOption('Pacific/Auckland');
    await page.getByText(/Now: Pacific\/Auckland \(UTC\+1[23]:00\)/).waitFor();
    await accessible('the time-zone picker');
    await shot('settings-time-zone');
    await page.getByLabel('Pending days for order points').fill('400');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => page.getByLabel('Pending days for order points').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Pending days for order points').fill('14');
    await page.getByLabel('Late earning days').fill('-1');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => page.getByLabel('Late earning days').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Late earning days').fill('30');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    expect(await test.db.merchant.findUniqueOrThrow({ where: { id: merchant.id } })).toMatchObject({
      pointsExpiryDays: 365,
      timezone: 'Pacific/Auckland',
      pointsPendingDays: 14,
      lateEarningDays: 30,
    });
    await accessible('settings');
    await shot('settings');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in to the loyalty admin');
    await page.getByText(messages.signIn.signedOut, { exact: true }).waitFor();
    expect(await page.evaluate(() => fetch('/admin/session').then((r) => r.status))).toBe(401);
    await page.goto(`${served.url}/admin/customers`);
    await heading('Sign in to the loyalty admin');
  });

  it('loaded nothing from outside the service and logged no error', () => {
    expect(outside).toEqual([]);
    // Chromium logs every answer that is not 2xx: the expected ones are the sign-in page's 401s
    // (no session yet, a wrong token, after sign-out) and the validation errors' 422s
    expect(problems.filter((p) => !/Failed to load resource: the server responded with a status of (401|422)\b/.test(p))).toEqual([]);
  });
});
