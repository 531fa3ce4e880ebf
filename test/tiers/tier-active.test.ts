// Tiers' is_active: set in the admin API and the import; an inactive tier
// is skipped when a customer's tier is judged (status, evaluation, earn multiplier) and is left
// out of the public GET /v1/tiers, like every public list (spec section 3).
import { beforeAll, describe, expect, it } from 'vitest';
import { rejudgeChangedMerchants } from '../../src/domain/tiers/rejudge.js';
import { adminOps, RECORD_ORDER } from '../admin-ops.js';
import { client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
beforeAll(async () => {
  app = await testApp();
});

const CREATE_TIER = `mutation ($input: TierInput!) { create_tier(input: $input) { id name is_active is_default } }`;
const UPDATE_TIER = `mutation ($id: ID!, $input: TierPatch!) { update_tier(id: $id, input: $input) { id is_active } }`;

async function shop() {
  const merchant = await newMerchant(app, 'tier-active');
  const admin = adminOps(app, merchant.admin_token);
  const api = client(app, await newKey(app, merchant.id));
  const tier = async (input: Record<string, unknown>) => (await admin.ok(CREATE_TIER, { input })).create_tier;
  const bronze = await tier({ name: 'Bronze', position: 0, threshold: 0, is_default: true });
  const silver = await tier({ name: 'Silver', position: 1, threshold: 100, earn_multiplier: 1.5 });
  const gold = await tier({ name: 'Gold', position: 2, threshold: 300, earn_multiplier: 3, is_active: false });
  await app.db.earningRule.create({
    data: {
      merchantId: merchant.id,
      name: '1 per $1',
      campaignType: 'purchase',
      earningRule: { type: 'variable', value: 1, per_amount: 1 },
    },
  });
  return { merchant, admin, api, bronze, silver, gold };
}

describe('tier is_active', () => {
  it('is set by the admin API; GET /v1/tiers lists only the active tiers, with the same fields as before', async () => {
    const { admin, api, bronze, silver, gold } = await shop();
    expect([bronze.is_active, silver.is_active, gold.is_active]).toEqual([true, true, false]);
    const all = await admin.ok('{ tiers { data { name is_active } meta { pagination { total } } } }');
    expect(all.tiers).toEqual({
      data: [
        { name: 'Bronze', is_active: true },
        { name: 'Silver', is_active: true },
        { name: 'Gold', is_active: false },
      ],
      meta: { pagination: { total: 3 } },
    });
    const listed = await api.rest('GET', '/v1/tiers');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((t: { name: string }) => t.name)).toEqual(['Bronze', 'Silver']);
    expect(listed.body.meta.pagination.total).toBe(2);
    expect(Object.keys(listed.body.data[0])).not.toContain('is_active');
    const gql = await api.gql('{ tiers { data { name } } }');
    expect(gql.body.data.tiers.data).toEqual([{ name: 'Bronze' }, { name: 'Silver' }]);

    await admin.ok(UPDATE_TIER, { id: gold.id, input: { is_active: true } });
    const after = await api.rest('GET', '/v1/tiers');
    expect(after.body.data.map((t: { name: string }) => t.name)).toEqual(['Bronze', 'Silver', 'Gold']);
  });

  it('skips an inactive tier when judging: status, the next tier, evaluation and the earn multiplier', async () => {
    const { merchant, admin, api, gold } = await shop();
    const c = await newCustomer(app, merchant.id);
    const order = (order_id: string, subtotal: number) =>
      admin.ok(RECORD_ORDER, { input: { order_id, customer_id: c.platformId, subtotal } });
    await order('o-1', 400); // 400 earned: Gold's threshold, but Gold is inactive
    const status = await api.rest('GET', `/v1/customers/tiers?customer_id=${c.platformId}`);
    expect(status.body.data.current_tier.name).toBe('Silver');
    expect(status.body.data.next_tier).toBeNull();
    expect((await api.rest('GET', `/v1/customers/${c.platformId}`)).body.data.tier.name).toBe('Silver');

    // active again: the next event moves the customer up, and Gold's multiplier applies
    await admin.ok(UPDATE_TIER, { id: gold.id, input: { is_active: true } });
    expect((await order('o-2', 10)).record_order.points_awarded).toBe(15); // judged Silver when recorded
    expect((await api.rest('GET', `/v1/customers/${c.platformId}`)).body.data.tier.name).toBe('Gold');
    expect((await api.rest('POST', '/v1/points/estimate', { customer_id: c.platformId, subtotal: 10 })).body.data.points).toBe(30);

    // deactivated while the customer holds it: the multiplier stops at once, the tier at the next evaluation
    await admin.ok(UPDATE_TIER, { id: gold.id, input: { is_active: false } });
    expect((await api.rest('POST', '/v1/points/estimate', { customer_id: c.platformId, subtotal: 10 })).body.data.points).toBe(10);
    expect((await order('o-3', 10)).record_order.points_awarded).toBe(10);
    expect((await api.rest('GET', `/v1/customers/${c.platformId}`)).body.data.tier.name).toBe('Silver');
    const changes = await api.rest('GET', `/v1/customers/memberships?customer_id=${c.platformId}`);
    expect(changes.body.data.map((m: { tier_name: string }) => m.tier_name)).toEqual(['Silver', 'Gold', 'Silver']);
  });

  it('refuses an inactive default tier (422 validation_error)', async () => {
    const { admin, bronze } = await shop();
    const error = await admin.fails(UPDATE_TIER, { id: bronze.id, input: { is_active: false } });
    expect(error).toMatchObject({ code: 'validation_error', details: { is_active: expect.any(Array) } });
    const created = await admin.fails(CREATE_TIER, {
      input: { name: 'X', position: 9, threshold: 0, is_default: true, is_active: false },
    });
    expect(created.code).toBe('validation_error');
  });

  it('is imported', async () => {
    const merchant = await newMerchant(app, 'tier-import');
    const { importProgram } = await import('../../src/domain/program-import/program-import.js');
    await importProgram(app.db, merchant.id, {
      tiers: [
        { name: 'Member', position: 0, threshold: 0, is_default: true },
        { name: 'Retired', position: 1, threshold: 10, is_active: false },
      ],
    });
    const api = client(app, await newKey(app, merchant.id));
    expect((await api.rest('GET', '/v1/tiers')).body.data.map((t: { name: string }) => t.name)).toEqual(['Member']);
    const admin = adminOps(app, merchant.admin_token);
    expect((await admin.ok('{ tiers { data { name is_active } } }')).tiers.data).toEqual([
      { name: 'Member', is_active: true },
      { name: 'Retired', is_active: false },
    ]);
    await expect(
      importProgram(app.db, merchant.id, { tiers: [{ name: 'Bad', position: 5, threshold: 0, is_active: 'no' }] }),
    ).rejects.toMatchObject({ code: 'validation_error', details: { 'tiers.0.is_active': expect.any(Array) } });
  });
});

