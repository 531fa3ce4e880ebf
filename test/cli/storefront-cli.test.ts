// `loyalty storefront key-create` past a shop's live key limit: the CLI refuses as the admin API
// does, in the same words (the message catalogue's), with the error code and a non-zero exit.
import { beforeAll, describe, expect, it } from 'vitest';
import { adminClient, newMerchant, type TestApp, testApp } from '../harness.js';
import { cliRunner, cliTextRunner } from './run-cli.js';

let app: TestApp;
let merchant: Awaited<ReturnType<typeof newMerchant>>;

beforeAll(async () => {
  app = await testApp();
  merchant = await newMerchant(app, 'cli-keys');
});

describe('loyalty storefront key-create', () => {
  it('creates keys up to the limit of 20, then refuses with the admin API’s code and message', async () => {
    // the CLI on the test's database, as an operator's on the service's
    const env = { ...process.env, ...app.env, LOG_LEVEL: 'silent' };
    const cli = cliRunner(env);
    const admin = adminClient(app, merchant.admin_token);
    for (let i = 0; i < 19; i++) expect((await admin('mutation { create_storefront_key { id } }')).body.errors).toBeUndefined();
    const twentieth = await cli('storefront', 'key-create', '--merchant', merchant.slug);
    expect(twentieth.code).toBe(0);
    expect(twentieth.json.key).toMatch(/^lpk_pub_/);

    const api = (await admin('mutation { create_storefront_key { id } }')).body.errors![0];
    expect(api.extensions.code).toBe('validation_error');
    const refused = await cli('storefront', 'key-create', '--merchant', merchant.slug);
    expect(refused.code).toBe(1);
    expect(refused.json.error).toEqual({ code: 'validation_error', message: api.message, details: api.extensions.details });

    const text = await cliTextRunner(env)('storefront', 'key-create', '--merchant', merchant.slug);
    expect(text.code).toBe(1);
    expect(text.stderr).toContain('validation_error');
    expect(text.stderr).toContain(api.message);
    expect(await app.db.storefrontKey.count({ where: { merchantId: merchant.id } })).toBe(20);
  });
});
