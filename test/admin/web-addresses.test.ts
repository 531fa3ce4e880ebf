// Every web address the API stores follows one rule (src/domain/shared/urls.ts): an absolute
// address written with https://, a host, no credentials, no whitespace or control character.
// The referral program's share link (with its {referral_code}), a reward's or an earning rule's
// product image and a webhook endpoint are each refused with 422 validation_error naming the
// field when they break it, through the admin API and the import file alike, and nothing is stored.
import { beforeAll, describe, expect, it } from 'vitest';
import { importProgram } from '../../src/domain/program-import/program-import.js';
import { messages } from '../../src/domain/shared/messages.js';
import { adminClient, client, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
let admin: ReturnType<typeof adminClient>;
let api: ReturnType<typeof client>;
let merchantId: string;

beforeAll(async () => {
  app = await testApp();
  const merchant = await newMerchant(app, 'addresses');
  merchantId = merchant.id;
  admin = adminClient(app, merchant.admin_token);
  api = client(app, await newKey(app, merchant.id));
});

/** What every place refuses, with the reason each is told. */
const refusedAddresses: [address: string, reason: string][] = [
  ['javascript:alert(document.cookie)', 'must start with https://'],
  ['JavaScript:alert(1)//https://shop.example.com', 'must start with https://'],
  ['data:text/html,<script>alert(1)</script>', 'must start with https://'],
  ['ftp://shop.example.com/x', 'must start with https://'],
  ['https:shop.example.com/x', 'must start with https://'],
  ['//shop.example.com/x', 'must be an absolute URL'],
  ['shop.example.com/x', 'must be an absolute URL'],
  ['https://', 'must be an absolute URL'],
  ['https://shop example.com/x', 'must not contain spaces or control characters'],
  ['https://shop.example.com/\tx', 'must not contain spaces or control characters'],
  [' https://shop.example.com/x', 'must be an absolute URL'],
  ['https://user:secret@shop.example.com/x', 'must not contain credentials'],
  [`https://shop.example.com/${'a'.repeat(1980)}`, 'must be at most 2000 characters'],
];

/** The same, labelled for the tests' names. */
const refused = refusedAddresses.map(
  ([address, reason]) => [address.length > 60 ? `${address.slice(0, 40)}…` : address, reason, address] as const,
);

const PROGRAM = `mutation ($input: ReferralProgramInput!) { set_referral_program(input: $input) { share_url_template } }`;
const program = (share_url_template: string | null) => ({
  referrer_reward: { points: 100 },
  referee_reward: { reward_type: 'free_shipping' },
  share_url_template,
});

describe("the referral program's share link", () => {
  it.each(refused)('refuses %j: %s', async (_label, reason, address) => {
    const res = await admin(PROGRAM, { input: program(address) });
    expect(res.status).toBe(422);
    expect(res.body.errors![0].extensions.code).toBe('validation_error');
    const [detail] = res.body.errors![0].extensions.details.share_url_template;
    // the admin API answers in the catalogue's words
    expect(detail).toEqual(
      reason.startsWith('must start with') || reason === 'must be an absolute URL' ? messages.url : expect.any(String),
    );
    expect(await app.db.referralProgram.count({ where: { merchantId } })).toBe(0);
  });

  it('takes an https template, {referral_code} anywhere a value may stand, and shows it on REST as stored', async () => {
    for (const template of [
      'https://shop.example.com/?ref={referral_code}',
      'https://shop.example.com/r/{referral_code}',
      'HTTPS://shop.example.com/',
    ]) {
      const res = await admin(PROGRAM, { input: program(template) });
      expect(res.body.data?.set_referral_program, JSON.stringify(res.body.errors)).toEqual({ share_url_template: template });
      expect((await api.rest('GET', '/v1/referrals/program')).body.data.share_url_template).toBe(template);
    }
    // none, or empty, is none
    for (const none of [null, '']) {
      const res = await admin(PROGRAM, { input: program(none) });
      expect(res.body.data.set_referral_program).toEqual({ share_url_template: null });
    }
  });

  it('refuses plain http and javascript: in the import file too', async () => {
    const other = await newMerchant(app, 'import');
    for (const address of ['http://shop.example.com/?ref={referral_code}', 'javascript:alert(1)']) {
      await expect(importProgram(app.db, other.id, { referral_program: program(address) })).rejects.toMatchObject({
        code: 'validation_error',
        details: { 'referral_program.share_url_template': ['must start with https://'] },
      });
    }
    expect(await app.db.referralProgram.count({ where: { merchantId: other.id } })).toBe(0);
  });
});

describe('product images and webhook endpoints, by the same rule', () => {
  const REWARD = `mutation ($input: RewardInput!) { create_reward(input: $input) { product_image_url } }`;
  const reward = (product_image_url: string) => ({
    name: 'Free tote',
    reward_type: 'free_product',
    points_cost: 500,
    reward_rule: { product_id: 'tote' },
    product_image_url,
  });
  const ENDPOINT = `mutation ($url: String!) { create_webhook_endpoint(url: $url) { url } }`;

  it.each(refused)('refuses %j as an image and as an endpoint (%s)', async (_label, _reason, address) => {
    const image = await admin(REWARD, { input: reward(address) });
    expect(image.body.errors![0].extensions.code).toBe('validation_error');
    expect(Object.keys(image.body.errors![0].extensions.details)).toEqual(['product_image_url']);
    const endpoint = await admin(ENDPOINT, { url: address });
    expect(endpoint.body.errors![0].extensions.code).toBe('validation_error');
    // an endpoint's URL is trimmed before it is checked
    if (!address.startsWith(' ')) expect(Object.keys(endpoint.body.errors![0].extensions.details)).toEqual(['url']);
  });

  it('tells why an image may not be plain http', async () => {
    const res = await admin(REWARD, { input: reward('http://cdn.example.com/tote.png') });
    expect(res.body.errors![0].extensions.details.product_image_url).toEqual([
      'Must start with https:// (pages served over HTTPS block images from plain http addresses).',
    ]);
    const ok = await admin(REWARD, { input: reward('https://cdn.example.com/tote.png') });
    expect(ok.body.data.create_reward).toEqual({ product_image_url: 'https://cdn.example.com/tote.png' });
  });
});
