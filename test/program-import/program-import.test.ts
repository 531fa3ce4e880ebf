// Program import (`loyalty import` / `loyalty seed`): validated whole, written all or nothing,
// then read back through the public REST API.
import { beforeAll, describe, expect, it } from 'vitest';
import { demoProgram } from '../../src/cli/seed/demo-program.js';
import { importProgram, type ProgramFile } from '../../src/domain/program-import/program-import.js';
import { AppError } from '../../src/domain/shared/errors.js';
import { adminClient, client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';
import { deadline } from '../load.js';

let app: TestApp;

beforeAll(async () => {
  app = await testApp();
});

async function merchantWithKey() {
  const merchantId = (await newMerchant(app, 'import')).id;
  return { merchantId, api: client(app, await newKey(app, merchantId)) };
}

/** Rows of every table the import writes, for one merchant. */
async function rowCounts(merchantId: string) {
  const where = { merchantId };
  const db = app.db;
  const counts = await Promise.all([
    db.customer.count({ where }),
    db.pointsTransaction.count({ where }),
    db.activity.count({ where }),
    db.reward.count({ where }),
    db.earningRule.count({ where }),
    db.tier.count({ where }),
    db.tierMembership.count({ where }),
    db.boosterCampaign.count({ where }),
    db.referralProgram.count({ where }),
  ]);
  return counts;
}

/** The validation details of a refused import. */
async function refusal(merchantId: string, file: unknown) {
  const error = await importProgram(app.db, merchantId, file).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('validation_error');
  return (error as AppError).details!;
}

const validFile = (): ProgramFile => ({
  customers: [
    { customer_id: 'c-1', email: 'ann@example.com', first_name: 'Ann', points_balance: 1500 },
    { customer_id: 'c-2', email: 'bob@example.com', points_balance: 0, referral_code: 'BOBBY2024' },
    { customer_id: 'c-3', email: 'cy@example.com', status: 'guest', points_balance: 40 },
  ],
  rewards: [
    {
      name: 'Middle',
      reward_type: 'percentage_discount',
      points_cost: 800,
      reward_rule: { discount_value: 15, points_required: 800 },
      created_at: '2024-02-01T00:00:00Z',
    },
    {
      name: 'Newest',
      description: 'Free tote',
      reward_type: 'free_product',
      points_cost: 2000,
      reward_rule: { product_id: 'tote', variant_id: 'blue' },
      created_at: '2024-03-01T00:00:00Z',
    },
    {
      name: 'Oldest',
      reward_type: 'fixed_discount',
      points_cost: 500,
      reward_rule: { discount_value: 5, min_order_subtotal: 20 },
      created_at: '2024-01-01T00:00:00Z',
    },
    {
      name: 'Retired',
      reward_type: 'store_credit',
      points_cost: 100,
      reward_rule: { credit_value: 1 },
      is_active: false,
      created_at: '2024-04-01T00:00:00Z',
    },
  ],
  earning_rules: [
    {
      name: 'Spend',
      campaign_type: 'purchase',
      earning_rule: { type: 'variable', value: 2, per_amount: 1 },
      conditions: { min_order_subtotal: 10, limit: { count: 3, period: 'day' } },
      created_at: '2023-05-01T10:00:00Z',
    },
    {
      name: 'Sign up',
      campaign_type: 'signup',
      earning_rule: { type: 'fixed', value: 100 },
      created_at: '2023-06-01T10:00:00Z',
    },
  ],
  tiers: [
    { name: 'Base', position: 1, threshold: 0, is_default: true },
    { name: 'Top', position: 2, threshold: 1000, earn_multiplier: 1.5, benefits: ['Free shipping'] },
  ],
  booster_campaigns: [{ name: 'Double', multiplier: 2, campaign_types: ['purchase'], starts_at: '2024-01-01T00:00:00Z' }],
  referral_program: { referrer_reward: { points: 300 }, referee_reward: { reward_type: 'free_shipping' } },
});

describe('importProgram', () => {
  it('imports a valid file exactly, and REST reads it back', async () => {
    const { merchantId, api } = await merchantWithKey();
    const summary = await importProgram(app.db, merchantId, validFile());
    expect(summary).toEqual({
      customers: 3,
      rewards: 4,
      earning_rules: 2,
      tiers: 2,
      booster_campaigns: 1,
      referral_program: true,
      settings: false,
      points_imported: 1540,
      orders: 0,
      orders_skipped: 0,
      points_awarded: 0,
    });

    const rewards = await api.rest('GET', '/v1/rewards');
    expect(rewards.status).toBe(200);
    expect(rewards.body.data.map((r: { name: string }) => r.name)).toEqual(['Newest', 'Middle', 'Oldest']);
    expect(rewards.body.data[0]).toMatchObject({
      description: 'Free tote',
      reward_type: 'free_product',
      points_cost: 2000,
      is_active: true,
      created_at: '2024-03-01T00:00:00.000Z',
      reward_rule: { points_required: 2000, product_id: 'tote', variant_id: 'blue', discount_value: null },
    });
    expect(rewards.body.data[1].reward_rule).toMatchObject({ points_required: 800, discount_value: 15 });
    expect(rewards.body.data[2].reward_rule).toMatchObject({ discount_value: 5, min_order_subtotal: 20 });

    const rules = await api.rest('GET', '/v1/earning-rules');
    expect(rules.body.data.map((r: { name: string }) => r.name)).toEqual(['Sign up', 'Spend']);
    expect(rules.body.data[1]).toMatchObject({
      campaign_type: 'purchase',
      earning_rule: { type: 'variable', value: 2, per_amount: 1 },
      conditions: { min_order_subtotal: 10, limit: { count: 3, period: 'day' }, tier_ids: null },
      created_at: '2023-05-01T10:00:00.000Z',
    });
    expect(rules.body.data[0]).toMatchObject({ earning_rule: { type: 'fixed', value: 100, per_amount: null }, conditions: null });

    const ann = await api.rest('GET', '/v1/customers/balance?customer_id=c-1');
    expect(ann.status).toBe(200);
    expect(ann.body.data).toMatchObject({ points_balance: 1500, points_earned: 1500, points_spent: 0 });
    const bob = await api.rest('GET', '/v1/customers/balance?email=BOB@example.com');
    expect(bob.body.data).toMatchObject({ points_balance: 0, points_earned: 0 });

    // the balance is the sum of its ledger: one opening credit, and its activity
    const annRow = await app.db.customer.findFirstOrThrow({ where: { merchantId, platformId: 'c-1' } });
    const txs = await app.db.pointsTransaction.findMany({ where: { customerId: annRow.id } });
    expect(txs).toEqual([
      expect.objectContaining({
        points: 1500,
        type: 'credit',
        source: 'import',
        description: 'Opening balance (import)',
        balanceAfter: 1500,
      }),
    ]);
    const acts = await app.db.activity.findMany({ where: { customerId: annRow.id } });
    expect(acts).toEqual([
      expect.objectContaining({ type: 'import', description: 'Opening balance (import)', pointsChange: 1500, balanceAfter: 1500 }),
    ]);
    const bobRow = await app.db.customer.findFirstOrThrow({ where: { merchantId, platformId: 'c-2' } });
    expect(await app.db.pointsTransaction.count({ where: { customerId: bobRow.id } })).toBe(0);
    // the histories' totals count the imported rows (one statement inserted them all)
    const annHistory = await api.rest('GET', '/v1/customers/transactions?customer_id=c-1');
    expect([annHistory.body.meta.pagination.total, annHistory.body.data.length]).toEqual([1, 1]);
    const bobHistory = await api.rest('GET', '/v1/customers/transactions?customer_id=c-2');
    expect([bobHistory.body.meta.pagination.total, bobHistory.body.data.length]).toEqual([0, 0]);

    // referral codes: kept when given, generated otherwise
    expect(bobRow.referralCode).toBe('BOBBY2024');
    expect(annRow.referralCode).toMatch(/^[A-Z0-9]{8}$/);

    // members join the default tier with an import membership; the guest does not
    const base = await app.db.tier.findFirstOrThrow({ where: { merchantId, isDefault: true } });
    expect(annRow.tierId).toBe(base.id);
    const memberships = await app.db.tierMembership.findMany({ where: { merchantId } });
    expect(memberships).toHaveLength(2);
    expect(memberships.every((m) => m.tierId === base.id && m.status === 'active' && m.source === 'import')).toBe(true);
    const cy = await app.db.customer.findFirstOrThrow({ where: { merchantId, platformId: 'c-3' } });
    expect(cy.tierId).toBeNull();

    const program = await app.db.referralProgram.findUniqueOrThrow({ where: { merchantId } });
    expect(program).toMatchObject({ referrerPoints: 300, refereeRewardType: 'free_shipping', isActive: true });
  });

  it('refuses an invalid file with every bad path, writing nothing', async () => {
    const { merchantId } = await merchantWithKey();
    await importProgram(app.db, merchantId, { tiers: [{ name: 'Existing', position: 1, threshold: 0, is_default: true }] });
    const before = await rowCounts(merchantId);

    const file = validFile() as Record<string, unknown> & ProgramFile;
    file.customers = [
      ...file.customers!,
      { customer_id: 'c-4', email: 'not-an-email', points_balance: 5 },
      { customer_id: 'c-5', email: 'e5@example.com', points_balance: -1 },
      { customer_id: 'c-1', email: 'ANN@example.com', nickname: 'dup' } as never,
    ];
    file.rewards![0] = { name: 'No value', reward_type: 'fixed_discount', points_cost: 10, reward_rule: {} };
    file.rewards![1] = { ...file.rewards![1]!, reward_rule: { product_id: 'x', points_required: 1 } };
    file.earning_rules![1] = { name: 'Bad', campaign_type: 'shopping' as never };
    file.tiers = [
      { name: 'Again', position: 1, threshold: 0, is_default: true },
      { name: 'Twin', position: 5, threshold: 10 },
      { name: 'Twin 2', position: 5, threshold: 20 },
    ];
    file.booster_campaigns = [
      {
        name: 'Backwards',
        multiplier: 2,
        campaign_types: ['purchase'],
        starts_at: '2024-02-01T00:00:00Z',
        ends_at: '2024-01-01T00:00:00Z',
      },
    ];
    file.referral_program = { referrer_reward: { points: 1.5 }, referee_reward: { reward_type: 'fixed_discount' } };
    file.loyalty_points = [];

    const details = await refusal(merchantId, file);
    expect(Object.keys(details).sort()).toEqual(
      [
        'customers.3.email',
        'customers.4.points_balance',
        'customers.5.nickname',
        'rewards.0.reward_rule.discount_value',
        'rewards.1.reward_rule.points_required',
        'earning_rules.1.campaign_type',
        'tiers.0.position',
        'tiers.0.is_default',
        'tiers.2.position',
        'booster_campaigns.0.ends_at',
        'referral_program.referrer_reward.points',
        'referral_program.referee_reward.reward_rule.discount_value',
        'loyalty_points',
      ].sort(),
    );
    expect(await rowCounts(merchantId)).toEqual(before);

    // an unknown top-level key alone is enough to refuse the file
    const unknownKey = await refusal(merchantId, { rewards: validFile().rewards, program: {} });
    expect(Object.keys(unknownKey)).toEqual(['program']);
    expect(await rowCounts(merchantId)).toEqual(before);

    expect(Object.keys(await refusal(merchantId, [validFile()]))).toEqual(['_']);
    // PostgreSQL cannot store NUL: a validation error, not a database failure
    const nul = await refusal(merchantId, { rewards: [{ ...validFile().rewards![0]!, name: 'a\u0000b' }] });
    expect(Object.keys(nul)).toEqual(['rewards.0.name']);
    expect(await rowCounts(merchantId)).toEqual(before);
  });

  it('refuses duplicate customers within the file (email case-insensitive)', async () => {
    const { merchantId } = await merchantWithKey();
    const details = await refusal(merchantId, {
      customers: [
        { customer_id: 'a', email: 'Same@Example.com' },
        { customer_id: 'b', email: 'same@example.com' },
        { customer_id: 'a', email: 'other@example.com' },
        { customer_id: 'd', email: 'd@example.com', referral_code: 'CODE1' },
        { customer_id: 'e', email: 'e@example.com', referral_code: 'CODE1' },
      ],
    });
    expect(details).toEqual({
      'customers.1.email': ['duplicates customers.0.email'],
      'customers.2.customer_id': ['duplicates customers.0.customer_id'],
      'customers.4.referral_code': ['duplicates customers.3.referral_code'],
    });
    expect(await app.db.customer.count({ where: { merchantId } })).toBe(0);
  });

  it('refuses customers that already exist for the merchant: importing is additive, never an overwrite', async () => {
    const { merchantId, api } = await merchantWithKey();
    const existing = await newCustomer(app, merchantId, { customerId: 'old-1', email: 'old@example.com', points: 20 });
    const details = await refusal(merchantId, {
      customers: [
        { customer_id: 'new-1', email: 'OLD@example.com', points_balance: 999 },
        { customer_id: 'old-1', email: 'fresh@example.com' },
        { customer_id: 'new-2', email: 'n2@example.com', referral_code: existing.referralCode },
      ],
    });
    expect(Object.keys(details).sort()).toEqual(['customers.0.email', 'customers.1.customer_id', 'customers.2.referral_code']);
    expect(await app.db.customer.count({ where: { merchantId } })).toBe(1);

    // the same file twice: the second import is refused and the balances are untouched
    const file = { customers: [{ customer_id: 'n-1', email: 'n1@example.com', points_balance: 50 }] };
    await importProgram(app.db, merchantId, file);
    expect(Object.keys(await refusal(merchantId, file)).sort()).toEqual(['customers.0.customer_id', 'customers.0.email']);
    const balance = await api.rest('GET', '/v1/customers/balance?customer_id=n-1');
    expect(balance.body.data.points_balance).toBe(50);
    const old = await api.rest('GET', '/v1/customers/balance?customer_id=old-1');
    expect(old.body.data.points_balance).toBe(20);
  });

  it('keeps given ids, refuses ids already in use and tier references that do not exist', async () => {
    const { merchantId, api } = await merchantWithKey();
    const rewardId = crypto.randomUUID();
    const tierId = crypto.randomUUID();
    await importProgram(app.db, merchantId, {
      tiers: [{ id: tierId, name: 'VIP', position: 1, threshold: 0 }],
      rewards: [{ id: rewardId, name: 'Ship', reward_type: 'free_shipping', points_cost: 100 }],
      earning_rules: [{ name: 'VIP spend', campaign_type: 'purchase', conditions: { tier_ids: [tierId] } }],
    });
    const reward = await api.rest('GET', `/v1/rewards/${rewardId}`);
    expect(reward.status).toBe(200);
    expect(reward.body.data.reward_rule).toMatchObject({ points_required: 100, max_shipping_amount: null });

    const again = await refusal(merchantId, { rewards: [{ id: rewardId, name: 'Copy', reward_type: 'free_shipping', points_cost: 100 }] });
    expect(Object.keys(again)).toEqual(['rewards.0.id']);
    // ids are the merchant's own: another merchant may use the same one, but not name this one's tier
    const other = (await newMerchant(app, 'other')).id;
    const details = await refusal(other, {
      rewards: [{ id: rewardId, name: 'Copy', reward_type: 'free_shipping', points_cost: 100 }],
      earning_rules: [{ name: 'VIP spend', campaign_type: 'purchase', conditions: { tier_ids: [tierId] } }],
    });
    expect(Object.keys(details)).toEqual(['earning_rules.0.conditions.tier_ids.0']);
  });

  it('refuses a second default tier against the existing program', async () => {
    const { merchantId } = await merchantWithKey();
    await importProgram(app.db, merchantId, { tiers: [{ name: 'Base', position: 1, threshold: 0, is_default: true }] });
    const details = await refusal(merchantId, { tiers: [{ name: 'Base 2', position: 2, threshold: 0, is_default: true }] });
    expect(details).toEqual({ 'tiers.0.is_default': ['only one tier can be the default'] });
  });

  it('gives existing tierless members the default tier when the tiers come later, and upserts the referral program', async () => {
    const { merchantId } = await merchantWithKey();
    await importProgram(app.db, merchantId, {
      customers: [{ customer_id: 'x', email: 'x@example.com' }],
      referral_program: { referrer_reward: { points: 100 }, referee_reward: { reward_type: 'free_shipping' } },
    });
    const summary = await importProgram(app.db, merchantId, {
      tiers: [{ name: 'Base', position: 1, threshold: 0, is_default: true }],
      referral_program: {
        referrer_reward: { points: 700 },
        referee_reward: { reward_type: 'store_credit', reward_rule: { credit_value: 5 } },
      },
    });
    expect(summary).toMatchObject({ customers: 0, tiers: 1, referral_program: true, points_imported: 0 });
    const x = await app.db.customer.findFirstOrThrow({ where: { merchantId, platformId: 'x' }, include: { tier: true } });
    expect(x.tier?.name).toBe('Base');
    expect(await app.db.tierMembership.count({ where: { merchantId, customerId: x.id, source: 'import' } })).toBe(1);
    const programs = await app.db.referralProgram.findMany({ where: { merchantId } });
    expect(programs).toHaveLength(1);
    expect(programs[0]).toMatchObject({ referrerPoints: 700, refereeRewardType: 'store_credit' });
  });

  it("sets the referral program's fraud checks, each left-out check at its default, and lists a bad one's fields", async () => {
    const merchant = await newMerchant(app, 'import-checks');
    const program = { referrer_reward: { points: 100 }, referee_reward: { reward_type: 'free_shipping' } };
    const details = await refusal(merchant.id, {
      referral_program: { ...program, fraud_checks: { blocklist: { addresses: ['10.0.0.0/40'] }, not_first_order: { on: true } } },
    });
    expect(Object.keys(details).sort()).toEqual([
      'referral_program.fraud_checks.blocklist.addresses.0',
      'referral_program.fraud_checks.not_first_order.on',
    ]);
    await importProgram(app.db, merchant.id, {
      referral_program: { ...program, fraud_checks: { not_first_order: { enabled: true }, blocklist: { domains: ['mailinator.com'] } } },
    });
    const admin = adminClient(app, merchant.admin_token);
    const read = await admin(
      '{ referral_program { fraud_checks { not_first_order { enabled } similar_email { enabled similarity } blocklist { domains } } } }',
    );
    expect(read.body.data.referral_program.fraud_checks).toEqual({
      not_first_order: { enabled: true },
      similar_email: { enabled: true, similarity: 0.8 },
      blocklist: { domains: ['mailinator.com'] },
    });
  });

  it('imports the demo program cleanly', async () => {
    const { merchantId, api } = await merchantWithKey();
    const now = new Date();
    expect(demoProgram(now)).toEqual(demoProgram(now));
    const summary = await importProgram(app.db, merchantId, demoProgram(now));
    expect(summary).toMatchObject({ customers: 12, rewards: 6, earning_rules: 8, booster_campaigns: 2, referral_program: true });
    expect(summary.points_imported).toBeGreaterThan(0);

    const rewards = await api.rest('GET', '/v1/rewards');
    expect(new Set(rewards.body.data.map((r: { reward_type: string }) => r.reward_type))).toEqual(
      new Set(['fixed_discount', 'percentage_discount', 'free_shipping', 'free_product', 'store_credit']),
    );
    const rules = await api.rest('GET', '/v1/earning-rules?campaign_type=purchase');
    expect(rules.body.data.map((r: { earning_rule: { type: string } }) => r.earning_rule.type).sort()).toEqual(['fixed', 'variable']);
    const ava = await api.rest('GET', '/v1/customers/balance?email=ava.martin@example.com');
    expect(ava.body.data.points_balance).toBe(6450);

    const tiers = await app.db.tier.findMany({ where: { merchantId }, orderBy: { position: 'asc' } });
    expect(tiers[0]).toMatchObject({ name: 'Bronze', isDefault: true, threshold: 0 });
    const boosters = await app.db.boosterCampaign.findMany({ where: { merchantId } });
    expect(boosters.filter((b) => b.startsAt <= now && (!b.endsAt || b.endsAt > now))).toHaveLength(1);
    expect(boosters.filter((b) => b.startsAt > now)).toHaveLength(1);

    // the same demo loads into a second merchant (no fixed ids)
    const second = await merchantWithKey();
    await expect(importProgram(app.db, second.merchantId, demoProgram(now))).resolves.toMatchObject({ customers: 12 });
  });

  it('is invisible to another merchant', async () => {
    const { merchantId } = await merchantWithKey();
    await importProgram(app.db, merchantId, validFile());
    const stranger = await merchantWithKey();
    const rewards = await stranger.api.rest('GET', '/v1/rewards');
    expect(rewards.body.data).toEqual([]);
    expect((await stranger.api.rest('GET', '/v1/earning-rules')).body.data).toEqual([]);
    const balance = await stranger.api.rest('GET', '/v1/customers/balance?customer_id=c-1');
    expect(balance.status).toBe(404);
    // and the same customers are free to import for that merchant
    await expect(importProgram(app.db, stranger.merchantId, validFile())).resolves.toMatchObject({ customers: 3 });
  });

  // a load test: its deadline grows with how busy the machine is (test/load.ts)
  it('imports 10,000 customers in one go', { timeout: deadline(15_000) }, async () => {
    const { merchantId, api } = await merchantWithKey();
    const customers = Array.from({ length: 10_000 }, (_, i) => ({
      customer_id: `bulk-${i}`,
      email: `bulk-${i}@example.com`,
      points_balance: i % 3 === 0 ? 0 : i,
    }));
    const summary = await importProgram(app.db, merchantId, {
      tiers: [{ name: 'Base', position: 1, threshold: 0, is_default: true }],
      customers,
    });
    const expectedPoints = customers.reduce((sum, c) => sum + c.points_balance, 0);
    expect(summary).toMatchObject({ customers: 10_000, points_imported: expectedPoints });
    expect(await app.db.customer.count({ where: { merchantId } })).toBe(10_000);
    const ledger = await app.db.pointsTransaction.aggregate({ where: { merchantId }, _sum: { points: true }, _count: true });
    expect(ledger._sum.points).toBe(expectedPoints);
    expect(ledger._count).toBe(customers.filter((c) => c.points_balance > 0).length);
    expect(await app.db.tierMembership.count({ where: { merchantId } })).toBe(10_000);
    const codes = await app.db.customer.findMany({ where: { merchantId }, select: { referralCode: true } });
    expect(new Set(codes.map((c) => c.referralCode)).size).toBe(10_000);
    const last = await api.rest('GET', '/v1/customers/balance?customer_id=bulk-9998');
    expect(last.body.data.points_balance).toBe(9998);
  });
});
