// The merchant's time zone: set through the admin API and the import, and the
// program's calendar computed in it. Three shops, one in America/Los_Angeles, one in
// Pacific/Auckland and one in UTC, see the same instants; what each expects is worked out
// by hand in the comments (LA is UTC-8 in winter, UTC-7 from 2026-03-08 10:00Z; Auckland is
// UTC+13 in summer, UTC+12 from 2026-04-05 (03:00 NZDT → 02:00 NZST) until 2026-09-27).
// "Now" is the activity's occurred_at, or a faked clock (vi.setSystemTime), never a sleep.
import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { payCalendarRules } from '../../src/domain/earning/calendar-rules.js';
import { expirePoints, remindExpiringPoints } from '../../src/domain/ledger/expiry.js';
import { importProgram } from '../../src/domain/program-import/program-import.js';
import { rejudgeTiers } from '../../src/domain/tiers/rejudge.js';
import { adminClient, client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
beforeAll(async () => {
  app = await testApp();
});
afterEach(() => {
  vi.useRealTimers();
});

const LA = 'America/Los_Angeles';
const AKL = 'Pacific/Auckland';
const UTC = 'UTC';
type Zone = typeof LA | typeof AKL | typeof UTC;
/** Santiago's clocks skip its midnight when daylight saving starts (2026-09-06 starts at 01:00). */
const SCL = 'America/Santiago';

/** A merchant in `zone` (set through the admin API), with its admin and public clients. */
async function shop(zone: Zone | typeof SCL) {
  const merchant = await newMerchant(app, `tz-${zone.split('/').at(-1)!.toLowerCase().replace(/_/g, '-')}`);
  const admin = adminClient(app, merchant.admin_token);
  const set = await admin(`mutation($tz: String) { update_merchant_settings(timezone: $tz) { timezone } }`, { tz: zone });
  expect(set.body.data.update_merchant_settings.timezone).toBe(zone);
  const api = client(app, await newKey(app, merchant.id));
  return { merchantId: merchant.id, admin, api };
}
type Shop = Awaited<ReturnType<typeof shop>>;

async function createRule(s: Shop, input: Record<string, unknown>) {
  const res = await s.admin(
    `mutation($input: EarningRuleInput!) { create_earning_rule(input: $input) { id conditions { starts_at ends_at } } }`,
    {
      input: { earning_rule: { type: 'fixed', value: 5 }, ...input },
    },
  );
  expect(res.body.errors).toBeUndefined();
  return res.body.data.create_earning_rule as { id: string; conditions: Record<string, unknown> | null };
}

/** Records `campaign_type` at each instant through the admin API; the points each paid. */
async function visits(s: Shop, customerId: string, campaign_type: string, instants: string[]) {
  const paid: number[] = [];
  for (const occurred_at of instants) {
    const res = await s.admin(`mutation($input: ActivityEventInput!) { record_activity(input: $input) { points_awarded } }`, {
      input: { event_id: randomUUID(), customer_id: customerId, campaign_type, occurred_at },
    });
    expect(res.body.errors).toBeUndefined();
    paid.push(res.body.data.record_activity.points_awarded);
  }
  return paid;
}

const balance = async (s: Shop, customerId: string) => {
  const res = await s.api.rest('GET', `/v1/customers/balance?customer_id=${customerId}`);
  expect(res.status).toBe(200);
  return res.body.data;
};

describe('the time zone setting', () => {
  it('is UTC by default, takes IANA names in their canonical spelling, and refuses others with 422 validation_error', async () => {
    const merchant = await newMerchant(app, 'tz-setting');
    const admin = adminClient(app, merchant.admin_token);
    const read = await admin(`{ merchant { timezone } }`);
    expect(read.body.data.merchant.timezone).toBe('UTC');
    const set = (tz: unknown) => admin(`mutation($tz: String) { update_merchant_settings(timezone: $tz) { timezone } }`, { tz });
    expect((await set('america/los_angeles')).body.data.update_merchant_settings.timezone).toBe(LA);
    for (const bad of ['Mars/Olympus_Mons', '+01:00', 'PST8PDT/x', '', null]) {
      const res = await set(bad);
      expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'validation_error', details: { timezone: expect.any(Array) } });
    }
    // the refused values changed nothing
    expect((await admin(`{ merchant { timezone } }`)).body.data.merchant.timezone).toBe(LA);
  });

  it('comes with the import file, whose date-only rule dates are days of that zone', async () => {
    const merchant = await newMerchant(app, 'tz-import');
    const admin = adminClient(app, merchant.admin_token);
    await expect(importProgram(app.db, merchant.id, { timezone: 'Europe/Atlantis' })).rejects.toMatchObject({
      code: 'validation_error',
      details: { timezone: expect.any(Array) },
    });
    await importProgram(app.db, merchant.id, {
      timezone: AKL,
      earning_rules: [
        {
          name: 'December visits',
          campaign_type: 'daily_visit',
          earning_rule: { type: 'fixed', value: 5 },
          conditions: { starts_at: '2026-12-01', ends_at: '2026-12-31' },
        },
      ],
    });
    expect((await admin(`{ merchant { timezone } }`)).body.data.merchant.timezone).toBe(AKL);
    const rules = await admin(`{ earning_rules { data { conditions { starts_at ends_at } } } }`);
    // Auckland in December is UTC+13: Dec 1 00:00 is Nov 30 11:00Z; the rule pays through Dec 31, until Jan 1 00:00
    expect(rules.body.data.earning_rules.data[0].conditions).toMatchObject({
      starts_at: '2026-11-30T11:00:00.000Z',
      ends_at: '2026-12-31T11:00:00.000Z',
    });
  });
});

