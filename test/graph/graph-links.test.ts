// The public GraphQL face is a graph. A customer links to its records
// (each link answering what its REST twin answers, under the twin's scope), a held reward to its
// catalogue reward, a membership to its tier; a page of customers with their links runs a
// constant number of statements; and REST answers keep exactly the keys of the committed
// openapi.json.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { reevaluateTier } from '../../src/domain/tiers/standing.js';
import { createApp } from '../../src/http/app.js';
import { client, countingDb, newCustomer, newKey, newMerchant, type TestApp, testApp, testConfig } from '../harness.js';
import { restSelection as all } from '../storefront/rest-selection.js';

let app: TestApp;
let merchantId: string;
let api: ReturnType<typeof client>;
let panel: { id: string; platformId: string };
let cheapId: string;

/** The selection of a REST list's items. */
const all_ = (rest: 'activities' | 'transactions') => all(rest === 'activities' ? 'Activity' : 'PointsTransaction');

beforeAll(async () => {
  app = await testApp();
  merchantId = (await newMerchant(app, 'graph')).id;
  api = client(app, await newKey(app, merchantId));
  await app.db.tier.createMany({
    data: [
      { merchantId, name: 'Bronze', position: 0, threshold: 0, isDefault: true },
      { merchantId, name: 'Silver', position: 1, threshold: 300 },
      { merchantId, name: 'Gold', position: 2, threshold: 5000 },
    ],
  });
  const cheap = await app.db.reward.create({
    data: { merchantId, name: '5 off', rewardType: 'fixed_discount', pointsCost: 100, rewardRule: { discount_value: 5 } },
  });
  cheapId = cheap.id;
  await app.db.reward.create({
    data: { merchantId, name: 'Free ship', rewardType: 'free_shipping', pointsCost: 150, rewardRule: {} },
  });
  await app.db.reward.create({
    data: { merchantId, name: 'Too dear', rewardType: 'fixed_discount', pointsCost: 90_000, rewardRule: { discount_value: 50 } },
  });
  const customer = await newCustomer(app, merchantId, { points: 700 });
  panel = { id: customer.id, platformId: customer.platformId };
  await reevaluateTier(app.db, merchantId, customer.id);
  for (const points of [10, 20, 30]) {
    await api.rest('POST', `/v1/customers/transactions?customer_id=${panel.platformId}`, { points, description: `Bonus ${points}` });
  }
  expect((await api.rest('POST', `/v1/customers/rewards/redeem?customer_id=${panel.platformId}`, { reward_id: cheap.id })).status).toBe(
    201,
  );
  await app.db.referral.createMany({
    data: [
      { merchantId, referrerId: customer.id, refereeEmail: 'friend1@example.com' },
      { merchantId, referrerId: customer.id, refereeEmail: 'friend2@example.com' },
    ],
  });
});

