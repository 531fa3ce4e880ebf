// The merchant admin API (/admin/graphql): admin-token auth, configuring the program and
// reading it back through the public REST API, API keys, and engine events.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { rotateAdminToken } from '../../src/domain/merchants/merchants.js';
import { messages } from '../../src/domain/shared/messages.js';
import { adminClient, client, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
let merchant: Awaited<ReturnType<typeof newMerchant>>;
let admin: ReturnType<typeof adminClient>;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  app = await testApp();
  merchant = await newMerchant(app, 'admin');
  admin = adminClient(app, merchant.admin_token);
  api = client(app, await newKey(app, merchant.id));
});

/** Runs an admin operation that must succeed and returns its data. */
async function ok(query: string, variables?: Record<string, unknown>) {
  const res = await admin(query, variables);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  expect(res.status).toBe(200);
  return res.body.data;
}

/** Runs an admin operation that must fail and returns its first error. */
async function fails(query: string, variables?: Record<string, unknown>) {
  const res = await admin(query, variables);
  expect(res.body.errors?.length, JSON.stringify(res.body)).toBeGreaterThan(0);
  return { status: res.status, error: res.body.errors![0], data: res.body.data };
}

// the rules are typed as in the public schema (inputs take them as JSON)
const REWARD_RULE = '{ points_required discount_value min_order_subtotal credit_value }';
const CREATE_REWARD = `mutation ($input: RewardInput!) {
  create_reward(input: $input) { id name description reward_type points_cost reward_rule ${REWARD_RULE} is_active created_at updated_at } }`;
const UPDATE_REWARD = `mutation ($id: ID!, $input: RewardPatch!) {
  update_reward(id: $id, input: $input) { id name points_cost reward_type reward_rule ${REWARD_RULE} is_active } }`;
const CREATE_RULE = `mutation ($input: EarningRuleInput!) {
  create_earning_rule(input: $input) {
    id name campaign_type earning_rule { type value per_amount } conditions { min_order_subtotal limit { count period } } is_active } }`;

const tenOff = (over: Record<string, unknown> = {}) => ({
  name: '$10 off',
  reward_type: 'fixed_discount',
  points_cost: 500,
  reward_rule: { discount_value: 10, min_order_subtotal: 50 },
  ...over,
});

describe('authentication', () => {
  const query = '{ merchant { id slug } }';

  it('answers the merchant for its admin token', async () => {
    const data = await ok(query);
    expect(data.merchant).toEqual({ id: merchant.id, slug: merchant.slug });
  });

  it.each([
    ['no Authorization header', undefined],
    ['a malformed token', 'Bearer nope'],
    ['a rotated (no longer valid) admin token', 'wrong'],
    ['a public API key', 'public'],
  ])('refuses %s with 401 invalid_token', async (_label, kind) => {
    let authorization: string | undefined = kind;
    if (kind === 'public') authorization = `Bearer ${await newKey(app, merchant.id)}`;
    if (kind === 'wrong') {
      // a real admin token, rotated since: the old one is refused
      const other = await newMerchant(app, 'rotated');
      await rotateAdminToken(app.db, other.slug);
      authorization = `Bearer ${other.admin_token}`;
    }
    const res = await app.fetch('/admin/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
      body: JSON.stringify({ query }),
    });
    expect(res.status).toBe(401);
    const body = await res.json();
    expect(body.data).toBeUndefined();
    expect(body.errors[0].extensions.code).toBe('invalid_token');
  });

  it('is refused by the public API (an admin token is not an API key)', async () => {
    const res = await client(app, merchant.admin_token).rest('GET', '/v1/rewards');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_token');
  });

  it("treats another merchant's records as not found", async () => {
    const other = await newMerchant(app, 'other');
    const otherAdmin = adminClient(app, other.admin_token);
    const created = await otherAdmin(CREATE_REWARD, { input: tenOff({ name: 'Theirs' }) });
    const theirId = created.body.data.create_reward.id;
    const update = await fails(UPDATE_REWARD, { id: theirId, input: { name: 'Mine now' } });
    expect(update.error.extensions.code).toBe('not_found');
    const deactivate = await fails('mutation ($id: ID!) { deactivate_reward(id: $id) { id } }', { id: theirId });
    expect(deactivate.error.extensions.code).toBe('not_found');
    const list = await ok('{ rewards(per_page: 100) { data { id } } }');
    expect(list.rewards.data.map((r: { id: string }) => r.id)).not.toContain(theirId);
    // and their record is untouched
    const theirs = await app.db.reward.findFirstOrThrow({ where: { id: theirId } });
    expect(theirs).toMatchObject({ name: 'Theirs', isActive: true });
    const notUuid = await fails(UPDATE_REWARD, { id: 'not-a-uuid', input: { name: 'x' } });
    expect(notUuid.error.extensions.code).toBe('not_found');
  });
});

