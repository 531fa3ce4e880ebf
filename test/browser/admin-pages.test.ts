// The admin app's webhooks, audit log, storefront and finance pages in Chromium, through the real
// server and database: a webhook endpoint is added (its secret shown once and copied), pinged and
// delivered by the real job workers to a receiver on 127.0.0.1 (the delivery's attempts and last
// answer shown, a failing answer too), redelivered, its secret rotated (the new one verifies the
// next delivery), disabled and deleted; the audit log shows those changes, filtered by actor,
// action and dates, each readable before and after; the storefront's origins, saved-operations
// mode and list change, and the session secret rotates after a confirmation naming the
// consequence; the finance page shows the API's roll-forward, expiry schedule, valuation and
// cohorts, and sets the valuation. Every page and state is checked with axe-core and saved as
// a screenshot (test-results/screenshots/admin-*.png); every validation message shown is the
// catalogue's sentence.
import { createHash } from 'node:crypto';
import type { Browser, Locator, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoProgram } from '../../src/cli/seed/demo-program.js';
import { importProgram } from '../../src/domain/program-import/program-import.js';
import { messages } from '../../src/domain/shared/messages.js';
import { createApp } from '../../src/http/app.js';
import type { JobsRuntime } from '../../src/jobs/queue.js';
import { adminClient, newCustomer, newMerchant, type TestApp, testApp } from '../harness.js';
import { jobsConfig, type Received, startReceiver, workers } from '../webhooks/receiver.js';
import { axeViolations, freshDashboard, hasChromium, launch, openPage, screenshotPath, serve } from './browser.js';

