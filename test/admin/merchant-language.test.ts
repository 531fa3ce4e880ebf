// The admin API in a merchant's words: errors in the message catalogue's sentences (codes
// unchanged), products named by their display name, the merchant's locale, and the dashboard's
// custom range beside the previous period.
import { beforeAll, describe, expect, it } from 'vitest';
import { importProgram } from '../../src/domain/program-import/program-import.js';
import { fieldLabel, issueMessage, messages, sentence } from '../../src/domain/shared/messages.js';
import { adminClient, client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
let merchant: Awaited<ReturnType<typeof newMerchant>>;
let admin: ReturnType<typeof adminClient>;

beforeAll(async () => {
  app = await testApp();
  merchant = await newMerchant(app, 'language');
  admin = adminClient(app, merchant.admin_token);
});

const CREATE_REWARD = `mutation ($input: RewardInput!) {
  create_reward(input: $input) { id name product_name product_image_url reward_rule { product_id variant_id } }
}`;

describe('errors in the message catalogue', () => {
  it('answers a zod failure as a sentence per field and a message naming the first field; the code stays', async () => {
    const res = await admin(CREATE_REWARD, {
      input: { name: 'Tote', reward_type: 'fixed_discount', points_cost: 0, reward_rule: { discount_value: 'five' } },
    });
    const error = res.body.errors![0];
    expect(error.extensions.code).toBe('validation_error');
    expect(error.extensions.details).toEqual({
      points_cost: [messages.atLeast(1)],
      'reward_rule.discount_value': [messages.number],
    });
    expect(error.message).toBe(`Points cost: ${messages.atLeast(1)} (and 1 more field)`);
    // no schema jargon anywhere
    expect(JSON.stringify(error)).not.toMatch(/Too small|Invalid input|expected number|received/);
  });

  it('refuses an API key the form could send in the same words: a name too long, a custom key given no scope; no key is made', async () => {
    const CREATE_KEY = `mutation ($type: ApiKeyType!, $name: String, $scopes: [ApiKeyScopeInput!]) {
      create_api_key(type: $type, name: $name, scopes: $scopes) { id }
    }`;
    const before = await app.db.apiKey.count({ where: { merchantId: merchant.id } });
    const long = (await admin(CREATE_KEY, { type: 'full', name: 'k'.repeat(201) })).body.errors![0];
    expect(long.extensions).toMatchObject({ code: 'validation_error', details: { name: [messages.maxLength(200)] } });
    const none = (await admin(CREATE_KEY, { type: 'custom', name: 'Nothing', scopes: [{ scope: 'rewards', access: 'none' }] })).body
      .errors![0];
    expect(none.extensions).toMatchObject({ code: 'validation_error', details: { scopes: [messages.noScope] } });
    expect(none.message).toBe(`Scopes: ${messages.noScope}`);
    expect(await app.db.apiKey.count({ where: { merchantId: merchant.id } })).toBe(before);
  });

  it('says what GraphQL itself refuses (a variable of the wrong type) in the same words', async () => {
    const res = await admin(CREATE_REWARD, { input: { name: 'Tote', reward_type: 'fixed_discount', points_cost: 1.5 } });
    expect(res.body.errors![0].extensions).toMatchObject({ code: 'validation_error', details: { input: [messages.wholeNumber] } });
  });

  it('keeps the public API codes and its own messages where the spec fixes them', async () => {
    const key = await newKey(app, merchant.id, 'read_only');
    await newCustomer(app, merchant.id, { customerId: 'c-1' });
    const res = await client(app, key).rest('POST', '/v1/customers/transactions?customer_id=c-1', { points: 5, description: 'x' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
    expect(res.body.error.message).toMatch(/write:transactions/);
  });

  it('maps every zod issue kind to a sentence saying what to enter', () => {
    expect(issueMessage({ code: 'invalid_type', expected: 'number', input: undefined })).toBe(messages.required);
    expect(issueMessage({ code: 'invalid_type', expected: 'int', input: 1.5 })).toBe(messages.wholeNumber);
    expect(issueMessage({ code: 'too_big', origin: 'number', maximum: 5000, inclusive: true })).toBe(
      'This is too high: enter 5,000 or less.',
    );
    expect(issueMessage({ code: 'too_big', origin: 'string', maximum: 200 })).toBe(messages.maxLength(200));
    expect(issueMessage({ code: 'invalid_value', values: ['day', 'week'] })).toBe('This is not one of the choices: choose day, week.');
    expect(issueMessage({ code: 'invalid_format', format: 'url' })).toBe(messages.url);
    expect(sentence('must be the shop currency EUR')).toBe('Must be the shop currency EUR.');
    expect(sentence(messages.required)).toBe(messages.required);
    expect(fieldLabel('reward_rule.expires_after_days')).toBe('Code valid for (days)');
  });
});

describe('product display names', () => {
  it('a reward and an earning rule carry the product name and image given on create, update and import', async () => {
    const created = await admin(CREATE_REWARD, {
      input: {
        name: 'Free tote',
        reward_type: 'free_product',
        points_cost: 500,
        reward_rule: { product_id: 'prod-canvas-tote', variant_id: 'var-natural' },
        product_name: 'Canvas tote (natural)',
        product_image_url: 'https://cdn.example.com/tote.png',
      },
    });
    expect(created.body.data.create_reward).toMatchObject({
      product_name: 'Canvas tote (natural)',
      product_image_url: 'https://cdn.example.com/tote.png',
    });
    const id = created.body.data.create_reward.id;
    const updated = await admin(
      `mutation ($id: ID!) { update_reward(id: $id, input: { product_name: "Canvas tote" }) { product_name product_image_url } }`,
      { id },
    );
    expect(updated.body.data.update_reward).toEqual({ product_name: 'Canvas tote', product_image_url: 'https://cdn.example.com/tote.png' });

    const badImage = await admin(CREATE_REWARD, {
      input: {
        name: 'x',
        reward_type: 'free_product',
        points_cost: 1,
        reward_rule: { product_id: 'p' },
        product_image_url: 'javascript:alert(1)',
      },
    });
    expect(badImage.body.errors![0].extensions.details).toEqual({ product_image_url: [messages.url] });

    const rule = await admin(
      `mutation ($input: EarningRuleInput!) { create_earning_rule(input: $input) { product_name product_image_url } }`,
      {
        input: {
          name: 'Tote bonus',
          campaign_type: 'purchase',
          earning_rule: { type: 'fixed', value: 50 },
          conditions: { product_ids: ['prod-canvas-tote'] },
          product_name: 'Canvas tote',
        },
      },
    );
    expect(rule.body.data.create_earning_rule).toEqual({ product_name: 'Canvas tote', product_image_url: null });

    const other = await newMerchant(app, 'import');
    await importProgram(app.db, other.id, {
      rewards: [
        { name: 'Mug', reward_type: 'free_product', points_cost: 300, reward_rule: { product_id: 'prod-mug' }, product_name: 'Enamel mug' },
      ],
    });
    const imported = await adminClient(app, other.admin_token)('{ rewards { data { name product_name reward_rule { product_id } } } }');
    expect(imported.body.data.rewards.data).toEqual([{ name: 'Mug', product_name: 'Enamel mug', reward_rule: { product_id: 'prod-mug' } }]);
  });
});

describe('product images', () => {
  const freeTote = (product_image_url: string) => ({
    name: 'Free tote',
    reward_type: 'free_product',
    points_cost: 500,
    reward_rule: { product_id: 'prod-canvas-tote' },
    product_image_url,
  });

  it('refuses an image over plain http (HTTPS storefronts block it as mixed content), saying https is required', async () => {
    for (const url of ['http://cdn.example.com/tote.png', 'http://localhost:3000/tote.png', 'HTTP://cdn.example.com/tote.png']) {
      const res = await admin(CREATE_REWARD, { input: freeTote(url) });
      expect(res.body.errors![0].extensions.code).toBe('validation_error');
      const [detail] = res.body.errors![0].extensions.details.product_image_url;
      expect(detail).toMatch(/^Must start with https:\/\//);
    }
    const rule = await admin(`mutation ($input: EarningRuleInput!) { create_earning_rule(input: $input) { id } }`, {
      input: {
        name: 'Tote bonus',
        campaign_type: 'purchase',
        earning_rule: { type: 'fixed', value: 50 },
        product_image_url: 'http://cdn.example.com/tote.png',
      },
    });
    expect(rule.body.errors![0].extensions.details.product_image_url[0]).toMatch(/^Must start with https:\/\//);
    // what is no web address at all is still told so
    const bad = await admin(CREATE_REWARD, { input: freeTote('tote.png') });
    expect(bad.body.errors![0].extensions.details).toEqual({ product_image_url: [messages.url] });
  });

  it('still reads a reward stored with an http image; a change to it must give it an https one', async () => {
    const created = await admin(CREATE_REWARD, { input: freeTote('https://cdn.example.com/tote.png') });
    const { id } = created.body.data.create_reward;
    await app.db.reward.updateMany({ where: { id }, data: { productImageUrl: 'http://cdn.example.com/old.png' } });
    const read = await admin('{ rewards(per_page: 100) { data { id product_image_url } } }');
    expect(read.body.data.rewards.data).toContainEqual({ id, product_image_url: 'http://cdn.example.com/old.png' });
    // a record is validated whole on a change, so the change must give it an https image too
    const renamed = await admin(`mutation ($id: ID!) { update_reward(id: $id, input: { name: "Tote" }) { name } }`, { id });
    expect(renamed.body.errors![0].extensions.details.product_image_url[0]).toMatch(/^Must start with https:\/\//);
    const fixed = await admin(
      `mutation ($id: ID!) { update_reward(id: $id, input: { product_image_url: "https://cdn.example.com/new.png" }) { product_image_url } }`,
      { id },
    );
    expect(fixed.body.data.update_reward.product_image_url).toBe('https://cdn.example.com/new.png');
  });
});

describe('the merchant locale', () => {
  it('defaults to en-US, takes a language tag in its canonical spelling, and refuses anything else with the catalogue sentence', async () => {
    expect((await admin('{ merchant { locale } }')).body.data.merchant.locale).toBe('en-US');
    const set = await admin('mutation { update_merchant_settings(locale: "de-de") { locale } }');
    expect(set.body.data.update_merchant_settings.locale).toBe('de-DE');
    const bad = await admin('mutation { update_merchant_settings(locale: "not a locale!") { locale } }');
    expect(bad.body.errors![0].extensions).toMatchObject({ code: 'validation_error', details: { locale: [messages.locale] } });
    expect((await admin('{ merchant { locale } }')).body.data.merchant.locale).toBe('de-DE');
    await admin('mutation { update_merchant_settings(locale: "en-US") { locale } }');
  });
});

describe('the dashboard beside the previous period', () => {
  const QUERY = `query ($range: DashboardRange, $from: Date, $to: Date) {
    dashboard(range: $range, from_date: $from, to_date: $to) {
      range bucket from to points_issued points_redeemed active_members redemptions series { period_start issued }
      previous { from to points_issued points_redeemed points_expired redemption_rate active_members redemptions series { issued } }
    }
  }`;

  it('gives every figure for the same number of days just before, and a custom range of local days', async () => {
    const shop = await newMerchant(app, 'dash');
    const shopAdmin = adminClient(app, shop.admin_token);
    const key = await newKey(app, shop.id);
    await newCustomer(app, shop.id, { customerId: 'd-1' });
    await newCustomer(app, shop.id, { customerId: 'd-2' });
    const credit = (customer: string, points: number) =>
      client(app, key).rest('POST', `/v1/customers/transactions?customer_id=${customer}`, { points, description: 'test' });
    expect((await credit('d-1', 100)).status).toBeLessThan(300);
    expect((await credit('d-2', 40)).status).toBeLessThan(300);
    expect((await credit('d-1', 7)).status).toBeLessThan(300);
    // move one credit ten days back: it falls in the previous 7 days, not in the last 7
    await app.db.$executeRawUnsafe(
      `UPDATE points_transactions SET created_at = $2::timestamptz WHERE merchant_id = $1::uuid AND points = 7`,
      shop.id,
      new Date(Date.now() - 10 * 86_400_000),
    );
    const week = (await shopAdmin(QUERY, { range: 'last_7_days' })).body.data.dashboard;
    expect(week).toMatchObject({ points_issued: 140, active_members: 2, redemptions: 0 });
    expect(week.previous).toMatchObject({ points_issued: 7, active_members: 1, redemptions: 0, points_redeemed: 0 });
    expect(Date.parse(week.previous.from)).toBe(Date.parse(week.from) - 7 * 86_400_000);

    const today = new Date().toISOString().slice(0, 10);
    const fortnightAgo = new Date(Date.now() - 13 * 86_400_000).toISOString().slice(0, 10);
    const custom = (await shopAdmin(QUERY, { range: 'custom', from: fortnightAgo, to: today })).body.data.dashboard;
    expect(custom).toMatchObject({ range: 'custom', bucket: 'day', points_issued: 147, active_members: 2 });
    expect(custom.series).toHaveLength(14);
    expect(custom.previous.points_issued).toBe(0);

    const missing = await shopAdmin(QUERY, { range: 'custom', from: today });
    expect(missing.body.errors![0].extensions).toMatchObject({ code: 'validation_error', details: { to_date: [messages.required] } });
    const backwards = await shopAdmin(QUERY, { range: 'custom', from: today, to: fortnightAgo });
    expect(backwards.body.errors![0].extensions.details).toEqual({ to_date: [messages.after('From')] });
  });
});