describe('configuring the program', () => {
  it('creates a reward that the public REST API then lists with its rule', async () => {
    const { create_reward: reward } = await ok(CREATE_REWARD, { input: tenOff({ description: 'On any order' }) });
    expect(reward).toMatchObject({
      name: '$10 off',
      description: 'On any order',
      reward_type: 'fixed_discount',
      points_cost: 500,
      is_active: true,
      reward_rule: { points_required: 500, discount_value: 10, min_order_subtotal: 50 },
    });
    const res = await api.rest('GET', '/v1/rewards?per_page=100');
    expect(res.status).toBe(200);
    const listed = res.body.data.find((r: { id: string }) => r.id === reward.id);
    expect(listed).toMatchObject({
      name: '$10 off',
      reward_type: 'fixed_discount',
      points_cost: 500,
      is_active: true,
      reward_rule: { points_required: 500, discount_value: 10, min_order_subtotal: 50 },
    });
  });

  it('creates earning rules that GET /v1/earning-rules shows with their conditions', async () => {
    const { create_earning_rule: rule } = await ok(CREATE_RULE, {
      input: {
        name: '1 point per $1',
        campaign_type: 'purchase',
        earning_rule: { type: 'variable', value: 1, per_amount: 1 },
        conditions: { min_order_subtotal: 20, limit: { count: 3, period: 'day' } },
      },
    });
    expect(rule).toMatchObject({
      is_active: true,
      earning_rule: { type: 'variable', value: 1, per_amount: 1 },
      conditions: { min_order_subtotal: 20, limit: { count: 3, period: 'day' } },
    });
    const res = await api.rest('GET', '/v1/earning-rules?campaign_type=purchase&per_page=100');
    const listed = res.body.data.find((r: { id: string }) => r.id === rule.id);
    expect(listed).toMatchObject({
      name: '1 point per $1',
      campaign_type: 'purchase',
      earning_rule: { type: 'variable', value: 1, per_amount: 1 },
      conditions: { min_order_subtotal: 20, limit: { count: 3, period: 'day' } },
      is_active: true,
    });
  });

  it('rejects invalid input with validation_error and details per field', async () => {
    const bad = await fails(CREATE_REWARD, {
      input: tenOff({ points_cost: 0, reward_rule: { discount_value: -5, bogus: true } }),
    });
    expect(bad.error.extensions.code).toBe('validation_error');
    expect(Object.keys(bad.error.extensions.details)).toEqual(expect.arrayContaining(['points_cost', 'reward_rule.discount_value']));
    const percent = await fails(CREATE_REWARD, {
      input: tenOff({ reward_type: 'percentage_discount', reward_rule: { discount_value: 150 } }),
    });
    expect(percent.error.extensions.details['reward_rule.discount_value']).toBeDefined();
    const rule = await fails(CREATE_RULE, {
      input: { name: ' ', campaign_type: 'signup', earning_rule: { type: 'variable', value: 1 } },
    });
    expect(rule.error.extensions.code).toBe('validation_error');
    expect(Object.keys(rule.error.extensions.details)).toEqual(expect.arrayContaining(['name']));
    expect(Object.keys(rule.error.extensions.details).some((k) => k.startsWith('earning_rule'))).toBe(true);
  });

  it('updates with a partial input, validated against the whole record', async () => {
    const { create_reward: reward } = await ok(CREATE_REWARD, { input: tenOff({ name: 'Patch me' }) });
    const { update_reward: updated } = await ok(UPDATE_REWARD, { id: reward.id, input: { points_cost: 750 } });
    expect(updated).toMatchObject({
      name: 'Patch me',
      points_cost: 750,
      is_active: true,
      reward_rule: { points_required: 750, discount_value: 10, min_order_subtotal: 50 },
    });
    // a new type needs a rule of that type: the stored rule does not fit store_credit
    const wrongType = await fails(UPDATE_REWARD, { id: reward.id, input: { reward_type: 'store_credit' } });
    expect(wrongType.error.extensions.code).toBe('validation_error');
    expect(Object.keys(wrongType.error.extensions.details).some((k) => k.startsWith('reward_rule'))).toBe(true);
    const blank = await fails(UPDATE_REWARD, { id: reward.id, input: { name: '' } });
    expect(blank.error.extensions.details.name).toBeDefined();
    const stored = await app.db.reward.findFirstOrThrow({ where: { id: reward.id } });
    expect(stored).toMatchObject({ name: 'Patch me', pointsCost: 750, rewardType: 'fixed_discount' });
    const { update_reward: retyped } = await ok(UPDATE_REWARD, {
      id: reward.id,
      input: { reward_type: 'store_credit', reward_rule: { credit_value: 15 } },
    });
    expect(retyped).toMatchObject({ reward_type: 'store_credit', reward_rule: { points_required: 750, credit_value: 15 } });
  });

  it('deactivating hides a reward and an earning rule from the public lists; activating shows them again', async () => {
    const { create_reward: reward } = await ok(CREATE_REWARD, { input: tenOff({ name: 'Seasonal' }) });
    const { create_earning_rule: rule } = await ok(CREATE_RULE, {
      input: { name: 'Review bonus', campaign_type: 'review', earning_rule: { type: 'fixed', value: 25 } },
    });
    const publicRewardIds = async () => (await api.rest('GET', '/v1/rewards?per_page=100')).body.data.map((r: { id: string }) => r.id);
    const publicRuleIds = async () => (await api.rest('GET', '/v1/earning-rules?per_page=100')).body.data.map((r: { id: string }) => r.id);
    expect(await publicRewardIds()).toContain(reward.id);
    expect(await publicRuleIds()).toContain(rule.id);

    const off = await ok(
      `mutation ($r: ID!, $e: ID!) {
      deactivate_reward(id: $r) { is_active } deactivate_earning_rule(id: $e) { is_active } }`,
      { r: reward.id, e: rule.id },
    );
    expect(off).toEqual({ deactivate_reward: { is_active: false }, deactivate_earning_rule: { is_active: false } });
    expect(await publicRewardIds()).not.toContain(reward.id);
    expect(await publicRuleIds()).not.toContain(rule.id);
    expect((await api.rest('GET', `/v1/rewards/${reward.id}`)).status).toBe(404);
    // the admin still lists it, as inactive
    const inactive = await ok('{ rewards(is_active: false, per_page: 100) { data { id is_active } } }');
    expect(inactive.rewards.data).toContainEqual({ id: reward.id, is_active: false });

    await ok(`mutation ($r: ID!, $e: ID!) { activate_reward(id: $r) { id } activate_earning_rule(id: $e) { id } }`, {
      r: reward.id,
      e: rule.id,
    });
    expect(await publicRewardIds()).toContain(reward.id);
    expect(await publicRuleIds()).toContain(rule.id);
  });

  it('creates and updates tiers; GET /v1/tiers shows them by position; a taken position is a conflict', async () => {
    const CREATE_TIER = `mutation ($input: TierInput!) { create_tier(input: $input) { id name position threshold earn_multiplier benefits is_default } }`;
    const { create_tier: bronze } = await ok(CREATE_TIER, { input: { name: 'Bronze', position: 0, threshold: 0, is_default: true } });
    const { create_tier: gold } = await ok(CREATE_TIER, {
      input: { name: 'Gold', position: 2, threshold: 1000, earn_multiplier: 1.5, benefits: ['Free shipping'] },
    });
    expect(gold).toMatchObject({ earn_multiplier: 1.5, benefits: ['Free shipping'], is_default: false });
    const taken = await fails(CREATE_TIER, { input: { name: 'Silver', position: 2, threshold: 500 } });
    expect(taken.error.extensions.code).toBe('conflict');
    const negative = await fails(CREATE_TIER, { input: { name: 'Silver', position: 1, threshold: -1 } });
    expect(negative.error.extensions.details.threshold).toBeDefined();
    await ok(CREATE_TIER, { input: { name: 'Silver', position: 1, threshold: 500 } });
    const { update_tier: moved } = await ok(
      'mutation ($id: ID!, $input: TierPatch!) { update_tier(id: $id, input: $input) { name threshold earn_multiplier } }',
      { id: gold.id, input: { threshold: 2000 } },
    );
    expect(moved).toEqual({ name: 'Gold', threshold: 2000, earn_multiplier: 1.5 });

    const res = await api.rest('GET', '/v1/tiers');
    expect(res.status).toBe(200);
    expect(res.body.data.map((t: { name: string; threshold: number }) => [t.name, t.threshold])).toEqual([
      ['Bronze', 0],
      ['Silver', 500],
      ['Gold', 2000],
    ]);
    // one default per merchant: a new default replaces the old one
    await ok(CREATE_TIER, { input: { name: 'Starter', position: 5, threshold: 0, is_default: true } });
    const defaults = await app.db.tier.findMany({ where: { merchantId: merchant.id, isDefault: true } });
    expect(defaults.map((t) => t.name)).toEqual(['Starter']);
    expect(bronze.is_default).toBe(true);
  });

  it('creates booster campaigns; deactivating one removes it from GET /v1/booster-campaigns', async () => {
    const CREATE = `mutation ($input: BoosterCampaignInput!) { create_booster_campaign(input: $input) { id multiplier campaign_types starts_at ends_at is_active } }`;
    const startsAt = new Date(Date.now() - 3_600_000).toISOString();
    const { create_booster_campaign: booster } = await ok(CREATE, {
      input: { name: 'Double points', multiplier: 2, campaign_types: ['purchase'], starts_at: startsAt },
    });
    expect(booster).toMatchObject({ multiplier: 2, campaign_types: ['purchase'], starts_at: startsAt, ends_at: null });
    const ids = async () => (await api.rest('GET', '/v1/booster-campaigns?per_page=100')).body.data.map((b: { id: string }) => b.id);
    expect(await ids()).toContain(booster.id);
    const badEnd = await fails(
      'mutation ($id: ID!, $input: BoosterCampaignPatch!) { update_booster_campaign(id: $id, input: $input) { id } }',
      { id: booster.id, input: { ends_at: new Date(Date.now() - 7_200_000).toISOString() } },
    );
    // the admin API answers in the message catalogue's words; the code stays
    expect(badEnd.error.extensions.code).toBe('validation_error');
    expect(badEnd.error.extensions.details.ends_at).toEqual([messages.after('Starts')]);
    expect(badEnd.error.message).toBe(`Ends: ${messages.after('Starts')}`);
    await ok('mutation ($id: ID!) { deactivate_booster_campaign(id: $id) { id } }', { id: booster.id });
    expect(await ids()).not.toContain(booster.id);
    await ok('mutation ($id: ID!) { activate_booster_campaign(id: $id) { id } }', { id: booster.id });
    expect(await ids()).toContain(booster.id);
  });

  it('sets and replaces the referral program, as GET /v1/referrals/program shows it', async () => {
    const SET = `mutation ($input: ReferralProgramInput!) {
      set_referral_program(input: $input) {
        is_active referrer_reward { points } referee_reward { reward_type reward_rule { points_required discount_value } } min_order_subtotal } }`;
    const first = await ok(SET, {
      input: {
        referrer_reward: { points: 500 },
        referee_reward: { reward_type: 'fixed_discount', reward_rule: { discount_value: 5 } },
        min_order_subtotal: 25,
      },
    });
    expect(first.set_referral_program).toEqual({
      is_active: true,
      referrer_reward: { points: 500 },
      // the referee's reward is given, not bought: it costs no points
      referee_reward: { reward_type: 'fixed_discount', reward_rule: { points_required: 0, discount_value: 5 } },
      min_order_subtotal: 25,
    });
    await ok(SET, {
      input: { referrer_reward: { points: 800 }, referee_reward: { reward_type: 'free_shipping' } },
    });
    const res = await api.rest('GET', '/v1/referrals/program');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ is_active: true, referrer_reward: { points: 800 }, min_order_subtotal: null });
    expect(res.body.data.referee_reward.reward_type).toBe('free_shipping');
    const bad = await fails(SET, {
      input: { referrer_reward: { points: -1 }, referee_reward: { reward_type: 'store_credit', reward_rule: {} } },
    });
    expect(Object.keys(bad.error.extensions.details)).toEqual(
      expect.arrayContaining(['referrer_reward.points', 'referee_reward.reward_rule.credit_value']),
    );
    expect(await app.db.referralProgram.count({ where: { merchantId: merchant.id } })).toBe(1);
  });

  it('updates the merchant settings', async () => {
    const UPDATE = `mutation ($days: Int, $currency: String) {
      update_merchant_settings(points_expiry_days: $days, currency: $currency) { currency points_expiry_days name } }`;
    const { update_merchant_settings: set } = await ok(UPDATE, { days: 365, currency: 'EUR' });
    expect(set).toEqual({ currency: 'EUR', points_expiry_days: 365, name: 'admin' });
    const bad = await fails(UPDATE, { days: 0, currency: 'euro' });
    expect(Object.keys(bad.error.extensions.details).sort()).toEqual(['currency', 'points_expiry_days']);
    // only the given settings change; an explicit null turns expiry off
    const { update_merchant_settings: off } = await ok(
      'mutation { update_merchant_settings(points_expiry_days: null) { currency points_expiry_days } }',
    );
    expect(off).toEqual({ currency: 'EUR', points_expiry_days: null });
    await ok('mutation { update_merchant_settings(currency: "USD") { currency } }');
  });

  it('refuses NUL characters and uncoercible variables with validation_error, never a 500', async () => {
    const nul = await fails(CREATE_REWARD, { input: tenOff({ name: 'a\u0000b' }) });
    expect(nul.error.extensions.code).toBe('validation_error');
    expect(nul.error.extensions.details['input.name']).toBeDefined();
    const coercion = await fails(CREATE_REWARD, { input: tenOff({ points_cost: 1.5 }) });
    expect(coercion.error.extensions.code).toBe('validation_error');
    expect(coercion.error.extensions.details.input).toBeDefined();
  });
});