describe('daily-visit limits in the local day', () => {
  const shops = {} as Record<Zone, Shop>;
  beforeAll(async () => {
    for (const zone of [LA, AKL, UTC] as Zone[]) {
      shops[zone] = await shop(zone);
      await createRule(shops[zone], { name: 'Daily visit', campaign_type: 'daily_visit' });
      await createRule(shops[zone], {
        name: 'Weekly review',
        campaign_type: 'review',
        conditions: { limit: { count: 1, period: 'week' } },
      });
    }
  });

  it('counts a visit at 17:00 in Los Angeles for that day, and turns the day at each zone’s local midnight', async () => {
    const instants = [
      '2026-11-23T20:00:00Z', // LA Nov 23 12:00 | AKL Nov 24 09:00 | UTC Nov 23
      '2026-11-24T01:00:00Z', // LA Nov 23 17:00 | AKL Nov 24 14:00 | UTC Nov 24
      '2026-11-24T07:59:00Z', // LA Nov 23 23:59 | AKL Nov 24 20:59 | UTC Nov 24
      '2026-11-24T08:01:00Z', // LA Nov 24 00:01 | AKL Nov 24 21:01 | UTC Nov 24
      '2026-11-24T10:59:00Z', // LA Nov 24 02:59 | AKL Nov 24 23:59 | UTC Nov 24
      '2026-11-24T11:01:00Z', // LA Nov 24 03:01 | AKL Nov 25 00:01 | UTC Nov 24
    ];
    const expected: Record<Zone, number[]> = {
      [LA]: [5, 0, 0, 5, 0, 0], // days 23 23 23 24 24 24
      [AKL]: [5, 0, 0, 0, 0, 5], // days 24 24 24 24 24 25
      [UTC]: [5, 5, 0, 0, 0, 0], // days 23 24 24 24 24 24
    };
    for (const zone of [LA, AKL, UTC] as Zone[]) {
      const c = await newCustomer(app, shops[zone].merchantId);
      expect(await visits(shops[zone], c.platformId, 'daily_visit', instants), zone).toEqual(expected[zone]);
      expect((await balance(shops[zone], c.platformId)).points_balance).toBe(expected[zone].reduce((a, b) => a + b));
    }
  });

  it('neither creates nor loses a day across a daylight-saving change', async () => {
    // LA springs forward on Mar 8: that day runs from 08:00Z (PST) to Mar 9 07:00Z (PDT), 23 hours
    const la = [
      '2026-03-08T08:30:00Z', // Mar 8 00:30 PST
      '2026-03-09T06:30:00Z', // Mar 8 23:30 PDT (a fixed -8 offset would also say Mar 8 22:30)
      '2026-03-09T07:30:00Z', // Mar 9 00:30 PDT (a fixed -8 offset would say Mar 8 23:30 and pay nothing)
    ];
    // Auckland falls back on Apr 5: that day runs from Apr 4 11:00Z (NZDT) to Apr 5 12:00Z (NZST), 25 hours
    const akl = [
      '2026-04-04T11:30:00Z', // Apr 5 00:30 NZDT
      '2026-04-05T11:30:00Z', // Apr 5 23:30 NZST (a fixed +13 offset would say Apr 6 00:30 and pay)
      '2026-04-05T12:30:00Z', // Apr 6 00:30 NZST
    ];
    const cases: [Zone, string[], number[]][] = [
      [LA, la, [5, 0, 5]],
      [UTC, la, [5, 5, 0]], // UTC days Mar 8, Mar 9, Mar 9
      [AKL, akl, [5, 0, 5]],
      [UTC, akl, [5, 5, 0]], // UTC days Apr 4, Apr 5, Apr 5
    ];
    for (const [zone, instants, expected] of cases) {
      const c = await newCustomer(app, shops[zone].merchantId);
      expect(await visits(shops[zone], c.platformId, 'daily_visit', instants), zone).toEqual(expected);
    }
  });

  it('starts the week on the local Monday', async () => {
    const instants = [
      '2026-11-30T07:30:00Z', // LA Sun Nov 29 23:30 | UTC Mon Nov 30
      '2026-11-30T08:30:00Z', // LA Mon Nov 30 00:30 | UTC Mon Nov 30
    ];
    const la = await newCustomer(app, shops[LA].merchantId);
    expect(await visits(shops[LA], la.platformId, 'review', instants)).toEqual([5, 5]);
    const utc = await newCustomer(app, shops[UTC].merchantId);
    expect(await visits(shops[UTC], utc.platformId, 'review', instants)).toEqual([5, 0]);
  });

  it('reads a rule’s date-only starts_at / ends_at as local days', async () => {
    const s = await shop(LA);
    const rule = await createRule(s, {
      name: 'Black Friday visit',
      campaign_type: 'newsletter_subscribe',
      conditions: { starts_at: '2026-11-27', ends_at: '2026-11-27' },
    });
    // LA Nov 27 runs from 08:00Z to Nov 28 08:00Z
    expect(rule.conditions).toMatchObject({ starts_at: '2026-11-27T08:00:00.000Z', ends_at: '2026-11-28T08:00:00.000Z' });
    const c = await newCustomer(app, s.merchantId);
    vi.useFakeTimers({ toFake: ['Date'] });
    const paid = [];
    for (const now of ['2026-11-27T07:59:00Z', '2026-11-27T08:01:00Z', '2026-11-28T07:59:00Z', '2026-11-28T08:01:00Z']) {
      vi.setSystemTime(new Date(now)); // rule dates are judged at the moment of recording
      paid.push(...(await visits(s, c.platformId, 'newsletter_subscribe', [now])));
    }
    expect(paid).toEqual([0, 5, 5, 0]);
  });
});