describe('Customer links', () => {
  it('loads a loyalty panel in one request, each link answering what its REST twin answers', async () => {
    const q = `query Panel($id: ID!) {
      customer(id: $id) { data {
        customer_id
        balance ${all('Balance')}
        tier_status ${all('CustomerTierStatus')}
        redeemable_rewards(per_page: 1, page: 2) ${all('RedeemableRewardList')}
        activities(per_page: 3) ${all('ActivityList')}
        transactions(per_page: 2, page: 2) ${all('PointsTransactionList')}
      } } }`;
    const res = await api.gql(q, { id: panel.id });
    expect(res.body.errors).toBeUndefined();
    const c = res.body.data.customer.data;
    const rest = async (path: string) => (await api.rest('GET', `/v1/customers/${path}`)).body;
    const who = `customer_id=${panel.platformId}`;
    expect(c.customer_id).toBe(panel.platformId);
    expect(c.balance).toEqual((await rest(`balance?${who}`)).data);
    expect(c.balance.points_balance).toBe(660);
    expect(c.tier_status).toEqual((await rest(`tiers?${who}`)).data);
    expect(c.tier_status.current_tier.name).toBe('Silver');
    expect(c.redeemable_rewards).toEqual(await rest(`rewards/redeemable?${who}&per_page=1&page=2`));
    expect(c.redeemable_rewards.data.map((r: any) => r.name)).toEqual(['Free ship']);
    expect(c.activities).toEqual(await rest(`activities?${who}&per_page=3`));
    expect(c.activities.data).toHaveLength(3);
    expect(c.transactions).toEqual(await rest(`transactions?${who}&per_page=2&page=2`));
    expect(c.transactions.meta.pagination).toMatchObject({ current_page: 2, total: 5 });
  });

  it('links the held rewards, memberships and referrals, and follows them to their reward and tier', async () => {
    const q = `query Held($id: ID!) {
      customer(id: $id) { data {
        rewards ${all('CustomerRewardList').replace(/\}\s*meta/, ` catalogue_reward ${all('Reward')} } meta`)}
        memberships ${all('MembershipList').replace(/\}\s*meta/, ` tier ${all('Tier')} } meta`)}
        referrals(per_page: 1) ${all('ReferralList')}
      } } }`;
    const res = await api.gql(q, { id: panel.platformId });
    expect(res.body.errors).toBeUndefined();
    const c = res.body.data.customer.data;
    const who = `customer_id=${panel.platformId}`;
    const strip = (page: any, link: string) => ({ ...page, data: page.data.map(({ [link]: _, ...rest }: any) => rest) });
    expect(strip(c.rewards, 'catalogue_reward')).toEqual((await api.rest('GET', `/v1/customers/rewards?${who}`)).body);
    expect(c.rewards.data[0].catalogue_reward).toEqual((await api.rest('GET', `/v1/rewards/${cheapId}`)).body.data);
    expect(strip(c.memberships, 'tier')).toEqual((await api.rest('GET', `/v1/customers/memberships?${who}`)).body);
    const tiers = (await api.rest('GET', '/v1/tiers')).body.data;
    expect(c.memberships.data[0].tier).toEqual(tiers.find((t: any) => t.name === 'Silver'));
    expect(c.referrals).toEqual((await api.rest('GET', `/v1/customers/referrals?${who}&per_page=1`)).body);
    expect(c.referrals.meta.pagination.total).toBe(2);
  });

  it('scrolls activities and transactions as Relay connections (first/after), in the order of their lists', async () => {
    for (const [link, rest] of [
      ['activities_connection', 'activities'],
      ['transactions_connection', 'transactions'],
    ] as const) {
      const all = (await api.rest('GET', `/v1/customers/${rest}?customer_id=${panel.platformId}&per_page=100`)).body.data;
      const seen: unknown[] = [];
      let after: string | null = null;
      for (let guard = 0; guard < 10; guard++) {
        const res: any = await api.gql(
          `query Scroll($id: ID!, $after: String) { customer(id: $id) { data {
            ${link}(first: 2, after: $after) { edges { cursor node ${all_(rest)} } pageInfo { hasNextPage endCursor } total_count }
          } } }`,
          { id: panel.id, after },
        );
        expect(res.body.errors).toBeUndefined();
        const connection = res.body.data.customer.data[link];
        expect(connection.total_count).toBe(all.length);
        expect(connection.edges.length).toBeLessThanOrEqual(2);
        seen.push(...connection.edges.map((e: any) => e.node));
        expect(connection.pageInfo.endCursor).toBe(connection.edges.at(-1)?.cursor ?? null);
        if (!connection.pageInfo.hasNextPage) break;
        after = connection.pageInfo.endCursor;
      }
      expect(seen).toEqual(all);
      expect(all.length).toBeGreaterThan(4);
    }
    const bad = await api.gql(`{ customer(id: "${panel.id}") { data { id activities_connection(after: "nope") { total_count } } } }`);
    expect(bad.body.errors![0]).toMatchObject({
      path: ['customer', 'data', 'activities_connection'],
      extensions: { code: 'validation_error' },
    });
  });

  it('validates page arguments as REST does: 422 validation_error on that link', async () => {
    const res = await api.gql(
      `{ customer(id: "${panel.id}") { data { id activities(per_page: 101) { meta { pagination { total } } } } } }`,
    );
    expect(res.body.data.customer.data).toEqual({ id: panel.id, activities: null });
    expect(res.body.errors!).toHaveLength(1);
    expect(res.body.errors![0]).toMatchObject({ path: ['customer', 'data', 'activities'], extensions: { code: 'validation_error' } });
  });

  it("carries each twin's scope: a key without it gets insufficient_scope on that link, the rest intact", async () => {
    const key = await newKey(app, merchantId, 'custom', { customers: 'read' });
    const res = await client(app, key).gql(`{ customer(id: "${panel.id}") { data {
      id
      balance { points_balance }
      activities { meta { pagination { total } } }
      memberships { data { tier_name tier { name } } }
      rewards { data { code } }
    } } }`);
    expect(res.status).toBe(200);
    const c = res.body.data.customer.data;
    expect(c.id).toBe(panel.id);
    expect(c.balance).toEqual({ points_balance: 660 });
    expect(c.activities).toBeNull();
    expect(c.rewards).toBeNull();
    expect(c.memberships.data).toEqual([{ tier_name: 'Silver', tier: null }]);
    const denied = res.body.errors!.map((e: any) => [e.path.join('.'), e.extensions.code]).sort();
    expect(denied).toEqual([
      ['customer.data.activities', 'insufficient_scope'],
      ['customer.data.memberships.data.0.tier', 'insufficient_scope'],
      ['customer.data.rewards', 'insufficient_scope'],
    ]);
    expect(res.body.errors!.find((e: any) => e.path.at(-1) === 'activities').message).toMatch(/read:activities/);
  });

  it('is not on the admin face', async () => {
    const { adminSchema } = await import('../../src/graphql/admin.js');
    const fields = (adminSchema.getType('Customer') as any).getFields();
    expect(fields.activities).toBeUndefined();
    expect(fields.balance).toBeUndefined();
  });
});