describe.skipIf(!hasChromium)('the admin app: webhooks, audit log, storefront and finance pages', () => {
  let test: TestApp;
  let app: ReturnType<typeof createApp>;
  let served: Awaited<ReturnType<typeof serve>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let jobs: JobsRuntime | undefined;
  let browser: Browser;
  let page: Page;
  let merchant: Awaited<ReturnType<typeof newMerchant>>;
  let admin: ReturnType<typeof adminClient>;
  let problems: string[] = [];
  let outside: string[] = [];

  beforeAll(async () => {
    test = await testApp();
    merchant = await newMerchant(test, 'pages');
    await importProgram(test.db, merchant.id, demoProgram());
    admin = adminClient(test, merchant.admin_token);
    for (const [i, customer] of ['demo-1001', 'demo-1002', 'demo-1004'].entries()) {
      const res = await admin(`mutation ($input: OrderEventInput!) { record_order(input: $input) { points_awarded } }`, {
        input: { order_id: `order-${i}`, customer_id: customer, subtotal: 60 + i * 40 },
      });
      expect(res.body.errors).toBeUndefined();
    }
    receiver = await startReceiver();
    // a retry window the failing answers below cannot outlast on a busy machine (the tests wait
    // for each state, and a page's checks take seconds there): the endpoint stays enabled
    jobs = await workers(test, { WEBHOOK_RETRY_WINDOW_SECONDS: '60' });
    // the job workers' configuration: an http receiver on 127.0.0.1 is allowed
    app = createApp({ db: test.db, config: jobsConfig({ WEBHOOK_RETRY_WINDOW_SECONDS: '60' }) });
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
    await receiver?.close();
  });

  const heading = (name: string | RegExp) => page.getByRole('heading', { level: 1, name }).waitFor();
  /** Holds back the admin app's requests whose document matches `operation` until `release`. */
  const holdReads = async (operation: RegExp) => {
    let open = () => {};
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    const holding: Promise<void>[] = [];
    await page.route('**/admin/app/graphql', (route) => {
      if (!operation.test(route.request().postData() ?? '')) return route.continue();
      const sent = opened.then(() => route.continue());
      holding.push(sent);
      return sent;
    });
    return {
      held: () => holding.length,
      async release() {
        open();
        await Promise.all(holding);
        await page.unroute('**/admin/app/graphql');
      },
    };
  };
  const shot = (name: string) => page.screenshot({ path: screenshotPath(`admin-${name}`), fullPage: true });
  async function accessible(what: string) {
    expect(await axeViolations(page), what).toEqual([]);
  }
  /** The page in a state: axe-clean, and saved as a screenshot. */
  async function checked(name: string) {
    await accessible(name);
    await shot(name);
  }
  /** The message shown under the field labelled `label`: the one its aria-describedby names last. */
  async function shownError(scope: Locator | Page, label: string) {
    const field = scope.getByLabel(label, { exact: true }).first();
    await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await field.getAttribute('aria-describedby'))!;
    return page.locator(`[id="${describedBy.split(' ').at(-1)}"]`).innerText();
  }
  const verified = (secret: string, r: Received) => new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
  const at = (path: string) => receiver.received.filter((r) => r.path === path);

  /** How often to look for what the job workers do (they poll every half second, retry after a second). */
  const WORKERS = { interval: 250 };
  let endpointId = '';
  let secret = '';

  it('adds a webhook endpoint through its validation messages; its signing secret is shown once, with a copy button', async () => {
    await page.getByRole('link', { name: 'Integrations' }).click();
    await page.getByRole('navigation', { name: 'Integrations' }).getByRole('link', { name: 'Webhooks' }).click();
    await heading('Webhooks');
    await page.getByText('No endpoint yet').waitFor();
    await checked('webhooks-empty');

    // from the keyboard: the dialog opens with Enter, keeps the focus, and Escape closes it
    await page.getByRole('button', { name: 'Add endpoint' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Add a webhook endpoint' });
    await dialog.waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('dialog') !== null)).toBe(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Add endpoint');

    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await dialog.getByRole('radio', { name: /Only the events ticked/ }).check();
    // the event filter offers the API's list of types
    const types = (await admin('{ webhook_event_types { type } }')).body.data.webhook_event_types.map((t: { type: string }) => t.type);
    expect(types).toContain('points.credited');
    expect(await dialog.getByRole('checkbox').count()).toBe(types.length);
    await dialog.getByRole('button', { name: 'Add endpoint' }).click();
    expect(await shownError(dialog, 'Endpoint URL')).toBe(messages.required);
    expect(await dialog.locator('fieldset.checkbox-group .field-error').innerText()).toBe(messages.minItems(1));
    // the API's checks, in the catalogue's words
    await dialog.getByLabel('Endpoint URL').fill('ftp://example.com/hook');
    await dialog.getByRole('checkbox', { name: /^points\.credited/ }).check();
    await dialog.getByRole('checkbox', { name: /^reward\.redeemed/ }).check();
    await dialog.getByRole('button', { name: 'Add endpoint' }).click();
    expect(await shownError(dialog, 'Endpoint URL')).toBe(messages.url);
    await checked('webhook-form-errors');
    expect(await test.db.webhookEndpoint.count({ where: { merchantId: merchant.id } })).toBe(0);

    await dialog.getByLabel('Endpoint URL').fill(receiver.url('/pages'));
    await dialog.getByLabel('Description').fill('Email platform');
    await dialog.getByRole('button', { name: 'Add endpoint' }).click();
    const shown = page.getByRole('dialog', { name: 'Your new endpoint' });
    await shown.getByText('you will not see it again').waitFor();
    secret = await shown.getByRole('textbox').inputValue();
    expect(secret).toMatch(/^whsec_/);
    await shown.getByRole('button', { name: 'Copy' }).click();
    await shown.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await checked('webhook-secret-shown-once');
    await shown.getByRole('button', { name: 'I have copied the secret' }).click();

    const stored = await test.db.webhookEndpoint.findFirstOrThrow({ where: { merchantId: merchant.id } });
    expect(stored).toMatchObject({
      url: receiver.url('/pages'),
      description: 'Email platform',
      eventTypes: ['points.credited', 'reward.redeemed'],
      secret,
    });
    endpointId = stored.id;
    const row = page.getByRole('row', { name: /Email platform/ });
    expect(await row.innerText()).toMatch(/points\.credited[\s\S]*reward\.redeemed[\s\S]*Enabled/);
    // the secret is nowhere on the page any more
    expect(await page.content()).not.toContain(secret);
    await checked('webhooks');
  });

  it("pings the endpoint: the real workers deliver it, and its attempts and the receiver's answer are shown; a failing answer too, then a redelivery", async () => {
    await page.getByRole('link', { name: receiver.url('/pages') }).click();
    await heading('Email platform');
    await page.getByText('No delivery yet.').waitFor();
    // from the keyboard
    await page.getByRole('button', { name: 'Send a test event' }).focus();
    await page.keyboard.press('Enter');
    await page.getByText('A test event (webhook.ping) is on its way').waitFor();
    const delivery = page.getByRole('row', { name: /webhook\.ping/ });
    /** Refreshes the deliveries until the row says `what` (the workers deliver in the background). */
    const shows = (what: RegExp) =>
      expect
        .poll(async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          return delivery.innerText();
        }, WORKERS)
        .toMatch(what);
    await shows(/Delivered[\s\S]*1[\s\S]*HTTP 200[\s\S]*ok/);
    // what arrived is signed with the secret shown once
    expect(at('/pages')).toHaveLength(1);
    expect(verified(secret, at('/pages')[0]!)).toMatchObject({ type: 'webhook.ping', data: { endpoint_id: endpointId } });
    await checked('webhook-endpoint');

    // the receiver fails: the redelivery's answer shows, attempt after attempt
    receiver.state.answer = () => 500;
    await delivery.getByRole('button', { name: /^Redeliver webhook\.ping/ }).click();
    await page.getByText('is queued again, with the same event id and body').waitFor();
    await shows(/HTTP 500[\s\S]*receiver is down/);
    expect(receiver.requests.filter((r) => r.path === '/pages' && r.status === 500).length).toBeGreaterThanOrEqual(1);
    // the receiver is back (within the retry window, which would disable the endpoint): the next
    // retry succeeds
    receiver.state.answer = () => 200;
    await checked('webhook-delivery-failing');
    await shows(/Delivered[\s\S]*HTTP 200/);
    expect(Number((await delivery.locator('td.num').innerText()).trim())).toBeGreaterThanOrEqual(2);
    await page.getByLabel('Status', { exact: true }).selectOption('failed');
    await page.getByText('No delivery yet.').waitFor();
    await page.getByLabel('Status', { exact: true }).selectOption('');
    await delivery.waitFor();
    await checked('webhook-delivery-redelivered');
  });

  it('edits the event filter, rotates the secret (the new one is shown once and signs), disables, enables and deletes after a confirmation', async () => {
    await page.getByRole('button', { name: 'Edit…' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Email platform' });
    await edit.getByRole('radio', { name: /Every event/ }).check();
    await edit.getByRole('button', { name: 'Save endpoint' }).click();
    await edit.waitFor({ state: 'hidden' });
    await expect
      .poll(async () => (await test.db.webhookEndpoint.findFirstOrThrow({ where: { merchantId: merchant.id } })).eventTypes)
      .toEqual([]);
    await page.locator('.facts').getByText('Every event').waitFor();

    await page.getByRole('button', { name: 'Rotate secret…' }).click();
    const rotate = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    await rotate.getByLabel('Overlap (hours)').fill('200');
    await rotate.getByRole('button', { name: 'Rotate secret' }).click();
    expect(await shownError(rotate, 'Overlap (hours)')).toBe(messages.atMost(168));
    await rotate.getByLabel('Overlap (hours)').fill('1.5');
    await rotate.getByRole('button', { name: 'Rotate secret' }).click();
    expect(await shownError(rotate, 'Overlap (hours)')).toBe(messages.wholeNumber);
    await checked('webhook-rotate-errors');
    await rotate.getByLabel('Overlap (hours)').fill('0');
    await rotate.getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = page.getByRole('dialog', { name: 'Your new signing secret' });
    await rotated.getByText('The old secret stopped signing now').waitFor();
    const newSecret = await rotated.getByRole('textbox').inputValue();
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(secret);
    await checked('webhook-rotated-secret');
    await rotated.getByRole('button', { name: 'I have copied the secret' }).click();
    // the next delivery verifies with the new secret only
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await expect.poll(() => at('/pages').length, WORKERS).toBe(3);
    expect(verified(newSecret, at('/pages')[2]!)).toMatchObject({ type: 'webhook.ping' });
    expect(() => verified(secret, at('/pages')[2]!)).toThrow();

    // the page's read of the endpoints after each change held back: the page shows what Disable
    // answered, and Enable, clicked before the read lands, enables it again
    const endpointReads = await holdReads(/query WebhookEndpoints\b/);
    const enabled = async () => (await test.db.webhookEndpoint.findFirstOrThrow({ where: { merchantId: merchant.id } })).enabled;
    await page.getByRole('button', { name: 'Disable', exact: true }).click();
    await page.getByText('The endpoint is disabled').waitFor();
    await expect.poll(() => page.locator('.facts .badge').innerText()).toMatch(/^○ Disabled$/);
    expect(await page.getByRole('button', { name: 'Send a test event' }).isDisabled()).toBe(true);
    expect(await enabled()).toBe(false);
    await checked('webhook-disabled');
    await page.getByRole('button', { name: 'Enable', exact: true }).click();
    await page.getByText('The endpoint is enabled.').waitFor();
    expect(await enabled()).toBe(true);
    expect(endpointReads.held()).toBeGreaterThan(0);
    await endpointReads.release();
    await page.getByRole('button', { name: 'Disable', exact: true }).waitFor();

    await page.getByRole('button', { name: 'Delete…' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this endpoint?' });
    await confirm.getByText('This cannot be undone.').waitFor();
    await checked('webhook-delete-confirm');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect(await test.db.webhookEndpoint.count({ where: { merchantId: merchant.id } })).toBe(1);
    await page.getByRole('button', { name: 'Delete…' }).click();
    await confirm.getByRole('button', { name: 'Delete endpoint' }).click();
    await heading('Webhooks');
    await page.getByText('No endpoint yet').waitFor();
    expect(await test.db.webhookEndpoint.count({ where: { merchantId: merchant.id } })).toBe(0);
    // its page is gone with it
    await page.goto(`${served.url}/admin/integrations/webhooks/${endpointId}`);
    await heading('Page not found');
  });

  it('shows the audit log newest first, filtered by actor, action and dates; each entry readable before and after', async () => {
    await freshDashboard(page, served.url);
    await page.getByRole('link', { name: 'Audit log' }).click();
    await heading('Audit log');
    // the entries' rows (not the rows of the tables of changes inside them)
    const rows = page.getByRole('table', { name: 'Admin changes, newest first' }).locator(':scope > tbody > tr');
    const actions = () => rows.evaluateAll((trs) => trs.map((tr) => tr.querySelectorAll('td')[1]?.textContent ?? ''));
    // the changes made above, newest first, by this session; the orders recorded with the admin token
    await expect
      .poll(actions)
      .toEqual(
        expect.arrayContaining([
          'Delete webhook endpoint',
          'Update webhook endpoint',
          'Rotate webhook secret',
          'Create webhook endpoint',
          'Record order',
        ]),
      );
    const all = await actions();
    expect(all[0]).toBe('Delete webhook endpoint');
    expect(all.indexOf('Create webhook endpoint')).toBeGreaterThan(all.indexOf('Rotate webhook secret'));
    await checked('audit-log');

    // who: every admin app session, then the admin token
    const who = () => rows.evaluateAll((trs) => trs.map((tr) => tr.querySelectorAll('td')[0]?.textContent ?? ''));
    await page.getByLabel('Who').selectOption('session');
    await page.getByRole('button', { name: 'Show' }).click();
    await expect
      .poll(async () => new Set((await who()).map((w) => w.replace(/session \S+$/, 'session …'))))
      .toEqual(new Set(['Admin app session …']));
    await page.getByLabel('Who').selectOption('token');
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(actions).toEqual(['Record order', 'Record order', 'Record order']);

    // what: one action, from its row; its entry shows the fields that changed, before and after
    await page.getByLabel('Who').selectOption('');
    await page.getByLabel('Action').fill('update_webhook_endpoint');
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(actions).toEqual(['Update webhook endpoint', 'Update webhook endpoint', 'Update webhook endpoint']);
    // newest first: enabled again, disabled, the event filter edited
    const disable = rows.nth(1);
    await disable.getByText(/^Changed: \d+ field/).click();
    const enabledRow = disable.locator('.diff tbody tr', { hasText: 'Enabled' });
    expect(await enabledRow.locator('td').allInnerTexts()).toEqual(['Yes', 'No']);
    await checked('audit-log-entry');

    // when: dates in the shop's time zone; a range that ends before it starts is refused
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByLabel('From', { exact: true }).fill(tomorrow);
    await page.getByLabel('To', { exact: true }).fill(today);
    await page.getByRole('button', { name: 'Show' }).click();
    expect(await shownError(page, 'To')).toBe(messages.onOrAfter('From'));
    await checked('audit-log-filter-error');
    await page.getByLabel('To', { exact: true }).fill(tomorrow);
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByText('No change matches these filters.').waitFor();
    await page.getByLabel('From', { exact: true }).fill(today);
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(async () => (await actions()).length).toBeGreaterThan(5);
    // the API refuses the same range in the same words
    const refused = await admin(
      `{ audit_log(created_after: "2026-05-02T00:00:00Z", created_before: "2026-05-01T00:00:00Z") { data { id } } }`,
    );
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('validation_error');
  });

  it('changes the storefront: allowed origins, the saved operations and their mode, and rotates the session secret after naming the consequence', async () => {
    await freshDashboard(page, served.url);
    await page.getByRole('link', { name: 'Integrations' }).click();
    await page.getByRole('navigation', { name: 'Integrations' }).getByRole('link', { name: 'Storefront' }).click();
    await heading('Storefront');
    await page.getByText('No site is allowed yet.').waitFor();
    await checked('storefront');

    await page.getByRole('button', { name: 'Add origin' }).click();
    expect(await shownError(page, 'Add an origin')).toBe(messages.required);
    await page.getByLabel('Add an origin').fill('shop.example.com/path');
    await page.getByRole('button', { name: 'Add origin' }).click();
    await expect.poll(() => shownError(page, 'Add an origin')).toBe(messages.origin);
    await checked('storefront-origin-error');
    await page.getByLabel('Add an origin').fill('https://shop.example.com');
    await page.getByRole('button', { name: 'Add origin' }).click();
    await page.getByText('https://shop.example.com may now call the storefront API.').waitFor();
    // the page's read of the settings after the next change held back: a removal made before it
    // lands starts from the change just saved, not from the read before it
    const storefrontReads = await holdReads(/query Storefront\s*\{/);
    await page.getByLabel('Add an origin').fill('https://www.example.com');
    await page.getByRole('button', { name: 'Add origin' }).click();
    await page.getByText('https://www.example.com may now call the storefront API.').waitFor();
    const settings = () => test.db.storefrontSettings.findUniqueOrThrow({ where: { merchantId: merchant.id } });
    expect((await settings()).allowedOrigins).toEqual(['https://shop.example.com', 'https://www.example.com']);
    await page.getByRole('button', { name: 'Remove https://shop.example.com' }).click();
    await page.getByText('https://shop.example.com may no longer call the storefront API.').waitFor();
    expect((await settings()).allowedOrigins).toEqual(['https://www.example.com']);
    await storefrontReads.release();
    await page.getByRole('button', { name: 'Remove https://www.example.com' }).waitFor();

    // a saved operation: a bad document is refused in the catalogue's words
    await page.getByRole('button', { name: 'Save an operation' }).click();
    const add = page.getByRole('dialog', { name: 'Save an operation' });
    await add.getByRole('button', { name: 'Save operation' }).click();
    expect(await shownError(add, 'GraphQL document')).toBe(messages.required);
    await add.getByLabel('GraphQL document').fill('query { customer { ');
    await add.getByRole('button', { name: 'Save operation' }).click();
    expect(await shownError(add, 'GraphQL document')).toMatch(
      /^This is not a GraphQL document \(.+\): paste the whole query or mutation\.$/,
    );
    await checked('storefront-operation-error');
    const document = 'query Balance { customer { points_balance } }';
    await add.getByLabel('Name').fill('Balance widget');
    await add.getByLabel('GraphQL document').fill(document);
    await add.getByRole('button', { name: 'Save operation' }).click();
    const hash = createHash('sha256').update(document).digest('hex');
    await page.getByText(`Saved “Balance widget” (hash ${hash.slice(0, 12)}…).`).waitFor();
    expect(await page.getByRole('row', { name: /Balance widget/ }).innerText()).toContain(hash.slice(0, 16));

    await page.getByRole('button', { name: 'Turn on: run saved operations only' }).click();
    await page.getByRole('button', { name: 'Turn off: run any request' }).waitFor();
    expect((await settings()).persistedOnly).toBe(true);
    await checked('storefront-saved-operations-only');

    await page.getByRole('button', { name: 'Remove Balance widget' }).click();
    const remove = page.getByRole('dialog', { name: 'Remove this operation?' });
    await remove.getByRole('button', { name: 'Remove operation' }).click();
    await page.getByText('Removed “Balance widget”').waitFor();
    expect(await test.db.persistedOperation.count({ where: { merchantId: merchant.id } })).toBe(0);
    await page.getByRole('button', { name: 'Turn off: run any request' }).click();
    await page.getByRole('button', { name: 'Turn on: run saved operations only' }).waitFor();

    // the session secret: the confirmation says every shopper is signed out; Cancel changes nothing
    const before = (await settings()).sessionSecret;
    await page.getByRole('button', { name: 'Rotate the session secret…' }).click();
    const ask = page.getByRole('dialog', { name: 'Sign every shopper out?' });
    await ask.getByText('Every shopper signed in on your storefront is signed out').waitFor();
    await checked('storefront-rotate-confirm');
    await ask.getByRole('button', { name: 'Cancel' }).click();
    expect(Buffer.from((await settings()).sessionSecret).equals(Buffer.from(before))).toBe(true);
    await page.getByRole('button', { name: 'Rotate the session secret…' }).click();
    await ask.getByRole('button', { name: 'Rotate and sign everyone out' }).click();
    await page.getByText(/^Every shopper was signed out at /).waitFor();
    expect(Buffer.from((await settings()).sessionSecret).equals(Buffer.from(before))).toBe(false);
  });

  it("shows the finance figures as the API gives them: roll-forward per period in the shop's time zone, expiry schedule, valuation and cohorts; sets the valuation", async () => {
    await freshDashboard(page, served.url);
    // more customers with points than one page of the per-customer list holds
    for (const points of [40, 60]) await newCustomer(test, merchant.id, { points });
    await page.getByRole('link', { name: 'Finance' }).click();
    await heading('Finance');
    const table = page.getByRole('table', { name: 'Points outstanding per period' });
    await table.waitFor();
    const from = await page.getByLabel('From', { exact: true }).inputValue();
    const to = await page.getByLabel('To', { exact: true }).inputValue();
    const api = (
      await admin(
        `query ($from: Date!, $to: Date!) { points_liability(from: $from, to: $to, grouping: month) { periods { opening closing } total { opening closing issued { total } } } }`,
        { from, to },
      )
    ).body.data.points_liability;
    expect(api.periods).toHaveLength(12);
    expect(api.total.closing).toBeGreaterThan(0);
    const cells = () =>
      table
        .locator('tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => Number((td.textContent ?? '').replace(/[^\d-]/g, '')))),
        );
    const n = await cells();
    // twelve months and the whole range; opening first, closing last
    expect(n).toHaveLength(13);
    expect(n.map((r) => [r[0], r.at(-1)])).toEqual([
      ...api.periods.map((p: { opening: number; closing: number }) => [p.opening, p.closing]),
      [api.total.opening, api.total.closing],
    ]);
    await page.locator('.recharts-line-curve').first().waitFor({ state: 'attached' });
    expect(await page.locator('.stats').innerText()).toMatch(new RegExp(`Closing\\s+${api.total.closing.toLocaleString('en-US')}`));
    await checked('finance');

    // per quarter; a range that ends before it starts is refused
    await page.getByLabel('Per', { exact: true }).selectOption('quarter');
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(async () => (await cells()).length).toBeLessThanOrEqual(6);
    await page
      .getByText(/^Q\d \d{4}$/)
      .first()
      .waitFor({ state: 'attached' });
    await checked('finance-quarters');
    await page.getByLabel('To', { exact: true }).fill('2020-01-01');
    await page.getByRole('button', { name: 'Show' }).click();
    expect(await shownError(page, 'To')).toBe(messages.onOrAfter('From'));
    await page.getByLabel('To', { exact: true }).fill(to);
    await page.getByLabel('Per', { exact: true }).selectOption('day');
    await page.getByLabel('From', { exact: true }).fill('2020-01-01');
    await page.getByRole('button', { name: 'Show' }).click();
    // the API's limit on periods, in the catalogue's words
    expect(await shownError(page, 'To')).toBe(messages.tooManyPeriods(750));
    await page.getByLabel('From', { exact: true }).fill(from);
    await page.getByLabel('Per', { exact: true }).selectOption('month');
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(async () => (await cells()).length).toBe(13);

    // the cohorts are the API's
    const vintages = (await admin('{ points_vintages { cohorts { cohort issued } } }')).body.data.points_vintages.cohorts;
    expect(await page.getByRole('table', { name: 'Cohorts of points by month issued' }).locator('tbody tr').count()).toBe(vintages.length);
    await page.getByRole('heading', { name: 'Points expiring' }).waitFor();

    // each customer's points, ten a page: the pages sum to the points outstanding
    const owed = page.getByRole('table', { name: 'Points owed per customer' });
    const next = page.getByRole('navigation', { name: 'Points owed per customer pages' }).getByRole('button', { name: 'Next' });
    const pages: number[][] = [];
    const seen: string[] = [];
    const rows = () =>
      owed.locator('tbody tr').evaluateAll((trs) =>
        trs.map((tr) => ({
          customer: tr.querySelector('th')?.textContent ?? '',
          points: Number((tr.querySelector('td')?.textContent ?? '').replace(/[^\d-]/g, '')),
        })),
      );
    for (;;) {
      await owed.locator('tbody th').first().waitFor(); // a customer's row, not the loading one
      const shown = await rows();
      pages.push(shown.map((r) => r.points));
      seen.push(...shown.map((r) => r.customer));
      if (pages.length === 1) await checked('finance-balances');
      if (await next.isDisabled()) break;
      await next.click();
      await expect.poll(async () => page.getByText(`page ${pages.length + 1}.`, { exact: false }).count()).toBe(1);
      // the next page's rows, not the last page's while the next one loads
      await expect.poll(async () => (await rows()).find((r) => r.customer)?.customer ?? shown[0]!.customer).not.toBe(shown[0]!.customer);
    }
    expect(pages.length).toBeGreaterThan(1);
    expect(new Set(seen).size).toBe(seen.length);
    expect(pages[0]).toHaveLength(10);
    const outstanding = (await admin('{ points_valuation { points_outstanding } }')).body.data.points_valuation.points_outstanding;
    expect(pages.flat().reduce((a, b) => a + b, 0)).toBe(outstanding);
    expect(outstanding).toBeGreaterThan(0);

    // the valuation: the form's own checks and the API's, then saved
    const value = page.getByLabel('Value of a point (USD)');
    const rate = page.getByLabel('Expected redemption rate (%)');
    await value.fill('ten cents');
    await rate.fill('150');
    await page.getByRole('button', { name: 'Save valuation' }).click();
    expect(await shownError(page, 'Expected redemption rate (%)')).toBe(messages.atMost(100));
    expect(await shownError(page, 'Value of a point (USD)')).toBe(messages.number);
    await value.fill('-1');
    await rate.fill('0');
    await page.getByRole('button', { name: 'Save valuation' }).click();
    expect(await shownError(page, 'Expected redemption rate (%)')).toBe(messages.above(0));
    await checked('finance-valuation-errors');
    await value.fill('0.01');
    await rate.fill('80');
    await page.getByRole('button', { name: 'Save valuation' }).click();
    await page.getByText('Valuation saved').waitFor();
    const valuation = (
      await admin('{ points_valuation { point_value redemption_rate point_value_source redemption_rate_source liability_value } }')
    ).body.data.points_valuation;
    expect(valuation).toMatchObject({ point_value: 0.01, redemption_rate: 0.8, point_value_source: 'set', redemption_rate_source: 'set' });
    const facts = () => page.locator('dl.valuation').innerText();
    await expect.poll(facts).toMatch(/Value of a point\s+\$0\.01 \(set by you\)/);
    const shown = await facts();
    expect(shown).toMatch(/Expected redemption rate\s+80% \(set by you\)/);
    expect(shown).toContain(`Liability\n${valuation.liability_value.toLocaleString('en-US', { style: 'currency', currency: 'USD' })}`);
    await checked('finance-valuation');
  });

  it('loaded nothing from outside the service and logged no error', () => {
    expect(outside).toEqual([]);
    // Chromium logs every answer that is not 2xx: none is expected here (errors come as GraphQL answers)
    expect(problems.filter((p) => !/Failed to load resource: the server responded with a status of (401|422)\b/.test(p))).toEqual([]);
  });
});