describe('calendar-year tiers around local New Year', () => {
  // Member (default) and Gold (100 points earned in the calendar year). Each customer earned
  // 150 points at 23:00 on the local New Year's Eve of its shop.
  const earnedAt: Record<Zone, string> = {
    [LA]: '2027-01-01T07:00:00Z', // Dec 31 23:00 PST
    [AKL]: '2026-12-31T10:00:00Z', // Dec 31 23:00 NZDT
    [UTC]: '2026-12-31T23:00:00Z',
  };
  const localNewYear: Record<Zone, string> = {
    [LA]: '2027-01-01T08:00:00.000Z',
    [AKL]: '2026-12-31T11:00:00.000Z',
    [UTC]: '2027-01-01T00:00:00.000Z',
  };
  const minutes = (iso: string, m: number) => new Date(Date.parse(iso) + m * 60_000);

  async function goldCustomer(zone: Zone) {
    const s = await shop(zone);
    for (const [name, position, threshold] of [
      ['Member', 0, 0],
      ['Gold', 1, 100],
    ] as const) {
      const res = await s.admin(`mutation($input: TierInput!) { create_tier(input: $input) { id } }`, {
        input: { name, position, threshold, window: 'calendar_year', is_default: position === 0 },
      });
      expect(res.body.errors).toBeUndefined();
    }
    const c = await newCustomer(app, s.merchantId, { points: 150 });
    await app.db.pointsTransaction.updateMany({ where: { customerId: c.id }, data: { createdAt: new Date(earnedAt[zone]) } });
    return { s, c };
  }
  const tierStatus = async (s: Shop, customerId: string, now: Date) => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(now);
    const res = await s.api.rest('GET', `/v1/customers/tiers?customer_id=${customerId}`);
    vi.useRealTimers();
    expect(res.status).toBe(200);
    return { tier: res.body.data.current_tier.name, expires: res.body.data.tier_expires_at };
  };

  it('holds the tier until the local New Year, which is when it expires, compared with a hand calculation', async () => {
    for (const zone of [LA, AKL, UTC] as Zone[]) {
      const { s, c } = await goldCustomer(zone);
      // half an hour before the local New Year: the credit counts in this local year
      expect(await tierStatus(s, c.platformId, minutes(localNewYear[zone], -30)), zone).toEqual({
        tier: 'Gold',
        expires: localNewYear[zone],
      });
      // half an hour after it: a new year, nothing earned in it yet
      expect(await tierStatus(s, c.platformId, minutes(localNewYear[zone], 30)), zone).toEqual({ tier: 'Member', expires: null });
    }
    // the case: in Los Angeles, status no longer lapses at 16:00 on New Year's Eve
    const { s, c } = await goldCustomer(LA);
    expect((await tierStatus(s, c.platformId, new Date('2027-01-01T00:30:00Z'))).tier).toBe('Gold');
  });

  it('is re-judged by the calendar job once the local year turned', async () => {
    const { s, c } = await goldCustomer(AKL);
    const before = minutes(localNewYear[AKL], -30);
    // the customer reaches Gold before New Year (the job re-judges windowed tiers: nothing to take yet)
    const { reevaluateTier } = await import('../../src/domain/tiers/standing.js');
    await reevaluateTier(app.db, s.merchantId, c.id, before);
    expect(await rejudgeTiers(app.db, before, { merchantId: s.merchantId })).toEqual({ merchants: 1, customers: 1, changed: 0 });
    const after = minutes(localNewYear[AKL], 30);
    // the hourly job takes a merchant only in the first hour of its local day
    const hourly = { merchantId: s.merchantId, justAfterLocalMidnight: true };
    expect(await rejudgeTiers(app.db, minutes(localNewYear[AKL], 90), hourly)).toEqual({ merchants: 0, customers: 0, changed: 0 });
    expect(await rejudgeTiers(app.db, after, hourly)).toEqual({ merchants: 1, customers: 1, changed: 1 });
    expect(await rejudgeTiers(app.db, after, { merchantId: s.merchantId })).toMatchObject({ changed: 0 });
    const customer = await s.api.rest('GET', `/v1/customers/${c.platformId}`);
    expect(customer.body.data.tier.name).toBe('Member');
    const memberships = await s.api.rest('GET', `/v1/customers/memberships?customer_id=${c.platformId}`);
    const gold = memberships.body.data.find((m: { tier_name: string }) => m.tier_name === 'Gold');
    expect(gold).toMatchObject({ status: 'ended', expires_at: localNewYear[AKL] });
  });
});