describe('a changed tier ladder', () => {
  const tierOf = async (api: ReturnType<typeof client>, id: string) => (await api.rest('GET', `/v1/customers/${id}`)).body.data.tier?.name;
  const marked = async (merchantId: string) =>
    (await app.db.merchant.findUniqueOrThrow({ where: { id: merchantId }, select: { tiersChangedAt: true } })).tiersChangedAt;

  it("re-judges the merchant's customers by the tier-changes job, without an event of theirs", async () => {
    const { merchant, admin, api, silver, gold } = await shop();
    const c = await newCustomer(app, merchant.id);
    await admin.ok(RECORD_ORDER, { input: { order_id: 'o-1', customer_id: c.platformId, subtotal: 200 } });
    expect(await tierOf(api, c.id)).toBe('Silver');
    await rejudgeChangedMerchants(app.db, new Date(), { merchantId: merchant.id });

    // a name is not judged on: no mark; a threshold and the activity are
    await admin.ok(UPDATE_TIER, { id: silver.id, input: { name: 'Silver Club' } });
    expect(await marked(merchant.id)).toBeNull();
    await admin.ok(UPDATE_TIER, { id: gold.id, input: { is_active: true } });
    await admin.ok(`mutation ($id: ID!, $input: TierPatch!) { update_tier(id: $id, input: $input) { id } }`, {
      id: gold.id,
      input: { threshold: 150 },
    });
    expect(await marked(merchant.id)).toBeInstanceOf(Date);
    expect(await tierOf(api, c.id)).toBe('Silver Club'); // until the job runs

    const report = await rejudgeChangedMerchants(app.db, new Date(), { merchantId: merchant.id });
    expect(report.changed).toBeGreaterThanOrEqual(1);
    expect(await tierOf(api, c.id)).toBe('Gold');
    const history = await api.rest('GET', `/v1/customers/memberships?customer_id=${c.platformId}`);
    expect(history.body.data[0]).toMatchObject({ tier_name: 'Gold', status: 'active' });
    expect(await marked(merchant.id)).toBeNull();
  });

  it('re-judges imported customers on their imported history', async () => {
    const merchant = await newMerchant(app, 'tier-import');
    const api = client(app, await newKey(app, merchant.id));
    const imported = await api.rest('GET', '/v1/tiers'); // no tiers yet
    expect(imported.body.data).toEqual([]);
    const { importProgram } = await import('../../src/domain/program-import/program-import.js');
    await importProgram(app.db, merchant.id, {
      tiers: [
        { name: 'Member', position: 0, threshold: 0, is_default: true },
        { name: 'VIP', position: 1, threshold: 500 },
      ],
      customers: [{ customer_id: 'imp-1', email: 'imp-1@example.com', points_balance: 800 }],
    });
    const [customer] = (await api.rest('GET', '/v1/customers?customer_id=imp-1')).body.data;
    expect(customer.tier.name).toBe('Member');
    await rejudgeChangedMerchants(app.db, new Date(), { merchantId: merchant.id });
    expect(await tierOf(api, customer.id)).toBe('VIP');
  });
});
