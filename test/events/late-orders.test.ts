// Orders and actions recorded after they happened (a point-of-sale syncing the next morning, a
// platform retrying hours later): each earns as it would have when it was placed, by the rules,
// boosters and tier in force then, within the limits of its own local day, and the ledger posts
// it now, showing when it was placed on every face. Driven through the admin API as an
// integration sends them; read back through REST, GraphQL and the events feed.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { approvePendingPoints } from '../../src/domain/ledger/pending.js';
import { importProgram } from '../../src/domain/program-import/program-import.js';
import { adminOps, RECORD_ORDER } from '../admin-ops.js';
import { client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
beforeAll(async () => {
  app = await testApp();
});

const ZONE = 'America/New_York';
const DAY = 86_400_000;
const MINUTE = 60_000;
const SETTINGS = `mutation ($days: Int, $tz: String, $pending: Int) {
  update_merchant_settings(late_earning_days: $days, timezone: $tz, points_pending_days: $pending) { late_earning_days timezone } }`;
const RECORD_ACTIVITY = `mutation ($input: ActivityEventInput!) { record_activity(input: $input) { points_awarded transaction_id replayed } }`;
const RULE = `mutation ($input: EarningRuleInput!) { create_earning_rule(input: $input) { id } }`;
const BOOSTER = `mutation ($input: BoosterCampaignInput!) { create_booster_campaign(input: $input) { id } }`;

/**
 * A shop in New York whose orders may earn however long after they were placed (the fixed dates
 * of 2026 below stay within its late earning days whenever the test runs), with its clients.
 */
async function shop(label: string) {
  const merchant = await newMerchant(app, label);
  const admin = adminOps(app, merchant.admin_token);
  expect((await admin.ok(SETTINGS, { days: 36_500, tz: ZONE })).update_merchant_settings).toEqual({
    late_earning_days: 36_500,
    timezone: ZONE,
  });
  const api = client(app, await newKey(app, merchant.id));
  const order = async (input: Record<string, unknown>) => (await admin.ok(RECORD_ORDER, { input })).record_order;
  const transactions = async (customerId: string) =>
    (await api.rest('GET', `/v1/customers/transactions?customer_id=${customerId}&per_page=100`)).body.data as {
      transaction_id: string;
      points: number;
      placed_at: string;
      created_at: string;
    }[];
  const activities = async (customerId: string) =>
    (await api.rest('GET', `/v1/customers/activities?customer_id=${customerId}&per_page=100`)).body.data as {
      type: string;
      status: string;
      points_change: number;
      occurred_at: string;
      created_at: string;
      reference: { kind: string; id: string } | null;
    }[];
  const balance = async (customerId: string) =>
    (await api.rest('GET', `/v1/customers/balance?customer_id=${customerId}`)).body.data as {
      points_balance: number;
      points_pending: number;
    };
  return { merchantId: merchant.id, admin, api, order, transactions, activities, balance };
}

describe('an order recorded after it was placed', () => {
  let s: Awaited<ReturnType<typeof shop>>;
  beforeAll(async () => {
    s = await shop('late');
    await s.admin.ok(RULE, {
      input: { name: 'A point a dollar', campaign_type: 'purchase', earning_rule: { type: 'variable', value: 1, per_amount: 1 } },
    });
    // October only, as local dates: from Oct 1 00:00 EDT (04:00Z) to Nov 1 00:00 EDT
    await s.admin.ok(RULE, {
      input: {
        name: 'October bonus',
        campaign_type: 'purchase',
        earning_rule: { type: 'fixed', value: 50 },
        conditions: { starts_at: '2026-10-01', ends_at: '2026-10-31' },
      },
    });
    await s.admin.ok(BOOSTER, {
      input: {
        name: 'Triple October',
        multiplier: 3,
        campaign_types: ['purchase'],
        starts_at: '2026-10-01T04:00:00Z',
        ends_at: '2026-11-01T04:00:00Z',
      },
    });
  });

  it('earns by the rules and boosters in force when it was placed, and is posted now showing its placed time', async () => {
    const c = await newCustomer(app, s.merchantId);
    const before = Date.now();
    // placed on 5 October, recorded today: (100 + 50) × 3
    const october = await s.order({ order_id: 'oct-5', customer_id: c.platformId, subtotal: 100, created_at: '2026-10-05T15:00:00Z' });
    expect(october).toMatchObject({ points_awarded: 450, points_pending: 0, replayed: false });
    // 1 November 00:30 EDT: October is over in New York though it is still 31 October in Los Angeles
    const november = await s.order({ order_id: 'nov-1', customer_id: c.platformId, subtotal: 100, created_at: '2026-11-01T04:30:00Z' });
    expect(november.points_awarded).toBe(100);
    // 31 October 23:30 EDT: still October
    const lastDay = await s.order({ order_id: 'oct-31', customer_id: c.platformId, subtotal: 100, created_at: '2026-11-01T03:30:00Z' });
    expect(lastDay.points_awarded).toBe(450);
    // the estimate is for a cart now: October is over
    const estimate = await s.api.rest('POST', '/v1/points/estimate', { customer_id: c.platformId, subtotal: 100 });
    expect(estimate.body.data.points).toBe(100);

    const rows = await s.transactions(c.platformId);
    const oct5 = rows.find((t) => t.transaction_id === october.transaction_id)!;
    expect(oct5.placed_at).toBe('2026-10-05T15:00:00.000Z');
    expect(Date.parse(oct5.created_at)).toBeGreaterThanOrEqual(before - MINUTE);
    // the activity log is newest first by when things happened: the late order sits in October
    const log = await s.activities(c.platformId);
    expect(log.map((a) => a.reference?.id)).toEqual(['nov-1', 'oct-31', 'oct-5']);
    expect(log[2]).toMatchObject({ type: 'purchase', points_change: 450, occurred_at: '2026-10-05T15:00:00.000Z' });
    expect(Date.parse(log[2]!.created_at)).toBeGreaterThanOrEqual(before - MINUTE);

    // GraphQL and the admin API show the same
    const gql = await s.api.gql(
      `query ($id: String) { customer_transactions(customer_id: $id) { data { transaction_id placed_at created_at } } }`,
      {
        id: c.platformId,
      },
    );
    expect(gql.body.data.customer_transactions.data).toEqual(
      rows.map(({ transaction_id, placed_at, created_at }) => ({ transaction_id, placed_at, created_at })),
    );
    const admin = await s.admin.ok(`query ($id: ID!) { customer_transactions(id: $id) { data { transaction_id placed_at } } }`, {
      id: c.platformId,
    });
    expect(admin.customer_transactions.data).toContainEqual({
      transaction_id: october.transaction_id,
      placed_at: '2026-10-05T15:00:00.000Z',
    });
    // and the points.credited event (webhooks, the events feed): a field added to version 1
    const events = await s.api.rest('GET', `/v1/events?types=points.credited&customer_id=${c.platformId}`);
    const credited = events.body.data.find((e: any) => e.data.transaction_id === october.transaction_id);
    expect(credited).toMatchObject({ version: 1, data: { placed_at: '2026-10-05T15:00:00.000Z', points: 450 } });
    expect(Date.parse(credited.data.created_at)).toBeGreaterThanOrEqual(before - MINUTE);
  });

  it('takes a limit slot of the local day it was placed in', async () => {
    await s.admin.ok(RULE, {
      input: {
        name: 'Daily visit',
        campaign_type: 'daily_visit',
        earning_rule: { type: 'fixed', value: 5 },
        conditions: { limit: { count: 1, period: 'day' } },
      },
    });
    const c = await newCustomer(app, s.merchantId);
    const visit = async (occurred_at: string) =>
      (
        await s.admin.ok(RECORD_ACTIVITY, {
          input: { event_id: randomUUID(), customer_id: c.platformId, campaign_type: 'daily_visit', occurred_at },
        })
      ).record_activity.points_awarded;
    // 5 Oct 23:30 EDT (6 Oct in UTC), then 5 Oct 10:00 EDT (the same local day), then 6 Oct 01:00 EDT
    expect([await visit('2026-10-06T03:30:00Z'), await visit('2026-10-05T14:00:00Z'), await visit('2026-10-06T05:00:00Z')]).toEqual([
      5, 0, 5,
    ]);
    const log = await s.activities(c.platformId);
    expect(log.map((a) => a.occurred_at)).toEqual(['2026-10-06T05:00:00.000Z', '2026-10-06T03:30:00.000Z']);
  });
});

describe('the program in force when it was placed', () => {
  it('is the one that stood then: later edits and deactivations change nothing, records created since count as they stand', async () => {
    const s = await shop('late-history');
    // a program brought from another system, whose records were created on 1 September
    await importProgram(app.db, s.merchantId, {
      earning_rules: [
        {
          name: 'Two points a dollar',
          campaign_type: 'purchase',
          earning_rule: { type: 'variable', value: 2, per_amount: 1 },
          created_at: '2026-09-01T04:00:00Z',
        },
      ],
      booster_campaigns: [
        {
          name: 'Double October',
          multiplier: 2,
          campaign_types: ['purchase'],
          starts_at: '2026-10-01T04:00:00Z',
          ends_at: '2026-11-01T04:00:00Z',
          created_at: '2026-09-01T04:00:00Z',
        },
      ],
      tiers: [
        { name: 'Member', position: 0, threshold: 0, is_default: true, created_at: '2026-09-01T04:00:00Z' },
        { name: 'Gold', position: 1, threshold: 100_000, earn_multiplier: 1.5, created_at: '2026-09-01T04:00:00Z' },
      ],
    });
    const rules = await s.admin.ok(`{ earning_rules { data { id name } } booster_campaigns { data { id } } tiers { data { id name } } }`);
    const rule = rules.earning_rules.data[0].id;
    const booster = rules.booster_campaigns.data[0].id;
    const tier = (name: string) => rules.tiers.data.find((t: { name: string }) => t.name === name).id;
    // since then: the rule pays 10 a dollar and was switched off, the booster too, Gold pays 3x
    await s.admin.ok(
      `mutation ($id: ID!) { update_earning_rule(id: $id, input: { earning_rule: { type: "variable", value: 10, per_amount: 1 } }) { id } }`,
      {
        id: rule,
      },
    );
    await s.admin.ok(`mutation ($id: ID!) { deactivate_earning_rule(id: $id) { id } }`, { id: rule });
    await s.admin.ok(`mutation ($id: ID!) { deactivate_booster_campaign(id: $id) { id } }`, { id: booster });
    await s.admin.ok(`mutation ($id: ID!) { update_tier(id: $id, input: { earn_multiplier: 3 }) { id } }`, { id: tier('Gold') });
    // and a rule created today, without dates
    await s.admin.ok(RULE, {
      input: { name: 'Welcome back', campaign_type: 'purchase', earning_rule: { type: 'fixed', value: 7 } },
    });

    // a customer who was Gold from 1 to 20 October, and a Member since
    const c = await newCustomer(app, s.merchantId);
    await app.db.tierMembership.createMany({
      data: [
        {
          merchantId: s.merchantId,
          customerId: c.id,
          tierId: tier('Gold'),
          status: 'ended',
          source: 'earned',
          startedAt: new Date('2026-10-01T04:00:00Z'),
          endedAt: new Date('2026-10-20T04:00:00Z'),
        },
        {
          merchantId: s.merchantId,
          customerId: c.id,
          tierId: tier('Member'),
          status: 'active',
          source: 'earned',
          startedAt: new Date('2026-10-20T04:00:00Z'),
        },
      ],
    });
    await app.db.customer.update({ where: { merchantId_id: { merchantId: s.merchantId, id: c.id } }, data: { tierId: tier('Member') } });

    // placed 5 October: 2 a dollar, Gold 1.5x, the booster: 100 × 2 = 200 + 7 (created since, as it stands) = 207 × 1.5 × 2
    expect(
      (await s.order({ order_id: 'h-1', customer_id: c.platformId, subtotal: 100, created_at: '2026-10-05T16:00:00Z' })).points_awarded,
    ).toBe(621);
    // placed 25 October: a Member then
    expect(
      (await s.order({ order_id: 'h-2', customer_id: c.platformId, subtotal: 100, created_at: '2026-10-25T16:00:00Z' })).points_awarded,
    ).toBe(414);
    // placed 15 August, before the program existed: only the rule created since
    expect(
      (await s.order({ order_id: 'h-3', customer_id: c.platformId, subtotal: 100, created_at: '2026-08-15T16:00:00Z' })).points_awarded,
    ).toBe(7);
    // placed now: the program as it stands (the rule and the booster are off)
    expect((await s.order({ order_id: 'h-4', customer_id: c.platformId, subtotal: 100 })).points_awarded).toBe(7);
  });
});

describe('bounds', () => {
  it('refuses a placed time further ahead than 5 minutes, and takes one within them as now', async () => {
    const s = await shop('late-future');
    await s.admin.ok(RULE, { input: { name: 'Flat', campaign_type: 'purchase', earning_rule: { type: 'fixed', value: 10 } } });
    await s.admin.ok(RULE, { input: { name: 'Visit', campaign_type: 'daily_visit', earning_rule: { type: 'fixed', value: 3 } } });
    const c = await newCustomer(app, s.merchantId);
    const ahead = new Date(Date.now() + 6 * MINUTE).toISOString();
    const refused = await s.admin.fails(RECORD_ORDER, {
      input: { order_id: 'f-1', customer_id: c.platformId, subtotal: 10, created_at: ahead },
    });
    expect(refused.code).toBe('validation_error');
    expect(refused.details?.created_at?.[0]).toMatch(/in the future.*5 minutes/);
    const activity = await s.admin.fails(RECORD_ACTIVITY, {
      input: { event_id: 'visit-ahead', customer_id: c.platformId, campaign_type: 'daily_visit', occurred_at: ahead },
    });
    expect(activity.details?.occurred_at?.[0]).toMatch(/in the future/);
    // nothing was recorded: the same ids go through once corrected
    expect(await app.db.order.count({ where: { merchantId: s.merchantId } })).toBe(0);
    const soon = new Date(Date.now() + 2 * MINUTE);
    const accepted = await s.order({ order_id: 'f-1', customer_id: c.platformId, subtotal: 10, created_at: soon.toISOString() });
    expect(accepted).toMatchObject({ points_awarded: 10, replayed: false });
    const row = await app.db.order.findFirstOrThrow({ where: { merchantId: s.merchantId, platformOrderId: 'f-1' } });
    expect(row.placedAt.getTime()).toBeLessThan(soon.getTime());
    const [tx] = await s.transactions(c.platformId);
    expect(tx!.placed_at).toBe(tx!.created_at);
    expect(
      (await s.admin.ok(RECORD_ACTIVITY, { input: { event_id: 'visit-ahead', customer_id: c.platformId, campaign_type: 'daily_visit' } }))
        .record_activity.points_awarded,
    ).toBe(3);
  });

  it('refuses a placed time longer ago than the late earning days, a setting the merchant changes', async () => {
    const s = await shop('late-horizon');
    await s.admin.ok(RULE, { input: { name: 'Flat', campaign_type: 'purchase', earning_rule: { type: 'fixed', value: 10 } } });
    const c = await newCustomer(app, s.merchantId);
    expect((await s.admin.ok(`{ merchant { late_earning_days } }`)).merchant.late_earning_days).toBe(36_500);
    expect((await s.admin.ok(SETTINGS, { days: 30 })).update_merchant_settings.late_earning_days).toBe(30);
    const daysAgo = (n: number) => new Date(Date.now() - n * DAY).toISOString();
    const old = await s.admin.fails(RECORD_ORDER, {
      input: { order_id: 'o-31', customer_id: c.platformId, subtotal: 10, created_at: daysAgo(31) },
    });
    expect(old).toMatchObject({ code: 'validation_error' });
    expect(old.details?.created_at?.[0]).toMatch(/more than 30 days ago.*import it as history/);
    expect((await s.order({ order_id: 'o-29', customer_id: c.platformId, subtotal: 10, created_at: daysAgo(29) })).points_awarded).toBe(10);
    for (const days of [-1, 36_501, 1.5]) {
      const bad = await s.admin.fails(SETTINGS, { days });
      expect(bad.code).toBe('validation_error');
    }
    // 0: only what happens now earns
    await s.admin.ok(SETTINGS, { days: 0 });
    expect(
      (
        await s.admin.fails(RECORD_ORDER, {
          input: { order_id: 'o-1h', customer_id: c.platformId, subtotal: 10, created_at: daysAgo(1 / 24) },
        })
      ).code,
    ).toBe('validation_error');
    expect(await app.db.order.count({ where: { merchantId: s.merchantId } })).toBe(1);
  });

  it('never awards an order twice, whatever the dates it is sent again with, even all at once', async () => {
    const s = await shop('late-resend');
    await s.admin.ok(RULE, {
      input: { name: 'A point a dollar', campaign_type: 'purchase', earning_rule: { type: 'variable', value: 1, per_amount: 1 } },
    });
    const c = await newCustomer(app, s.merchantId);
    const dates = [
      '2026-10-05T15:00:00Z',
      '2026-09-01T00:00:00Z',
      null,
      '2026-11-20T10:00:00Z',
      '2026-10-05T15:00:01Z',
      null,
      '2026-06-30T23:59:59Z',
      '2026-10-06T00:00:00Z',
    ];
    const sent = await Promise.all(
      dates.map((created_at, i) =>
        s.order({ order_id: 'same', ...(i % 2 === 0 && { event_id: `evt-${i}` }), customer_id: c.platformId, subtotal: 80, created_at }),
      ),
    );
    expect(sent.filter((r) => !r.replayed)).toHaveLength(1);
    expect(new Set(sent.map((r) => r.transaction_id)).size).toBe(1);
    expect((await s.balance(c.platformId)).points_balance).toBe(80);
    // and again later, one placed further back than the late earning days: the first answer
    const again = await s.order({ order_id: 'same', customer_id: c.platformId, subtotal: 80, created_at: '1999-01-01T00:00:00Z' });
    expect(again).toMatchObject({ replayed: true, points_awarded: 80 });
    expect(await s.transactions(c.platformId)).toHaveLength(1);
    expect(await app.db.order.count({ where: { merchantId: s.merchantId } })).toBe(1);
  });
});

describe('the return window and the tiers count from the placed time', () => {
  it('holds an order placed within the window until the window from its placed time ends, and credits one placed before it at once', async () => {
    const s = await shop('late-pending');
    await s.admin.ok(SETTINGS, { pending: 7 });
    await s.admin.ok(RULE, { input: { name: 'Flat', campaign_type: 'purchase', earning_rule: { type: 'fixed', value: 20 } } });
    const c = await newCustomer(app, s.merchantId);
    const placed = (days: number) => new Date(Date.now() - days * DAY).toISOString();
    // placed 10 days ago: its window ended, credited at once
    expect(await s.order({ order_id: 'p-10', customer_id: c.platformId, subtotal: 5, created_at: placed(10) })).toMatchObject({
      points_awarded: 20,
      points_pending: 0,
    });
    // placed 5 days ago: held until 2 days from now
    const p5 = placed(5);
    expect(await s.order({ order_id: 'p-5', customer_id: c.platformId, subtotal: 5, created_at: p5 })).toMatchObject({
      points_pending: 20,
    });
    expect(await approvePendingPoints(app.db, new Date(Date.now() + DAY))).toMatchObject({ approved: 0 });
    expect((await s.balance(c.platformId)).points_pending).toBe(20);
    expect(await approvePendingPoints(app.db, new Date(Date.now() + 2 * DAY + MINUTE))).toMatchObject({ approved: 1 });
    const balance = await s.balance(c.platformId);
    expect(balance).toMatchObject({ points_balance: 40, points_pending: 0 });
    // the approval's credit is placed when the order was
    const approved = (await s.transactions(c.platformId)).find((t) => Date.parse(t.placed_at) === Date.parse(p5));
    expect(approved?.points).toBe(20);
  });

  it('counts a late order’s points in the tier window of its placed time', async () => {
    const s = await shop('late-tiers');
    await s.admin.ok(RULE, {
      input: { name: 'A point a dollar', campaign_type: 'purchase', earning_rule: { type: 'variable', value: 1, per_amount: 1 } },
    });
    const tier = (input: Record<string, unknown>) =>
      s.admin.ok(`mutation ($input: TierInput!) { create_tier(input: $input) { id } }`, { input });
    await tier({ name: 'Member', position: 0, threshold: 0, is_default: true });
    await tier({ name: 'Silver', position: 1, threshold: 150, window: 'calendar_year' });
    const c = await newCustomer(app, s.merchantId);
    const status = async () =>
      (await s.api.rest('GET', `/v1/customers/tiers?customer_id=${c.platformId}`)).body.data as {
        current_tier: { name: string };
        progress: { value: number };
      };
    // placed on the last evening of last year in New York (00:30Z on New Year's Day): last year's points
    const lastYear = new Date().getUTCFullYear() - 1;
    await s.order({ order_id: 't-1', customer_id: c.platformId, subtotal: 200, created_at: `${lastYear + 1}-01-01T04:30:00Z` });
    // 04:30Z is 23:30 EST on 31 December
    expect(await status()).toMatchObject({ current_tier: { name: 'Member' }, progress: { value: 0 } });
    await s.order({ order_id: 't-2', customer_id: c.platformId, subtotal: 200 });
    expect(await status()).toMatchObject({ current_tier: { name: 'Silver' }, progress: { value: 200 } });
  });
});