describe('customers', () => {
  const CREATE = `mutation ($input: CustomerInput!) {
    create_customer(input: $input) { id customer_id email first_name status referral_code birthday points_balance tier { name } } }`;
  const UPDATE = `mutation ($id: ID!, $input: CustomerPatch!) { update_customer(id: $id, input: $input) { id email first_name last_name referral_code } }`;

  it('creates a customer with a generated referral code, readable through GET /v1/customers/{id}', async () => {
    const platformId = `c-${randomUUID().slice(0, 8)}`;
    const { create_customer: customer } = await ok(CREATE, {
      input: { customer_id: platformId, email: `${platformId}@example.com`, first_name: 'Ada', birthday: '1990-05-17' },
    });
    expect(customer).toMatchObject({ customer_id: platformId, status: 'member', birthday: '1990-05-17', points_balance: 0 });
    expect(customer.referral_code).toMatch(/^[A-Z0-9]{8}$/);
    const res = await api.rest('GET', `/v1/customers/${platformId}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: customer.id, first_name: 'Ada', referral_code: customer.referral_code });
  });

  it('refuses a taken customer_id, email (any case) or referral code with 409 conflict', async () => {
    const platformId = `c-${randomUUID().slice(0, 8)}`;
    const email = `${platformId}@example.com`;
    await ok(CREATE, { input: { customer_id: platformId, email, referral_code: `R${platformId.slice(2).toUpperCase()}` } });
    for (const input of [
      { customer_id: platformId, email: `other-${email}` },
      { customer_id: `${platformId}-2`, email: email.toUpperCase() },
      { customer_id: `${platformId}-3`, email: `3-${email}`, referral_code: `R${platformId.slice(2).toUpperCase()}` },
    ]) {
      const res = await fails(CREATE, { input });
      expect(res.error.extensions.code).toBe('conflict');
    }
    const invalid = await fails(CREATE, { input: { customer_id: '', email: 'not-an-email', referral_code: 'ab' } });
    expect(Object.keys(invalid.error.extensions.details).sort()).toEqual(['customer_id', 'email', 'referral_code']);
  });

  it("updates a customer by internal or platform id; another merchant's customer is not found", async () => {
    const platformId = `c-${randomUUID().slice(0, 8)}`;
    const { create_customer: customer } = await ok(CREATE, {
      input: { customer_id: platformId, email: `${platformId}@example.com`, first_name: 'Old' },
    });
    const { update_customer: byUuid } = await ok(UPDATE, { id: customer.id, input: { first_name: 'New', last_name: 'Name' } });
    expect(byUuid).toMatchObject({ first_name: 'New', last_name: 'Name', email: `${platformId}@example.com` });
    const { update_customer: byPlatform } = await ok(UPDATE, { id: platformId, input: { last_name: null } });
    expect(byPlatform).toMatchObject({ first_name: 'New', last_name: null, referral_code: customer.referral_code });
    const lookup = await ok('query ($e: String) { customers(email: $e) { data { id } meta { pagination { total } } } }', {
      e: `${platformId}@EXAMPLE.com`,
    });
    expect(lookup.customers.data).toEqual([{ id: customer.id }]);

    const other = await newMerchant(app, 'other-customers');
    const foreign = await adminClient(app, other.admin_token)(UPDATE, { id: customer.id, input: { first_name: 'Hijack' } });
    expect(foreign.body.errors?.[0].extensions.code).toBe('not_found');
    const foreignRead = await adminClient(app, other.admin_token)('query ($id: ID!) { customer(id: $id) { id } }', { id: platformId });
    expect(foreignRead.body.errors?.[0].extensions.code).toBe('not_found');
  });
});

describe('API keys (spec section 5)', () => {
  const CREATE = `mutation ($type: ApiKeyType!, $name: String, $scopes: [ApiKeyScopeInput!]) {
    create_api_key(type: $type, name: $name, scopes: $scopes) { key id name prefix type grants scopes { scope access } created_at } }`;
  const LIST = '{ api_keys { id name prefix type grants created_at last_used_at revoked_at } }';

  it('creates a read-only key that reads but cannot write', async () => {
    const { create_api_key: created } = await ok(CREATE, { type: 'read_only', name: 'Storefront' });
    expect(created.key.startsWith(created.prefix)).toBe(true);
    expect(created.grants).toContain('read:rewards');
    expect(created.grants.some((g: string) => g.startsWith('write:'))).toBe(false);
    expect(created.scopes).toContainEqual({ scope: 'orders', access: 'none' });
    const key = client(app, created.key);
    const listed = async () => (await ok(LIST)).api_keys.find((k: { id: string }) => k.id === created.id);
    expect((await listed()).last_used_at).toBeNull();
    expect((await key.rest('GET', '/v1/rewards')).status).toBe(200);
    const write = await key.rest('POST', '/v1/customers/transactions?customer_id=x', { points: 1, description: 'x' });
    expect(write.status).toBe(403);
    // its use is recorded, after the answer (at most once a minute per key)
    await expect.poll(async () => (await listed()).last_used_at).not.toBeNull();
    expect(Date.parse((await listed()).last_used_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('creates a custom key whose scopes are exactly the ones chosen', async () => {
    const { create_api_key: created } = await ok(CREATE, {
      type: 'custom',
      name: 'Catalogue only',
      scopes: [
        { scope: 'rewards', access: 'read' },
        { scope: 'customers', access: 'none' },
      ],
    });
    expect(created).toMatchObject({ type: 'custom', name: 'Catalogue only', grants: ['read:rewards'] });
    expect(created.scopes).toContainEqual({ scope: 'rewards', access: 'read' });
    expect(created.scopes).toContainEqual({ scope: 'customers', access: 'none' });
    const key = client(app, created.key);
    expect((await key.rest('GET', '/v1/rewards')).status).toBe(200);
    const denied = await key.rest('GET', '/v1/earning-rules');
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('insufficient_scope');
  });

  it('refuses levels a scope does not have, an empty custom key and scopes on a full key', async () => {
    const writeActivities = await fails(CREATE, { type: 'custom', scopes: [{ scope: 'activities', access: 'write' }] });
    expect(writeActivities.error.extensions.code).toBe('validation_error');
    expect(writeActivities.error.extensions.details.scopes).toBeDefined();
    const empty = await fails(CREATE, { type: 'custom', scopes: [{ scope: 'rewards', access: 'none' }] });
    expect(empty.error.extensions.details.scopes).toBeDefined();
    const full = await fails(CREATE, { type: 'full', scopes: [{ scope: 'rewards', access: 'read' }] });
    expect(full.error.extensions.details.scopes).toBeDefined();
  });

  it('lists keys without the secret, and a revoked key gets 401 on its next request', async () => {
    const { create_api_key: created } = await ok(CREATE, { type: 'full', name: 'To revoke' });
    const key = client(app, created.key);
    expect((await key.rest('GET', '/v1/rewards')).status).toBe(200);

    const res = await admin(LIST);
    const listed = res.body.data.api_keys.find((k: { id: string }) => k.id === created.id);
    expect(listed).toMatchObject({ name: 'To revoke', prefix: created.prefix, type: 'full', revoked_at: null });
    expect(JSON.stringify(res.body)).not.toContain(created.key);
    const keys = await app.db.apiKey.findMany({ where: { merchantId: merchant.id } });
    for (const k of keys) expect(JSON.stringify(res.body)).not.toContain(k.hash);

    const { revoke_api_key: revoked } = await ok('mutation ($id: ID!) { revoke_api_key(id: $id) { id revoked_at } }', {
      id: created.id,
    });
    expect(revoked.revoked_at).toEqual(expect.any(String));
    const after = await key.rest('GET', '/v1/rewards');
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('invalid_token');
    // revoking twice keeps the first revocation time
    const again = await ok('mutation ($id: ID!) { revoke_api_key(id: $id) { revoked_at } }', { id: created.id });
    expect(again.revoke_api_key.revoked_at).toBe(revoked.revoked_at);
  });

  it("cannot revoke another merchant's key, and has no way to edit scopes", async () => {
    const other = await newMerchant(app, 'other-keys');
    const otherKey = await adminClient(app, other.admin_token)(CREATE, { type: 'full' });
    const id = otherKey.body.data.create_api_key.id;
    const res = await fails('mutation ($id: ID!) { revoke_api_key(id: $id) { id } }', { id });
    expect(res.error.extensions.code).toBe('not_found');
    expect((await app.db.apiKey.findUniqueOrThrow({ where: { id } })).revokedAt).toBeNull();
    const mutations = await ok('{ __schema { mutationType { fields { name } } } }');
    const names = mutations.__schema.mutationType.fields.map((f: { name: string }) => f.name);
    expect(names.filter((n: string) => n.includes('api_key')).sort()).toEqual(['create_api_key', 'revoke_api_key']);
  });
});

describe('engine events', () => {
  // a merchant of its own, so the program configured above does not change the arithmetic
  let engine: ReturnType<typeof adminClient>;
  let engineApi: ReturnType<typeof client>;
  const RECORD_ORDER = `mutation ($input: OrderEventInput!) {
    record_order(input: $input) { order_id customer_id points_awarded transaction_id replayed } }`;
  const REFUND = `mutation ($input: RefundEventInput!) {
    refund_order(input: $input) { order_id points_to_claw_back points_clawed_back shortfall fully_refunded replayed } }`;
  const ACTIVITY = `mutation ($input: ActivityEventInput!) {
    record_activity(input: $input) { event_id campaign_type points_awarded replayed } }`;

  const run = async (query: string, variables?: Record<string, unknown>) => {
    const res = await engine(query, variables);
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    return res.body.data;
  };
  const newShopper = async () => {
    const id = `shopper-${randomUUID().slice(0, 8)}`;
    const data = await run('mutation ($input: CustomerInput!) { create_customer(input: $input) { customer_id referral_code } }', {
      input: { customer_id: id, email: `${id}@example.com` },
    });
    return data.create_customer as { customer_id: string; referral_code: string };
  };
  const balance = async (customerId: string) => {
    const res = await engineApi.rest('GET', `/v1/customers/balance?customer_id=${customerId}`);
    expect(res.status).toBe(200);
    return res.body.data.points_balance as number;
  };

  beforeAll(async () => {
    const shop = await newMerchant(app, 'engine');
    engine = adminClient(app, shop.admin_token);
    engineApi = client(app, await newKey(app, shop.id));
    await run(CREATE_RULE, {
      input: { name: '1 point per $1', campaign_type: 'purchase', earning_rule: { type: 'variable', value: 1, per_amount: 1 } },
    });
    await run(CREATE_RULE, {
      input: { name: 'Welcome', campaign_type: 'signup', earning_rule: { type: 'fixed', value: 100 } },
    });
  });

  it('record_order awards points the public balance shows; replaying the event changes nothing', async () => {
    const shopper = await newShopper();
    const order = { event_id: `evt-${randomUUID()}`, order_id: `o-${randomUUID()}`, customer_id: shopper.customer_id, subtotal: 123.45 };
    const first = (await run(RECORD_ORDER, { input: order })).record_order;
    expect(first).toMatchObject({ order_id: order.order_id, customer_id: shopper.customer_id, points_awarded: 123, replayed: false });
    expect(first.transaction_id).toEqual(expect.any(String));
    expect(await balance(shopper.customer_id)).toBe(123);

    const replay = (await run(RECORD_ORDER, { input: order })).record_order;
    expect(replay).toMatchObject({ points_awarded: 123, replayed: true, transaction_id: first.transaction_id });
    // the same order under another event id is still the same order
    const again = (await run(RECORD_ORDER, { input: { ...order, event_id: `evt-${randomUUID()}` } })).record_order;
    expect(again.replayed).toBe(true);
    expect(await balance(shopper.customer_id)).toBe(123);
    const history = await engineApi.rest('GET', `/v1/customers/transactions?customer_id=${shopper.customer_id}`);
    expect(history.body.data).toHaveLength(1);
  });

  it('refund_order claws the points back once', async () => {
    const shopper = await newShopper();
    const orderId = `o-${randomUUID()}`;
    await run(RECORD_ORDER, { input: { order_id: orderId, customer_id: shopper.customer_id, subtotal: 80 } });
    expect(await balance(shopper.customer_id)).toBe(80);
    const refund = { event_id: `refund-${randomUUID()}`, order_id: orderId };
    const first = (await run(REFUND, { input: refund })).refund_order;
    expect(first).toMatchObject({ points_to_claw_back: 80, points_clawed_back: 80, shortfall: 0, fully_refunded: true, replayed: false });
    expect(await balance(shopper.customer_id)).toBe(0);
    const replay = (await run(REFUND, { input: refund })).refund_order;
    expect(replay.replayed).toBe(true);
    expect(await balance(shopper.customer_id)).toBe(0);
    const unknown = await engine(REFUND, { input: { order_id: 'never-placed' } });
    expect(unknown.body.errors?.[0].extensions.code).toBe('not_found');
  });

  it('record_activity pays a signup once, and replays answer the first result', async () => {
    const shopper = await newShopper();
    const event = { event_id: `signup-${randomUUID()}`, customer_id: shopper.customer_id, campaign_type: 'signup' };
    const first = (await run(ACTIVITY, { input: event })).record_activity;
    expect(first).toMatchObject({ campaign_type: 'signup', points_awarded: 100, replayed: false });
    expect((await run(ACTIVITY, { input: event })).record_activity).toMatchObject({ points_awarded: 100, replayed: true });
    const second = (await run(ACTIVITY, { input: { ...event, event_id: `signup-${randomUUID()}` } })).record_activity;
    expect(second.points_awarded).toBe(0);
    expect(await balance(shopper.customer_id)).toBe(100);
    const purchase = await engine(ACTIVITY, { input: { ...event, event_id: 'x', campaign_type: 'purchase' } });
    expect(purchase.body.errors?.[0].extensions.code).toBe('validation_error');
  });

  it('record_referral registers a pending referral and refuses a self-referral', async () => {
    await run(`mutation ($input: ReferralProgramInput!) { set_referral_program(input: $input) { is_active } }`, {
      input: { referrer_reward: { points: 250 }, referee_reward: { reward_type: 'free_shipping' } },
    });
    const referrer = await newShopper();
    const email = `friend-${randomUUID().slice(0, 8)}@example.com`;
    const REFER = `mutation ($input: ReferralEventInput!) {
      record_referral(input: $input) { id referrer_customer_id referee_email status referrer_points replayed } }`;
    const { record_referral: referral } = await run(REFER, { input: { referrer_code: referrer.referral_code, referee_email: email } });
    expect(referral).toMatchObject({ referrer_customer_id: referrer.customer_id, referee_email: email, status: 'pending' });
    const self = await engine(REFER, {
      input: { referrer_code: referrer.referral_code, referee_email: `${referrer.customer_id}@example.com` },
    });
    expect(self.body.errors?.[0].extensions.code).toBe('referral_rejected');
    const res = await engineApi.rest('GET', `/v1/customers/referrals?customer_id=${referrer.customer_id}`);
    expect(res.body.data.map((r: { id: string }) => r.id)).toEqual([referral.id]);
  });
});
