// The storefront answer cache is exact: random sequences of every change that can alter an
// answer (orders, late orders, refunds, adjustments, redemptions, referrals, referrals held for
// review and the merchant's approval or rejection, customer edits, erasure, import,
// program and settings edits, the expiry, pending-points and tier jobs) made through two
// instances sharing one database, with a clock moved across local midnights, a local New Year,
// points and code expiries, booster starts and a rolling tier window, and after each change
// every storefront document read through both caching instances equals what an instance that
// caches nothing answers at that moment. Clock moves land just before and just after each moment
// an answer changes with no write (a code's expiry, a booster's start or end, points leaving a
// rolling tier window), so a kept answer meets each of them.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPrisma, type Db } from '../../src/db/client.js';
import { boostersChangeAt } from '../../src/domain/earning/booster-campaigns.js';
import { expirePoints } from '../../src/domain/ledger/expiry.js';
import { approvePendingPoints } from '../../src/domain/ledger/pending.js';
import { importProgram } from '../../src/domain/program-import/program-import.js';
import { addPeriods, dayStartFrom, periodStart } from '../../src/domain/shared/calendar.js';
import { rejudgeTiers } from '../../src/domain/tiers/rejudge.js';
import { createApp } from '../../src/http/app.js';
import { newKey, newMerchant, type TestApp, testApp, testConfig } from '../harness.js';

const CUSTOMER = `query Customer($c: ID!) { customer(id: $c) { data {
  id customer_id email first_name status points_balance points_earned points_spent referral_code tier { name }
  balance { points_balance points_pending next_expiry { points expires_at } }
  tier_status { current_tier { name } next_tier { name threshold } progress { metric value next_threshold remaining } window tier_expires_at }
  redeemable_rewards(per_page: 5) { data { name points_cost } }
  activities(per_page: 8) { data { type description points_change status balance_after } }
  transactions(per_page: 8) { data { points description source balance_after } }
  rewards(per_page: 5) { data { code status expires_at catalogue_reward { name points_cost } } }
  referrals(per_page: 5) { data { referee_email referee_customer_id status referrer_points } }
  memberships(per_page: 5) { data { status source expires_at } }
} } }`;
const BY_EMAIL = `query ByEmail($e: String!) {
  customer_balance(email: $e) { data { points_balance points_pending } }
  customer_referrals(email: $e) { data { referee_email referee_customer_id status } }
}`;
const PROGRAM = `{
  rewards { data { name points_cost } } tiers { data { name threshold window } }
  earning_rules { data { name } } booster_campaigns { data { name multiplier } }
  referral_program { data { is_active referrer_reward { points } } }
}`;
const SHOPPER = `{
  me { points_balance tier_status { progress { value } } rewards(per_page: 5) { data { code status } } referrals { data { referee_customer_id } } }
  booster_campaigns { data { name } }
}`;

const ZONES = ['America/Los_Angeles', 'Pacific/Auckland'];
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

type Instance = { fetch: (path: string, init?: RequestInit) => Promise<Response> };

/** One merchant's world as the sequence changes it: its customers (by current platform id) and what they did. */
interface World {
  merchantId: string;
  key: string;
  admin: string;
  guestKey: string;
  customers: { id: string; platformId: string; email: string; referralCode: string; erased: boolean }[];
  orders: string[];
  rewards: string[];
  tiers: string[];
  boosters: string[];
  rules: string[];
  pendingReferees: string[];
  /** Customers that were referred (a referral shows their platform id once they order). */
  referees: number[];
  session?: string;
}

