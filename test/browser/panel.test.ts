// The <loyalty-panel> element and publishable keys in a real browser: a shop's page (its own
// origin, another port) loads the panel's script from the service and shows the guest view
// with a publishable key; the same page at an origin the shop does not list gets no answer
// (no CORS grant: the panel shows its error); with a customer session the shopper's view, a
// redemption made with the keyboard shows the code, and a friend referred from the panel is
// invited or, held by a fraud check, said to be under review. Each state is checked with axe-core and
// saved as a screenshot (test-results/screenshots/panel-*.png). Nothing loads from elsewhere.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoProgram } from '../../src/cli/seed/demo-program.js';
import { mintCustomerSession } from '../../src/domain/access/customer-sessions.js';
import { importProgram } from '../../src/domain/program-import/program-import.js';
import { createStorefrontKey } from '../../src/domain/storefront/storefront-keys.js';
import { updateStorefrontSettings } from '../../src/domain/storefront/storefront-settings.js';
import { createApp } from '../../src/http/app.js';
import { newCustomer, newMerchant, type TestApp, testApp, testConfig } from '../harness.js';
import { axeViolations, hasChromium, launch, screenshotPath, serve } from './browser.js';

/** A shop's page on a port of its own: it includes the panel's script from the service. */
async function shopPage(serviceUrl: string, key: string) {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>The shop</title></head>
<body><main><h1>The shop</h1>
<loyalty-panel id="panel" publishable-key="${key}"></loyalty-panel>
</main><script src="${serviceUrl}/storefront/loyalty-panel.js"></script></body></html>`;
  const server: Server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe.skipIf(!hasChromium)('<loyalty-panel> in Chromium', () => {
  let test: TestApp;
  let app: ReturnType<typeof createApp>;
  let served: Awaited<ReturnType<typeof serve>>;
  let shop: Awaited<ReturnType<typeof shopPage>>;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let merchantId: string;
  let key: string;
  let allowed: string;
  let foreign: string;
  let shopper: Awaited<ReturnType<typeof newCustomer>>;
  const problems: string[] = [];
  const outside: string[] = [];

  beforeAll(async () => {
    test = await testApp();
    const merchant = await newMerchant(test, 'panel');
    merchantId = merchant.id;
    await importProgram(test.db, merchantId, demoProgram());
    key = (await createStorefrontKey(test.db, merchantId, { name: 'Theme' })).key;
    app = createApp({ db: test.db, config: testConfig() });
    served = await serve(app);
    shop = await shopPage(served.url, key);
    // the same page at two origins: one the shop lists, one it does not
    allowed = `http://127.0.0.1:${shop.port}`;
    foreign = `http://localhost:${shop.port}`;
    await updateStorefrontSettings(test.db, merchantId, { allowed_origins: [allowed, served.url] });
    browser = await launch();
    context = await browser.newContext({ viewport: { width: 900, height: 1000 } });
    await context.route(/^(?!http:\/\/(127\.0\.0\.1|localhost):)/, (route) => {
      outside.push(route.request().url());
      return route.abort();
    });
    page = await context.newPage();
    page.on('pageerror', (error) => void problems.push(error.message));
  });

  afterAll(async () => {
    await browser?.close();
    await shop?.close();
    await served?.close();
    await app?.close();
  });

  const accessible = async (what: string) => expect(await axeViolations(page), what).toEqual([]);

  const shot = (name: string) => page.locator('#panel').screenshot({ path: screenshotPath(`panel-${name}`) });
  const panel = () => page.locator('#panel');
  /** A GraphQL request from the page itself, as any script of it could send. */
  const fromPage = (bearer: string) =>
    page.evaluate(
      async ({ url, bearer }) => {
        try {
          const res = await fetch(url, {
            method: 'POST',
            headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
            body: JSON.stringify({ query: '{ tiers { data { name } } }' }),
          });
          return { status: res.status, body: await res.json() };
        } catch (err) {
          return { failed: String(err) };
        }
      },
      { url: `${served.url}/graphql`, bearer },
    );

  it('shows the guest view with a publishable key on a page of a listed origin', async () => {
    await page.goto(allowed);
    await panel().getByRole('heading', { name: 'Ways to earn' }).waitFor();
    await expect(panel().getByRole('heading', { name: 'Tiers' }).isVisible()).resolves.toBe(true);
    const rewards = (await test.db.reward.findMany({ where: { merchantId, isActive: true } })).map((r) => r.name);
    for (const name of rewards.slice(0, 3)) await expect(panel().getByText(name, { exact: true }).count()).resolves.toBeGreaterThan(0);
    await expect(panel().getByText('Sign in to earn points and redeem rewards.').isVisible()).resolves.toBe(true);
    await expect(
      panel()
        .getByRole('button', { name: /^Redeem/ })
        .count(),
    ).resolves.toBe(0);
    const direct = await fromPage(key);
    expect(direct).toMatchObject({ status: 200 });
    expect((direct as { body: { data: { tiers: { data: unknown[] } } } }).body.data.tiers.data.length).toBeGreaterThan(0);
    await accessible('signed out');
    await shot('signed-out');
  });

  it('gets no answer on a page of an origin the shop does not list, and shows its error', async () => {
    await page.goto(foreign);
    await panel().getByRole('alert').waitFor();
    await expect(panel().getByRole('alert').textContent()).resolves.toBe('Rewards could not be loaded.');
    await expect(panel().getByRole('button', { name: 'Try again' }).isVisible()).resolves.toBe(true);
    // the browser itself refuses the answer: no CORS grant for this origin
    expect(await fromPage(key)).toMatchObject({ failed: expect.stringContaining('Failed to fetch') });
    await accessible('error');
    await shot('error');
  });

  it("shows the shopper's view with a customer session, themed and translated by the page", async () => {
    const customer = await newCustomer(test, merchantId, { points: 2600 });
    shopper = customer;
    await test.db.customer.update({ where: { merchantId_id: { merchantId, id: customer.id } }, data: { firstName: 'Ada' } });
    const { token } = await mintCustomerSession(
      test.db,
      merchantId,
      { customer_id: customer.platformId },
      { defaultTtl: 3600, maxTtl: 86_400 },
    );
    await page.goto(allowed);
    await panel().getByRole('heading', { name: 'Ways to earn' }).waitFor();
    await page.evaluate((token) => {
      const element = document.getElementById('panel') as HTMLElement & { sessionToken: string };
      element.style.setProperty('--loyalty-accent', 'rgb(0, 90, 40)');
      element.sessionToken = token;
    }, token);
    await panel().getByText('Hi Ada').waitFor();
    await expect(panel().getByText('2,600 points', { exact: true }).isVisible()).resolves.toBe(true);
    await expect(panel().getByRole('heading', { name: 'Rewards you can redeem' }).isVisible()).resolves.toBe(true);
    await expect(panel().getByRole('heading', { name: 'Recent activity' }).isVisible()).resolves.toBe(true);
    await expect(panel().getByText('Opening balance').isVisible()).resolves.toBe(true);
    await expect(
      panel()
        .getByText(/^https:\/\/shop\.example\.com\/\?ref=/)
        .isVisible(),
    ).resolves.toBe(true);
    await expect(panel().locator('progress').count()).resolves.toBe(1);
    const redeem = panel()
      .getByRole('button', { name: /^Redeem / })
      .first();
    await expect(redeem.evaluate((b) => getComputedStyle(b).backgroundColor)).resolves.toBe('rgb(0, 90, 40)');
    await accessible('signed in');
    await shot('signed-in');

    // translated: any string, by the strings property (or attribute)
    await page.evaluate(() => {
      (document.getElementById('panel') as HTMLElement & { strings: object }).strings = { title: 'Récompenses', redeem: 'Échanger' };
    });
    await expect(panel().getByRole('heading', { level: 2 }).textContent()).resolves.toBe('Récompenses');
    await expect(
      panel()
        .getByRole('button', { name: /^Redeem / })
        .first()
        .textContent(),
    ).resolves.toBe('Échanger');
    await page.evaluate(() => {
      (document.getElementById('panel') as HTMLElement & { strings: object }).strings = {};
    });
  });

  it('redeems with the keyboard alone: the code is shown and focused, the balance spent once', async () => {
    const before = await panel()
      .getByRole('button', { name: /^Redeem / })
      .first()
      .getAttribute('aria-label');
    const [, name, cost] = /^Redeem (.+) for ([\d,]+) points$/.exec(before!)!;
    // Tab from the page's start to the first Redeem button, then Enter
    await page.locator('body').focus();
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(
        () => document.getElementById('panel')!.shadowRoot!.activeElement?.getAttribute('aria-label') ?? null,
      );
      if (focused === before) break;
    }
    await page.keyboard.press('Enter');
    const code = panel()
      .getByRole('status')
      .filter({ hasText: `Your code for ${name}` });
    await code.waitFor();
    const held = await test.db.customerReward.findMany({ where: { merchantId }, select: { code: true } });
    expect(held).toHaveLength(1);
    await expect(code.textContent()).resolves.toContain(held[0]!.code);
    await expect(page.evaluate(() => document.getElementById('panel')!.shadowRoot!.activeElement?.getAttribute('role'))).resolves.toBe(
      'status',
    );
    const left = 2600 - Number(cost!.replace(/,/g, ''));
    await expect(
      panel()
        .getByText(`${left.toLocaleString('en')} points`, { exact: true })
        .isVisible(),
    ).resolves.toBe(true);
    await accessible('after a redemption');
    await shot('redeemed');
  });

  it('refers a friend by email: an invitation says so, a referral held for review says it is under review, not an error', async () => {
    const send = async (email: string) => {
      await panel().getByLabel('Your friend’s email').fill(email);
      await panel().getByRole('button', { name: 'Send invitation' }).click();
    };
    await send('grace@example.org');
    await panel().getByRole('status').filter({ hasText: 'grace@example.org is invited.' }).waitFor();
    // the shopper's own mailbox under a plus-tag: held by the similar-email check
    const [local, domain = ''] = shopper.email.split('@');
    await send(`${local}+friend@${domain}`);
    const said = panel()
      .getByRole('status')
      .filter({ hasText: `Thanks: your referral of ${local}+friend@${domain} is under review.` });
    await said.waitFor();
    await expect(page.evaluate(() => document.getElementById('panel')!.shadowRoot!.activeElement?.getAttribute('role'))).resolves.toBe(
      'status',
    );
    const list = panel().getByRole('list', { name: 'Your referrals' });
    await expect(list.getByRole('listitem').allInnerTexts()).resolves.toEqual([
      expect.stringMatching(new RegExp(`^${local}\\+friend@${domain.replace('.', '\\.')}\\s+Under review$`)),
      expect.stringMatching(/^grace@example\.org\s+Invited$/),
    ]);
    const rows = await test.db.referral.findMany({ where: { merchantId, referrerId: shopper.id }, orderBy: { createdAt: 'asc' } });
    expect(rows.map((r) => [r.refereeEmail, r.status, r.registeredBy])).toEqual([
      ['grace@example.org', 'pending', 'referrer'],
      [`${local}+friend@${domain}`, 'held', 'referrer'],
    ]);
    // one the program refuses (already referred) is an alert
    await send('grace@example.org');
    await panel().getByRole('status').filter({ hasText: 'grace@example.org is invited.' }).waitFor();
    await send(shopper.email);
    await panel().getByRole('alert').filter({ hasText: 'This friend could not be referred.' }).waitFor();
    await accessible('after referring friends');
    await shot('referred');
  });

  it('the demo storefront page shows the panel from the service itself', async () => {
    await page.goto(`${served.url}/storefront/demo?key=${key}`);
    await page.locator('loyalty-panel').getByRole('heading', { name: 'Ways to earn' }).waitFor();
    await accessible('demo page');
    await page.screenshot({ path: screenshotPath('panel-demo-page'), fullPage: true });
  });

  it('sent nothing anywhere else, and no page threw', () => {
    expect(outside).toEqual([]);
    expect(problems).toEqual([]);
  });
});
