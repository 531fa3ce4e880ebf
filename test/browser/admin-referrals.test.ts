// The referrals a fraud check held, reviewed in the admin app in Chromium through the real
// server and database: the list shows each held referral with its signals, approving one (after
// a confirmation) issues its rewards once, rejecting one issues nothing, and the referral
// program's form sets the fraud checks, a bad blocklist line said next to its field. Each state
// checked with axe-core and saved as a screenshot (test-results/screenshots/admin-referrals-*.png).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/domain/shared/messages.js';
import { createApp } from '../../src/http/app.js';
import { adminClient, newCustomer, newMerchant, type TestApp, testApp, testConfig } from '../harness.js';
import { axeViolations, hasChromium, launch, openPage, screenshotPath, serve } from './browser.js';

describe.skipIf(!hasChromium)('the admin app: referrals under review', () => {
  let test: TestApp;
  let app: ReturnType<typeof createApp>;
  let served: Awaited<ReturnType<typeof serve>>;
  let browser: Browser;
  let page: Page;
  let problems: string[] = [];
  let outside: string[] = [];
  let merchant: Awaited<ReturnType<typeof newMerchant>>;
  let admin: ReturnType<typeof adminClient>;
  const people: Record<string, { id: string; platformId: string; referralCode: string }> = {};

  const ok = async (query: string, variables?: Record<string, unknown>) => {
    const res = await admin(query, variables);
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    return res.body.data;
  };

  beforeAll(async () => {
    test = await testApp();
    merchant = await newMerchant(test, 'review');
    admin = adminClient(test, merchant.admin_token);
    await ok(`mutation ($input: ReferralProgramInput!) { set_referral_program(input: $input) { is_active } }`, {
      input: { referrer_reward: { points: 500 }, referee_reward: { reward_type: 'fixed_discount', reward_rule: { discount_value: 10 } } },
    });
    const refer = (code: string, email: string) =>
      ok(`mutation ($input: ReferralEventInput!) { record_referral(input: $input) { status } }`, {
        input: { referrer_code: code, referee_email: email },
      });
    const order = (customer_id: string, order_id: string, device_id: string) =>
      ok(`mutation ($input: OrderEventInput!) { record_order(input: $input) { points_awarded } }`, {
        input: { order_id, customer_id, subtotal: 40, device_id },
      });
    people.ada = await newCustomer(test, merchant.id, { customerId: 'ada', email: 'ada.lovelace@example.com' });
    await test.db.customer.update({ where: { merchantId_id: { merchantId: merchant.id, id: people.ada.id } }, data: { firstName: 'Ada' } });
    // a friend whose order shares Ada's device: held with the order
    await order('ada', 'ada-1', 'tablet-7');
    await refer(people.ada.referralCode, 'grace@example.org');
    people.grace = await newCustomer(test, merchant.id, { customerId: 'grace', email: 'grace@example.org' });
    await order('grace', 'grace-1', 'tablet-7');
    // Ada's own mailbox under a plus-tag: held at registration, no order yet
    await refer(people.ada.referralCode, 'ada.lovelace+shop@example.com');
    app = createApp({ db: test.db, config: testConfig() });
    served = await serve(app);
    browser = await launch();
    ({ page, outside, problems } = await openPage(browser, served.url));
    page.setDefaultTimeout(15_000);
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

  const accessible = async (what: string) => expect(await axeViolations(page), what).toEqual([]);
  const shot = (name: string) => page.screenshot({ path: screenshotPath(`admin-referrals-${name}`), fullPage: true });
  const program = async (tab: string) => {
    await page.getByRole('link', { name: 'Program', exact: true }).click();
    await page.getByRole('navigation', { name: 'Program' }).getByRole('link', { name: tab }).click();
  };
  const balanceOf = async (customer: string) =>
    (await ok(`query ($id: ID!) { customer(id: $id) { points_balance } }`, { id: customer })).customer.points_balance as number;

  it('lists the held referrals with their signals', async () => {
    await program('Referrals under review');
    await page.getByRole('heading', { level: 2, name: 'Referrals under review' }).waitFor();
    const grace = page.getByRole('row', { name: /grace@example\.org/ });
    await expect.poll(() => grace.innerText()).toMatch(/Shared address or device: The friend's order grace-1 shares the device/);
    expect(await grace.innerText()).toMatch(/Ada/);
    expect(await grace.innerText()).toMatch(/grace-1/);
    const self = page.getByRole('row', { name: /ada\.lovelace\+shop@example\.com/ });
    expect(await self.innerText()).toMatch(/Similar emails: .*mailbox/);
    expect(await self.innerText()).toMatch(/None yet/);
    await accessible('the held referrals');
    await shot('list');
  });

  it('approves one after a confirmation, twice clicked: the rewards are issued once', async () => {
    await page.getByRole('button', { name: 'Approve the referral of grace@example.org' }).click();
    const dialog = page.getByRole('dialog', { name: 'Approve this referral?' });
    await dialog.getByText('The friend’s reward code and the referrer’s points are issued now').waitFor();
    await accessible('the approval question');
    await shot('approve');
    await dialog.getByRole('button', { name: 'Approve referral' }).dblclick();
    await page.getByText('The referral of grace@example.org is approved').waitFor();
    await expect.poll(() => page.getByRole('row', { name: /grace@example\.org/ }).count()).toBe(0);
    expect(await balanceOf('ada')).toBe(500);
    expect(await test.db.customerReward.count({ where: { merchantId: merchant.id, customerId: people.grace!.id } })).toBe(1);
    const audit = await ok(`{ audit_log(action: "approve_referral") { data { actor } } }`);
    expect(audit.audit_log.data).toEqual([{ actor: expect.stringMatching(/^session:/) }]);
  });

  it('rejects the other after a confirmation: nothing is issued', async () => {
    await page.getByRole('button', { name: 'Reject the referral of ada.lovelace+shop@example.com' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reject this referral?' });
    await dialog.getByRole('button', { name: 'Reject referral' }).click();
    await page.getByText('is rejected: nothing was issued').waitFor();
    await page.getByText('No referral is waiting for review.').waitFor();
    await accessible('no referral left');
    await shot('empty');
    const { referrals } = await ok(`{ referrals(status: rejected) { data { referee_email review } } }`);
    expect(referrals.data).toEqual([{ referee_email: 'ada.lovelace+shop@example.com', review: 'rejected' }]);
    expect(await balanceOf('ada')).toBe(500);
  });

  it('sets the fraud checks in the referral program, saying a bad blocklist line next to its field', async () => {
    await program('Referral program');
    await page.getByRole('heading', { level: 2, name: 'Referral program' }).waitFor();
    await page.getByLabel(/not their first order/).check();
    await page.getByLabel('Similarity').fill('0.9');
    await page.getByLabel('Email domains').fill('mailinator.com\nspam.example');
    await page.getByLabel('Client addresses').fill('203.0.113.0/24\n10.0.0.0/99');
    await page.getByRole('button', { name: 'Save referral program' }).click();
    await expect.poll(() => page.getByLabel('Client addresses').getAttribute('aria-invalid')).toBe('true');
    await page.getByText(`Line 2: ${messages.ipRange}`).waitFor();
    await accessible('the fraud checks with an error');
    await shot('checks-error');
    await page.getByLabel('Client addresses').fill('203.0.113.0/24');
    await page.getByRole('button', { name: 'Save referral program' }).click();
    await page.getByText('Referral program saved.').waitFor();
    const { referral_program } = await ok(
      `{ referral_program { fraud_checks { similar_email { similarity } not_first_order { enabled } blocklist { domains addresses } } } }`,
    );
    expect(referral_program.fraud_checks).toEqual({
      similar_email: { similarity: 0.9 },
      not_first_order: { enabled: true },
      blocklist: { domains: ['mailinator.com', 'spam.example'], addresses: ['203.0.113.0/24'] },
    });
    await shot('checks');
  });

  it('reached nothing outside the service and logged no error but the answers shown (401 before sign-in, the 422 said above)', () => {
    expect(outside).toEqual([]);
    expect(problems.filter((p) => !/Failed to load resource: the server responded with a status of (401|422)\b/.test(p))).toEqual([]);
  });
});