describe('birthdays and anniversaries on the local day', () => {
  async function birthdayShop(zone: Zone) {
    const s = await shop(zone);
    await createRule(s, { name: 'Happy birthday', campaign_type: 'birthday', earning_rule: { type: 'fixed', value: 50 } });
    const c = await newCustomer(app, s.merchantId);
    await app.db.customer.updateMany({ where: { id: c.id }, data: { birthday: new Date('1990-11-24T00:00:00Z') } });
    return { s, c };
  }
  const pay = (s: Shop, now: string) => payCalendarRules(app.db, new Date(now), { merchantId: s.merchantId });

  it('pays a birthday once, on the local day, however often and however concurrently the job runs', async () => {
    const { s, c } = await birthdayShop(LA);
    // LA Nov 23 23:00: not yet the birthday there (it is in UTC)
    expect(await pay(s, '2026-11-24T07:00:00Z')).toMatchObject({ customers: 0, paid: 0 });
    // LA Nov 24 01:00: the birthday, paid by one of two concurrent runs
    const runs = await Promise.all([pay(s, '2026-11-24T09:00:00Z'), pay(s, '2026-11-24T09:00:00Z')]);
    expect(runs.map((r) => r.paid).sort()).toEqual([0, 1]);
    // later the same local day (Nov 24 23:30 in LA, Nov 25 in UTC): nothing more
    expect(await pay(s, '2026-11-25T07:30:00Z')).toMatchObject({ customers: 1, paid: 0 });
    expect((await balance(s, c.platformId)).points_balance).toBe(50);
    // next year's birthday pays again
    expect(await pay(s, '2027-11-24T20:00:00Z')).toMatchObject({ paid: 1, points: 50 });
  });

  it('pays the UTC and Auckland shops on their own local day', async () => {
    const utc = await birthdayShop(UTC);
    expect(await pay(utc.s, '2026-11-23T23:30:00Z')).toMatchObject({ paid: 0 });
    expect(await pay(utc.s, '2026-11-24T00:30:00Z')).toMatchObject({ paid: 1 });
    const akl = await birthdayShop(AKL);
    expect(await pay(akl.s, '2026-11-23T10:30:00Z')).toMatchObject({ paid: 0 }); // Nov 23 23:30 NZDT
    expect(await pay(akl.s, '2026-11-23T11:30:00Z')).toMatchObject({ paid: 1 }); // Nov 24 00:30 NZDT
    expect((await balance(akl.s, akl.c.platformId)).points_balance).toBe(50);
  });

  it('pays an anniversary on the local day the customer joined, in a later year', async () => {
    const s = await shop(LA);
    await createRule(s, { name: 'Member anniversary', campaign_type: 'anniversary', earning_rule: { type: 'fixed', value: 30 } });
    const c = await newCustomer(app, s.merchantId);
    // joined Nov 23 2024, 23:30 in LA (Nov 24 in UTC)
    await app.db.customer.updateMany({ where: { id: c.id }, data: { createdAt: new Date('2024-11-24T07:30:00Z') } });
    expect(await pay(s, '2026-11-24T09:00:00Z')).toMatchObject({ paid: 0 }); // LA Nov 24
    expect(await pay(s, '2026-11-23T20:00:00Z')).toMatchObject({ paid: 1, points: 30 }); // LA Nov 23
    expect(await pay(s, '2026-11-23T21:00:00Z')).toMatchObject({ paid: 0 });
  });
});