describe('cached storefront answers equal uncached ones', () => {
  let app: TestApp;
  const dbs: Db[] = [];
  const closers: (() => Promise<void>)[] = [];
  let cached: Instance[];
  let reference: Instance;
  let hits = 0;
  /** Held referrals approved or rejected (each run ends with one of each, while any is held). */
  let decisions = 0;

  const instance = (overrides: Record<string, string> = {}): Instance => {
    const db = createPrisma(app.url, 3);
    dbs.push(db);
    const other = createApp({ db, databaseUrl: app.url, config: testConfig(overrides) });
    closers.push(() => other.close());
    return { fetch: (path, init) => other.fetch(`http://loyalty.test${path}`, init) };
  };

  beforeAll(async () => {
    app = await testApp({ ownDatabase: true });
    cached = [app, instance()];
    reference = instance({ RESPONSE_CACHE_BYTES: '0' });
  });

  afterAll(async () => {
    for (const close of closers) await close();
    for (const db of dbs) await db.$disconnect();
  });

  async function gql(via: Instance, token: string, query: string, variables?: object, path = '/graphql') {
    const res = await via.fetch(path, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as { data?: any; errors?: { message: string; extensions?: { code?: string } }[] };
    return { status: res.status, cache: res.headers.get('cache-status'), body };
  }
  const admin = async (w: World, query: string, variables?: object, via: Instance = app) => {
    const r = await gql(via, w.admin, query, variables, '/admin/graphql');
    if (r.body.errors) throw new Error(`${query}: ${JSON.stringify(r.body.errors)}`);
    return r.body.data;
  };
  /** An admin change a rule of the domain may refuse (422, 404, 409): refused changes change nothing. */
  const tryAdmin = (w: World, query: string, variables?: object, via?: Instance) =>
    gql(via ?? app, w.admin, query, variables, '/admin/graphql');

  const advance = (ms: number) => vi.setSystemTime(new Date(Date.now() + ms));

  async function newWorld(): Promise<World> {
    const merchant = await newMerchant(app, 'exact');
    const w: World = {
      merchantId: merchant.id,
      key: await newKey(app, merchant.id),
      admin: merchant.admin_token,
      guestKey: '',
      customers: [],
      orders: [],
      rewards: [],
      tiers: [],
      boosters: [],
      rules: [],
      pendingReferees: [],
      referees: [],
    };
    await admin(w, `mutation { update_merchant_settings(timezone: "${ZONES[0]}", points_expiry_days: 2) { timezone } }`);
    for (const [name, position, threshold, window] of [
      ['Bronze', 1, 0, 'lifetime'],
      // a member's progress is measured in the next tier's window: Silver's rolling one for most,
      // Gold's calendar year for those in Silver
      ['Silver', 2, 60, 'rolling_12_months'],
      ['Gold', 3, 120, 'calendar_year'],
    ] as const) {
      const d = await admin(w, `mutation($i: TierInput!) { create_tier(input: $i) { id } }`, {
        i: { name, position, threshold, window, is_default: position === 1, benefits: [`${name} perks`] },
      });
      w.tiers.push(d.create_tier.id);
    }
    for (const [name, cost, days] of [
      ['Coffee', 10, 1],
      ['Tote', 40, null],
    ] as const) {
      const d = await admin(w, `mutation($i: RewardInput!) { create_reward(input: $i) { id } }`, {
        i: {
          name,
          points_cost: cost,
          reward_type: 'fixed_discount',
          reward_rule: { discount_value: 2, ...(days ? { expires_after_days: days } : {}) },
        },
      });
      w.rewards.push(d.create_reward.id);
    }
    const rule = await admin(w, `mutation($i: EarningRuleInput!) { create_earning_rule(input: $i) { id } }`, {
      i: { name: 'Points per dollar', campaign_type: 'purchase', earning_rule: { type: 'variable', value: 1, per_amount: 1 } },
    });
    w.rules.push(rule.create_earning_rule.id);
    await admin(w, `mutation($i: ReferralProgramInput!) { set_referral_program(input: $i) { is_active } }`, {
      i: { referrer_reward: { points: 0 }, referee_reward: { reward_type: 'fixed_discount', reward_rule: { discount_value: 5 } } },
    });
    const booster = await admin(w, `mutation($i: BoosterCampaignInput!) { create_booster_campaign(input: $i) { id } }`, {
      i: {
        name: 'Double hours',
        multiplier: 2,
        campaign_types: ['purchase'],
        starts_at: new Date(Date.now() + 3 * HOUR).toISOString(),
        ends_at: new Date(Date.now() + 30 * HOUR).toISOString(),
      },
    });
    w.boosters.push(booster.create_booster_campaign.id);
    w.guestKey = (await admin(w, `mutation { create_storefront_key(name: "Theme") { key } }`)).create_storefront_key.key;
    for (let i = 0; i < 3; i++) await createCustomer(w, 30 + i * 20);
    // the first customer referred a friend, whose first order completed it
    const [first] = w.customers;
    await admin(w, `mutation($i: ReferralEventInput!) { record_referral(input: $i) { id } }`, {
      i: { referrer_code: first!.referralCode, referee_email: `friend-${w.merchantId.slice(0, 8)}@example.com` },
    });
    await createCustomer(w, 0, `friend-${w.merchantId.slice(0, 8)}@example.com`);
    w.referees.push(w.customers.length - 1);
    await order(w, w.customers.length - 1, 25, app);
    // the second referred their own mailbox twice (held for review), one of whom ordered
    const second = w.customers[1]!;
    for (const tag of ['a', 'b']) {
      const email = second.email.replace('@', `+${tag}@`);
      await admin(w, `mutation($i: ReferralEventInput!) { record_referral(input: $i) { id } }`, {
        i: { referrer_code: second.referralCode, referee_email: email },
      });
      await createCustomer(w, 0, email);
      w.referees.push(w.customers.length - 1);
    }
    await order(w, w.customers.length - 1, 40, app);
    // a code that expires (Coffee: a day after it is issued)
    await gql(app, w.key, `mutation($c: String, $r: ID!) { redeem_reward(customer_id: $c, reward_id: $r) { data { code } } }`, {
      c: first!.platformId,
      r: w.rewards[0],
    });
    await mintSession(w);
    return w;
  }

  async function createCustomer(w: World, points: number, email?: string) {
    const platformId = `c-${randomUUID().slice(0, 8)}`;
    const code = `R${randomUUID().slice(0, 7).toUpperCase()}`;
    const d = await admin(w, `mutation($i: CustomerInput!) { create_customer(input: $i) { id } }`, {
      i: { customer_id: platformId, email: email ?? `${platformId}@example.com`, first_name: 'Pat', referral_code: code },
    });
    w.customers.push({
      id: d.create_customer.id,
      platformId,
      email: email ?? `${platformId}@example.com`,
      referralCode: code,
      erased: false,
    });
    if (points)
      await admin(
        w,
        `mutation { adjust_points(id: "${d.create_customer.id}", points: ${points}, description: "Welcome") { balance_after } }`,
      );
  }

  /** An order; `placedAt`: one recorded late, placed then. */
  async function order(w: World, who: number, subtotal: number, via: Instance, placedAt?: Date) {
    const c = w.customers[who % w.customers.length]!;
    const orderId = `o-${randomUUID().slice(0, 8)}`;
    const r = await tryAdmin(
      w,
      `mutation($i: OrderEventInput!) { record_order(input: $i) { order_id } }`,
      { i: { order_id: orderId, customer_id: c.platformId, subtotal, ...(placedAt && { created_at: placedAt.toISOString() }) } },
      via,
    );
    if (!r.body.errors) w.orders.push(orderId);
  }

  async function mintSession(w: World) {
    const c = w.customers.find((x) => !x.erased);
    if (!c) return;
    const r = await gql(
      app,
      w.key,
      `mutation { create_customer_session(customer_id: "${c.platformId}", expires_in: 86400) { data { token } } }`,
    );
    w.session = r.body.data?.create_customer_session?.data?.token;
  }

  /** Every document, read through each caching instance and the reference: the same answer. */
  async function compareAll(w: World, step: string) {
    const reads: [string, string, object | undefined][] = [
      ...w.customers.map((c) => [w.key, CUSTOMER, { c: c.platformId }] as [string, string, object]),
      [w.key, CUSTOMER, { c: w.customers[0]!.id }],
      [w.key, BY_EMAIL, { e: w.customers[0]!.email.toUpperCase() }],
      [w.key, PROGRAM, undefined],
      [w.guestKey, `{ rewards { data { name } } tiers { data { name } } referral_program { data { is_active } } }`, undefined],
      ...(w.session ? [[w.session, SHOPPER, undefined] as [string, string, undefined]] : []),
    ];
    for (const [token, query, variables] of reads) {
      const answers = [];
      for (const via of cached) answers.push(await gql(via, token, query, variables));
      const truth = await gql(reference, token, query, variables);
      const shape = (a: typeof truth) => ({ status: a.status, data: a.body.data, errors: a.body.errors?.map((e) => e.extensions?.code) });
      for (const a of answers) {
        if (a.cache === 'loyalty; hit') hits += 1;
        expect(shape(a), `${step}: ${query.slice(0, 30)} ${JSON.stringify(variables)}`).toEqual(shape(truth));
      }
    }
  }

  const pick = <T>(xs: T[], i: number) => xs[i % xs.length]!;
  const live = (w: World) => w.customers.filter((c) => !c.erased);

  /** The changes, each through one of the two caching instances (`via`) or as the jobs run. */
  const changes: Record<string, (w: World, i: number, n: number, via: Instance) => Promise<unknown>> = {
    adjust: (w, i, n, via) =>
      via.fetch(`/v1/customers/transactions?customer_id=${pick(live(w), i).platformId}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${w.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ points: n % 3 === 0 ? -(n % 40) - 1 : n, description: `Adjusted ${n}` }),
      }),
    order: (w, i, n, via) => order(w, w.customers.indexOf(pick(live(w), i)), 5 + n, via),
    lateOrder: (w, i, n, via) => order(w, w.customers.indexOf(pick(live(w), i)), 5 + n, via, new Date(Date.now() - (1 + (n % 72)) * HOUR)),
    refund: async (w, i, n, via) => {
      if (!w.orders.length) return;
      await tryAdmin(
        w,
        `mutation($i: RefundEventInput!) { refund_order(input: $i) { order_id } }`,
        {
          i: { order_id: pick(w.orders, i), ...(n % 2 ? { amount: 1 + (n % 7) } : {}) },
        },
        via,
      );
    },
    redeem: (w, i, n, via) =>
      gql(via, w.key, `mutation($c: String, $r: ID!) { redeem_reward(customer_id: $c, reward_id: $r) { data { code } } }`, {
        c: pick(live(w), i).platformId,
        r: pick(w.rewards, n),
      }),
    refer: async (w, i, _n, via) => {
      const email = `ref-${randomUUID().slice(0, 8)}@example.com`;
      const r = await tryAdmin(
        w,
        `mutation($i: ReferralEventInput!) { record_referral(input: $i) { id } }`,
        {
          i: { referrer_code: pick(live(w), i).referralCode, referee_email: email },
        },
        via,
      );
      if (!r.body.errors) w.pendingReferees.push(email);
    },
    // a friend whose email is the referrer's own mailbox (a plus-tag): held for review
    referHeld: async (w, i, _n, via) => {
      const referrer = pick(live(w), i);
      const [local, domain] = referrer.email.split('@');
      const email = `${local}+${randomUUID().slice(0, 4)}@${domain}`;
      const r = await tryAdmin(
        w,
        `mutation($i: ReferralEventInput!) { record_referral(input: $i) { id } }`,
        { i: { referrer_code: referrer.referralCode, referee_email: email } },
        via,
      );
      if (!r.body.errors) w.pendingReferees.push(email);
    },
    approveHeld: (w, i, _n, via) => review(w, i, 'approve_referral', via),
    rejectHeld: (w, i, _n, via) => review(w, i, 'reject_referral', via),
    newCustomer: async (w) => {
      const referee = w.pendingReferees.shift();
      await createCustomer(w, 5, referee);
      if (referee) w.referees.push(w.customers.length - 1);
    },
    renameCustomer: (w, i, n, via) => rename(w, pick(live(w), i), n, via),
    renameReferee: async (w, i, n, via) => {
      const referees = w.referees.map((k) => w.customers[k]!).filter((c) => !c.erased);
      if (referees.length) await rename(w, pick(referees, i), n | 1, via);
    },
    erase: async (w, i, _n, via) => {
      if (live(w).length <= 2) return;
      const c = pick(live(w), i);
      await admin(w, `mutation { erase_customer(id: "${c.id}") { erased_at } }`, undefined, via);
      c.erased = true;
      c.platformId = `erased:${c.id}`;
      if (w.session) await mintSession(w);
    },
    importProgram: async (w, _i, n) => {
      const platformId = `imp-${randomUUID().slice(0, 8)}`;
      await importProgram(app.db, w.merchantId, {
        customers: [{ customer_id: platformId, email: `${platformId}@example.com`, points_balance: n }],
        rewards: [{ name: `Imported ${n}`, reward_type: 'free_shipping', points_cost: 1 + (n % 30), reward_rule: {} }],
      });
      const row = await app.db.customer.findFirstOrThrow({ where: { merchantId: w.merchantId, platformId } });
      w.customers.push({ id: row.id, platformId, email: row.email, referralCode: row.referralCode, erased: false });
    },
    editReward: (w, i, n, via) =>
      tryAdmin(
        w,
        `mutation($id: ID!, $p: RewardPatch!) { update_reward(id: $id, input: $p) { id } }`,
        {
          id: pick(w.rewards, i),
          p: n % 5 === 0 ? { is_active: n % 2 === 0 } : { points_cost: 5 + (n % 50), name: `Reward ${n}` },
        },
        via,
      ),
    editTier: (w, i, n, via) =>
      tryAdmin(
        w,
        `mutation($id: ID!, $p: TierPatch!) { update_tier(id: $id, input: $p) { id } }`,
        {
          id: pick(w.tiers.slice(1), i),
          // a threshold marks the ladder changed (the merchant's row); a name alone does not
          p: n % 2 ? { name: `Tier ${n}` } : { threshold: 20 + (n % 200), name: `Tier ${n}` },
        },
        via,
      ),
    editRule: (w, _i, n, via) =>
      tryAdmin(
        w,
        `mutation($id: ID!, $p: EarningRulePatch!) { update_earning_rule(id: $id, input: $p) { id } }`,
        {
          id: w.rules[0],
          p: { name: `Rule ${n}` },
        },
        via,
      ),
    editBooster: (w, _i, n, via) =>
      tryAdmin(
        w,
        `mutation($id: ID!, $p: BoosterCampaignPatch!) { update_booster_campaign(id: $id, input: $p) { id } }`,
        {
          id: w.boosters[0],
          p: {
            name: `Booster ${n}`,
            starts_at: new Date(Date.now() + ((n % 5) - 1) * HOUR).toISOString(),
            ends_at: new Date(Date.now() + (4 + (n % 20)) * HOUR).toISOString(),
          },
        },
        via,
      ),
    editReferrals: (w, _i, n, via) =>
      tryAdmin(
        w,
        `mutation($i: ReferralProgramInput!) { set_referral_program(input: $i) { is_active } }`,
        {
          i: {
            referrer_reward: { points: n % 3 === 0 ? 0 : n },
            referee_reward: { reward_type: 'fixed_discount', reward_rule: { discount_value: 5 } },
          },
        },
        via,
      ),
    settings: (w, _i, n, via) =>
      tryAdmin(
        w,
        `mutation($z: String, $e: Int, $p: Int) { update_merchant_settings(timezone: $z, points_expiry_days: $e, points_pending_days: $p) { timezone } }`,
        {
          z: pick(ZONES, n),
          e: n % 4 === 0 ? null : 1 + (n % 3),
          p: n % 3 === 0 ? 1 : 0,
        },
        via,
      ),
    expiryJob: (w) => expirePoints(app.db, { now: new Date(), merchantId: w.merchantId }),
    pendingJob: () => approvePendingPoints(app.db, new Date()),
    tierJob: (w) => rejudgeTiers(app.db, new Date(), { merchantId: w.merchantId }),
    // the clock alone
    tick: async (w, _i, n) => {
      advance((1 + (n % 180)) * MINUTE);
      await mintSession(w);
    },
    pastMidnight: async (w) => {
      vi.setSystemTime(new Date(dayStartFrom(new Date(), 1, await zoneOf(w)).getTime() + MINUTE));
      await mintSession(w);
    },
    pastNewYear: async (w) => {
      const zone = await zoneOf(w);
      vi.setSystemTime(new Date(addPeriods('year', periodStart('year', new Date(), zone), 1, zone).getTime() + MINUTE));
      await mintSession(w);
    },
    // just before the next moment an answer changes by the clock alone (answers are kept there), then just after it
    acrossCodeExpiry: (w) =>
      across(w, 'a code expires', async () => {
        const [row] = await app.db.$queryRaw<{ at: Date | null }[]>`
        SELECT min(expires_at) AS at FROM customer_rewards
         WHERE merchant_id = ${w.merchantId}::uuid AND status = 'issued' AND expires_at > ${new Date()}`;
        return row?.at ?? null;
      }),
    acrossBoosterChange: (w) => across(w, 'a booster starts or ends', () => boostersChangeAt(app.db, w.merchantId, new Date())),
    acrossRollingWindow: (w) =>
      across(w, 'points leave a rolling window', async () => {
        const zone = await zoneOf(w);
        // a credit counts in the window of when it was placed (a late order's before it was recorded)
        const credits = await app.db.pointsTransaction.findMany({
          where: { merchantId: w.merchantId, type: 'credit' },
          select: { placedAt: true },
        });
        const now = Date.now();
        const leaving = credits.map((c) => addPeriods('month', c.placedAt, 12, zone).getTime()).filter((at) => at > now);
        return leaving.length ? new Date(Math.min(...leaving)) : null;
      }),
    days: async (w, _i, n) => {
      advance((1 + (n % 3)) * DAY);
      await mintSession(w);
    },
    months: async (w, _i, n) => {
      advance((5 + (n % 9)) * 30 * DAY);
      await mintSession(w);
    },
  };
  /** A new first name, and (odd `n`) a new platform id. */
  async function rename(w: World, c: World['customers'][number], n: number, via: Instance) {
    const platformId = n % 2 ? `c-${randomUUID().slice(0, 8)}` : c.platformId;
    const r = await tryAdmin(
      w,
      `mutation($id: ID!, $p: CustomerPatch!) { update_customer(id: $id, input: $p) { id } }`,
      {
        id: c.id,
        p: { customer_id: platformId, first_name: `Pat ${n}` },
      },
      via,
    );
    if (!r.body.errors) c.platformId = platformId;
  }

  /** The merchant's decision on one of its held referrals, if it has any. */
  async function review(w: World, i: number, decision: 'approve_referral' | 'reject_referral', via: Instance) {
    const held = await admin(w, `{ referrals(status: held, per_page: 100) { data { id } } }`);
    const ids = (held.referrals.data as { id: string }[]).map((r) => r.id);
    if (!ids.length) return;
    const r = await tryAdmin(w, `mutation($id: ID!) { ${decision}(id: $id) { id } }`, { id: pick(ids, i) }, via);
    if (!r.body.errors) decisions += 1;
  }

  async function across(w: World, what: string, next: () => Promise<Date | null>) {
    const at = await next();
    if (!at) return;
    vi.setSystemTime(new Date(at.getTime() - 30_000));
    await mintSession(w);
    await compareAll(w, `just before ${what}`);
    vi.setSystemTime(new Date(at.getTime() + 30_000));
  }
  const zoneOf = async (w: World) =>
    (await app.db.merchant.findUniqueOrThrow({ where: { id: w.merchantId }, select: { timezone: true } })).timezone;

  it('after every change, through either instance, whatever the clock', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now());
    const step = fc.record({
      // the moments the clock alone changes an answer, twice as often as the rest
      change: fc.constantFrom(...Object.keys(changes), ...Object.keys(changes).filter((k) => k.startsWith('across'))),
      i: fc.nat(50),
      n: fc.integer({ min: 1, max: 300 }),
      second: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 25, maxLength: 30 }), async (steps) => {
        const w = await newWorld();
        await compareAll(w, 'set-up');
        for (const [k, s] of steps.entries()) {
          await changes[s.change]!(w, s.i, s.n, cached[Number(s.second)]!);
          await compareAll(w, `step ${k} ${s.change}(${s.i}, ${s.n}) via ${s.second ? 'second' : 'first'}`);
        }
        for (const [k, decision] of (['approveHeld', 'rejectHeld'] as const).entries()) {
          await changes[decision]!(w, 0, 1, cached[k]!);
          await compareAll(w, `last: ${decision}`);
        }
      }),
      { numRuns: Number(process.env.CACHE_RUNS ?? 4), endOnFailure: true },
    );
    // the comparison saw answers served from the caches, not only fresh ones
    expect(hits).toBeGreaterThan(100);
    expect(decisions).toBeGreaterThan(0);
  }, 900_000);
});