describe('No N+1', () => {
  let shop: string;
  let key: string;

  beforeAll(async () => {
    shop = (await newMerchant(app, 'crowd')).id;
    key = await newKey(app, shop);
    const [bronze, silver] = await Promise.all([
      app.db.tier.create({ data: { merchantId: shop, name: 'Bronze', position: 0, threshold: 0, isDefault: true } }),
      app.db.tier.create({ data: { merchantId: shop, name: 'Silver', position: 1, threshold: 100 } }),
    ]);
    const customers = Array.from({ length: 100 }, (_, i) => ({
      merchantId: shop,
      platformId: `crowd-${i}`,
      email: `crowd-${i}@example.com`,
      referralCode: `CROWD${i}`,
      tierId: i % 2 ? silver.id : bronze.id,
      pointsBalance: i,
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, i)),
    }));
    await app.db.customer.createMany({ data: customers });
    const ids = await app.db.customer.findMany({ where: { merchantId: shop }, select: { id: true, platformId: true } });
    await app.db.activity.createMany({
      data: ids.flatMap((c) =>
        [1, 2, 3, 4].map((n) => ({
          merchantId: shop,
          customerId: c.id,
          type: 'adjustment',
          description: `${c.platformId} #${n}`,
          pointsChange: n,
          status: n === 4 ? ('pending' as const) : ('approved' as const),
          occurredAt: new Date(Date.UTC(2026, 1, n)),
        })),
      ),
    });
    // every link has rows to load: memberships (to a tier), held codes (to a catalogue reward), referrals
    const rewards = await Promise.all(
      [10, 20].map((cost) =>
        app.db.reward.create({
          data: {
            merchantId: shop,
            name: `Crowd ${cost}`,
            rewardType: 'fixed_discount',
            pointsCost: cost,
            rewardRule: { discount_value: 1 },
          },
        }),
      ),
    );
    const byPlatformId = new Map(customers.map((c) => [c.platformId, c]));
    await app.db.tierMembership.createMany({
      data: ids.map((c) => ({ merchantId: shop, customerId: c.id, tierId: byPlatformId.get(c.platformId)!.tierId })),
    });
    await app.db.customerReward.createMany({
      data: ids.map((c, i) => ({
        merchantId: shop,
        customerId: c.id,
        rewardId: rewards[i % 2]!.id,
        code: `CROWD-${i}`,
        pointsSpent: 10,
      })),
    });
    await app.db.referral.createMany({
      data: ids.map((c, i) => ({ merchantId: shop, referrerId: c.id, refereeEmail: `friend-of-crowd-${i}@example.com` })),
    });
  });

  /** The Prisma operations (model calls and raw statements) of one request. */
  const panelQuery = `customer_id tier { name } balance { points_balance points_pending }
    activities(per_page: 3) { data { description } meta { pagination { total } } }
    activities_connection(first: 1) { edges { node { description } } pageInfo { hasNextPage } }`;

  async function operations(perPage: number, selection = panelQuery) {
    const calls: string[] = [];
    const counted = createApp({ db: countingDb(app.db, calls), config: testConfig() });
    const res = await counted.fetch('http://loyalty.test/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `query Page($n: Int) { customers(per_page: $n) { data { ${selection} } } }`,
        variables: { n: perPage },
      }),
    });
    await counted.close();
    const body = (await res.json()) as any;
    expect(body.errors).toBeUndefined();
    // the key's authentication, the idempotency purge and the merchant's storefront settings (the
    // persisted-operations mode and the publishable keys, read once and cached with a database URL,
    // again after another file's change on a shared database) are the request path's, not the
    // query's; batches settle in any order, so the calls are compared as a sorted list
    const query = calls.filter((c) => !/^(ApiKey|IdempotencyKey|StorefrontSettings|StorefrontKey)\./.test(c)).sort();
    return { calls: query, customers: body.data.customers.data as any[] };
  }

  it('a page of 100 customers with tier, balance and activities(per_page: 3) runs as many statements as a page of 5', async () => {
    const small = await operations(5);
    const large = await operations(100);
    expect(large.customers).toHaveLength(100);
    expect(large.calls, JSON.stringify([small.calls, large.calls])).toEqual(small.calls);
    // raw statements are counted too: the merchant's program (time zone, expiry, ladder; this
    // app has no notification feed, so it caches nothing), then the page of customers with its
    // total and tiers and, beside each customer, every link the document selects of it
    expect(large.calls).toEqual(['$queryRaw', '$queryRaw']);
    const one = large.customers.find((c) => c.customer_id === 'crowd-7');
    expect(one).toEqual({
      customer_id: 'crowd-7',
      tier: { name: 'Silver' },
      balance: { points_balance: 7, points_pending: 4 },
      activities: {
        data: [{ description: 'crowd-7 #4' }, { description: 'crowd-7 #3' }, { description: 'crowd-7 #2' }],
        meta: { pagination: { total: 4 } },
      },
      activities_connection: { edges: [{ node: { description: 'crowd-7 #4' } }], pageInfo: { hasNextPage: true } },
    });
  });

  it('every link of a page of customers runs as many statements for 100 customers as for 5', async () => {
    const every = `customer_id tier_status { current_tier { name } progress { value } }
      memberships { data { tier { name } } } transactions(per_page: 2) { data { points } }
      transactions_connection(first: 2) { edges { cursor } }
      rewards { data { code catalogue_reward { name } } } redeemable_rewards { data { name } }
      referrals { meta { pagination { total } } }`;
    const small = await operations(5, every);
    const large = await operations(100, every);
    expect(large.customers).toHaveLength(100);
    expect(large.calls, JSON.stringify([small.calls, large.calls])).toEqual(small.calls);
    // the held codes' catalogue rewards come with their page and the memberships' tiers from the
    // merchant's program: the program, then the page with every link of every customer
    expect(large.calls).toEqual(['$queryRaw', '$queryRaw']);
    const one = large.customers.find((c) => c.customer_id === 'crowd-7');
    expect(one.tier_status).toEqual({ current_tier: { name: 'Bronze' }, progress: { value: 0 } });
    expect(one.memberships.data).toEqual([{ tier: { name: 'Silver' } }]);
    expect(one.rewards.data).toEqual([
      { code: expect.stringMatching(/^CROWD-/), catalogue_reward: { name: expect.stringMatching(/^Crowd /) } },
    ]);
    expect(one.redeemable_rewards.data).toEqual([]);
    expect(large.customers.find((c) => c.customer_id === 'crowd-42').redeemable_rewards.data).toEqual([
      { name: 'Crowd 10' },
      { name: 'Crowd 20' },
    ]);
    expect(one.referrals.meta.pagination.total).toBe(1);
  });
});