describe('expiry dates and dashboard days', () => {
  it('shows points expiring at the local midnight after N whole local days without activity', async () => {
    const s = await shop(LA);
    await s.admin(`mutation { update_merchant_settings(points_expiry_days: 30) { id } }`);
    const c = await newCustomer(app, s.merchantId, { points: 10 });
    // last active Nov 23 23:30 in LA: 30 whole days Nov 24 .. Dec 23, lapsing Dec 24 00:00 PST
    await app.db.customer.updateMany({ where: { id: c.id }, data: { lastActivityAt: new Date('2026-11-24T07:30:00Z') } });
    expect((await balance(s, c.platformId)).next_expiry).toEqual({ points: 10, expires_at: '2026-12-24T08:00:00.000Z' });
    // the points.expiring reminder names the same instant, once, when it falls within its days
    await remindExpiringPoints(app.db, { days: 7, now: new Date('2026-12-10T12:00:00Z'), merchantId: s.merchantId });
    for (let i = 0; i < 2; i++) {
      await remindExpiringPoints(app.db, { days: 7, now: new Date('2026-12-20T12:00:00Z'), merchantId: s.merchantId });
    }
    const reminders = await app.db.outboxEvent.findMany({ where: { merchantId: s.merchantId, type: 'points.expiring' } });
    expect(reminders.map((e) => e.payload)).toEqual([expect.objectContaining({ points: 10, expires_at: '2026-12-24T08:00:00.000Z' })]);
    // at Dec 24 00:00 PST it has lapsed, a minute before it had not
    expect(await expirePoints(app.db, { now: new Date('2026-12-24T07:59:00Z'), merchantId: s.merchantId })).toMatchObject({ customers: 0 });
    expect(await expirePoints(app.db, { now: new Date('2026-12-24T08:00:00Z'), merchantId: s.merchantId })).toMatchObject({
      customers: 1,
      points: 10,
    });
  });

  it('lapses at the local midnight even after a day that started at 01:00', async () => {
    const s = await shop(SCL);
    await s.admin(`mutation { update_merchant_settings(points_expiry_days: 30) { id } }`);
    const c = await newCustomer(app, s.merchantId, { points: 10 });
    // last active Sep 6 09:00 in Santiago (its day ran from 01:00): 30 whole days Sep 7 .. Oct 6,
    // lapsing Oct 7 00:00 -03, not at 01:00
    await app.db.customer.updateMany({ where: { id: c.id }, data: { lastActivityAt: new Date('2026-09-06T12:00:00Z') } });
    expect((await balance(s, c.platformId)).next_expiry).toEqual({ points: 10, expires_at: '2026-10-07T03:00:00.000Z' });
    expect(await expirePoints(app.db, { now: new Date('2026-10-07T02:59:00Z'), merchantId: s.merchantId })).toMatchObject({ customers: 0 });
    expect(await expirePoints(app.db, { now: new Date('2026-10-07T03:00:00Z'), merchantId: s.merchantId })).toMatchObject({
      customers: 1,
      points: 10,
    });
  });

  it('buckets the dashboard by local day', async () => {
    const s = await shop(LA);
    const c = await newCustomer(app, s.merchantId, { points: 10 });
    // Nov 23 23:30 in LA, already Nov 24 in UTC
    await app.db.pointsTransaction.updateMany({ where: { customerId: c.id }, data: { createdAt: new Date('2026-11-24T07:30:00Z') } });
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-25T20:00:00Z')); // Nov 25 12:00 in LA
    const res = await s.admin(`{ dashboard(range: last_7_days) { from series { period_start issued } } }`);
    vi.useRealTimers();
    const { from, series } = res.body.data.dashboard;
    expect(from).toBe('2026-11-19T08:00:00.000Z'); // Nov 19 00:00 PST, seven local days back
    expect(series).toHaveLength(7);
    expect(series.find((p: { issued: number }) => p.issued > 0)).toEqual({ period_start: '2026-11-23T08:00:00.000Z', issued: 10 });

    // across the spring-forward day (Mar 8, 23 hours) the days start at 08:00Z, then 07:00Z
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-03-10T20:00:00Z')); // Mar 10 13:00 PDT
    const spring = await s.admin(`{ dashboard(range: last_7_days) { series { period_start } } }`);
    vi.useRealTimers();
    expect(spring.body.data.dashboard.series.map((p: { period_start: string }) => p.period_start)).toEqual([
      '2026-03-04T08:00:00.000Z',
      '2026-03-05T08:00:00.000Z',
      '2026-03-06T08:00:00.000Z',
      '2026-03-07T08:00:00.000Z',
      '2026-03-08T08:00:00.000Z',
      '2026-03-09T07:00:00.000Z',
      '2026-03-10T07:00:00.000Z',
    ]);
  });
});