describe('REST answers keep exactly the keys of the committed openapi.json', () => {
  const doc = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8'));

  /** Every object of `value` has exactly the properties its schema names. */
  function keyMismatches(value: unknown, schema: any, at: string): string[] {
    if (schema.$ref) return keyMismatches(value, doc.components.schemas[schema.$ref.split('/').at(-1)], at);
    if (value === null || value === undefined) return [];
    if (schema.type === 'array') return (value as unknown[]).flatMap((v, i) => keyMismatches(v, schema.items, `${at}[${i}]`));
    if (schema.type !== 'object' || !schema.properties) return [];
    const expected = Object.keys(schema.properties).sort();
    const actual = Object.keys(value as object).sort();
    const own = JSON.stringify(actual) === JSON.stringify(expected) ? [] : [`${at}: ${actual} ≠ ${expected}`];
    return [...own, ...expected.flatMap((k) => keyMismatches((value as any)[k], schema.properties[k], `${at}.${k}`))];
  }

  it('for every route', async () => {
    await app.db.referralProgram.create({
      data: { merchantId, referrerPoints: 50, refereeRewardType: 'fixed_discount', refereeRewardRule: { discount_value: 5 } },
    });
    const who = `customer_id=${panel.platformId}`;
    const calls: [string, string, string, unknown?][] = [
      ['get', '/customers', '/v1/customers'],
      ['get', '/customers/{id}', `/v1/customers/${panel.id}`],
      ['get', '/customers/balance', `/v1/customers/balance?${who}`],
      ['get', '/customers/tiers', `/v1/customers/tiers?${who}`],
      ['get', '/customers/memberships', `/v1/customers/memberships?${who}`],
      ['get', '/customers/activities', `/v1/customers/activities?${who}`],
      ['get', '/customers/transactions', `/v1/customers/transactions?${who}`],
      ['get', '/customers/rewards', `/v1/customers/rewards?${who}`],
      ['get', '/customers/rewards/redeemable', `/v1/customers/rewards/redeemable?${who}`],
      ['get', '/customers/referrals', `/v1/customers/referrals?${who}`],
      ['get', '/rewards', '/v1/rewards'],
      ['get', '/rewards/{id}', `/v1/rewards/${cheapId}`],
      ['get', '/tiers', '/v1/tiers'],
      ['get', '/earning-rules', '/v1/earning-rules'],
      ['get', '/booster-campaigns', '/v1/booster-campaigns'],
      ['get', '/referrals/program', '/v1/referrals/program'],
      ['get', '/events', '/v1/events'],
      ['post', '/points/estimate', '/v1/points/estimate', { subtotal: 40 }],
      ['post', '/customers/transactions', `/v1/customers/transactions?${who}`, { points: 5, description: 'Keys' }],
      ['post', '/customers/rewards/redeem', `/v1/customers/rewards/redeem?${who}`, { reward_id: cheapId }],
    ];
    // every route of the document is called
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops as object).map((m) => `${m} ${path}`));
    expect(calls.map(([m, p]) => `${m} ${p}`).sort()).toEqual(documented.sort());
    for (const [method, path, url, body] of calls) {
      const res = await api.rest(method.toUpperCase(), url, body);
      expect(res.status, url).toBeLessThan(300);
      const op = doc.paths[path][method];
      const schema = op.responses[String(res.status)].content['application/json'].schema;
      expect(keyMismatches(res.body, schema, `${method} ${path}`)).toEqual([]);
    }
  });
});
