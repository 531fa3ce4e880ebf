// The storefront panel planned from its document: the field that finds the customer reads it
// and every link the document selects of it (balance, tier status, redeemable rewards,
// activities, held codes) in one statement, totals only where the document asks for them; the
// merchant's program (time zone, expiry, tier ladder) comes from each instance's cache, which a
// change made on any instance empties on every instance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// the panel the benchmark measures: docs/storefronts.md's, with every link of the drop-in panel
import { PANEL_DOCUMENT } from '../../bench/operations.js';
import { createPrisma, type Db } from '../../src/db/client.js';
import { reevaluateTier } from '../../src/domain/tiers/standing.js';
import { Prisma } from '../../src/generated/prisma/client.js';
import { createApp } from '../../src/http/app.js';
import { adminClient, client, newCustomer, newKey, newMerchant, type TestApp, testApp, testConfig, untilCached } from '../harness.js';

let app: TestApp;
let merchant: Awaited<ReturnType<typeof newMerchant>>;
let key: string;
let shopper: { id: string; platformId: string };
let session: string;
let silverId: string;

beforeAll(async () => {
  app = await testApp();
  merchant = await newMerchant(app, 'panel');
  key = await newKey(app, merchant.id);
  const tiers = await Promise.all(
    [
      { name: 'Bronze', position: 0, threshold: 0, isDefault: true },
      { name: 'Silver', position: 1, threshold: 300, benefits: ['Free shipping'] },
      { name: 'Gold', position: 2, threshold: 5000 },
    ].map((t) => app.db.tier.create({ data: { merchantId: merchant.id, ...t } })),
  );
  silverId = tiers[1]!.id;
  const cheap = await app.db.reward.create({
    data: { merchantId: merchant.id, name: '5 off', rewardType: 'fixed_discount', pointsCost: 100, rewardRule: { discount_value: 5 } },
  });
  await app.db.reward.create({
    data: { merchantId: merchant.id, name: 'Tote', description: 'A bag', rewardType: 'free_product', pointsCost: 400, rewardRule: {} },
  });
  const customer = await newCustomer(app, merchant.id, { points: 700 });
  shopper = { id: customer.id, platformId: customer.platformId };
  await app.db.customer.updateMany({ where: { merchantId: merchant.id, id: customer.id }, data: { firstName: 'Ada' } });
  await reevaluateTier(app.db, merchant.id, customer.id);
  const api = client(app, key);
  for (const points of [10, 20]) {
    await api.rest('POST', `/v1/customers/transactions?customer_id=${shopper.platformId}`, { points, description: `Bonus ${points}` });
  }
  expect((await api.rest('POST', `/v1/customers/rewards/redeem?customer_id=${shopper.platformId}`, { reward_id: cheap.id })).status).toBe(
    201,
  );
  // points an order has earned that are not spendable yet
  await app.db.activity.create({
    data: {
      merchantId: merchant.id,
      customerId: customer.id,
      type: 'purchase',
      description: 'Order 1',
      pointsChange: 40,
      status: 'pending',
    },
  });
  const minted = await api.gql(`mutation { create_customer_session(customer_id: "${shopper.platformId}") { data { token } } }`);
  session = minted.body.data.create_customer_session.data.token;
});

/** An instance of the service on the test database whose statements are written down: each raw statement's text, Prisma's model calls by name. */
function countedInstance() {
  const statements: string[] = [];
  const db = app.db.$extends({
    query: {
      async $allOperations({ model, operation, args, query }) {
        statements.push(model ? `${model}.${operation}` : JSON.stringify(args));
        return query(args);
      },
    },
  }) as unknown as Db;
  // with the database's URL: its caches (keys, sessions, programs) live on notifications; no
  // answer cache, whose hits would run no query at all: this counts what an answer reads; and
  // every statement on the counted client (on a cluster, not at the merchant's worker)
  const instance = createApp({ db, databaseUrl: app.url, config: testConfig({ RESPONSE_CACHE_BYTES: '0', CITUS_WORKER_ENTRY: 'false' }) });
  // what authenticates a request is the request path's, cached once the feeds are up
  const query = () =>
    statements.filter((s) => !/api_keys|^(StorefrontSettings|StorefrontKey|EndedCustomerSession|IdempotencyKey)\./.test(s));
  return {
    /** The request's answer and the statements its query ran. */
    async run(credential: string, document: string, variables: Record<string, unknown> = {}) {
      statements.length = 0;
      const res = await instance.fetch('http://loyalty.test/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: document, variables }),
      });
      const body = (await res.json()) as { data?: any; errors?: unknown[] };
      expect(body.errors).toBeUndefined();
      return { data: body.data, statements: query() };
    },
    close: () => instance.close(),
  };
}

describe('the LoyaltyPanel document', () => {
  let counted: ReturnType<typeof countedInstance>;
  beforeAll(() => {
    counted = countedInstance();
  });
  afterAll(() => counted.close());

  it('reads the customer and every link it selects in one statement, by key and by session', async () => {
    // the first request reads the merchant's program too, once the notification feed is up
    await expect
      .poll(async () => (await counted.run(key, PANEL_DOCUMENT, { customer: shopper.platformId })).statements.length, { timeout: 10_000 })
      .toBe(1);
    const byKey = await counted.run(key, PANEL_DOCUMENT, { customer: shopper.platformId });
    expect(byKey.statements).toHaveLength(1);
    const bySession = await counted.run(session, PANEL_DOCUMENT, { customer: shopper.platformId });
    expect(bySession.statements).toHaveLength(1);
    expect(bySession.data).toEqual(byKey.data);
    const me = await counted.run(session, `{ me { first_name balance { points_balance } tier_status { current_tier { name } } } }`);
    expect(me.statements).toHaveLength(1);
    expect(me.data.me).toEqual({ first_name: 'Ada', balance: { points_balance: 630 }, tier_status: { current_tier: { name: 'Silver' } } });
  });

  it("answers what each link's REST twin answers", async () => {
    const panel = (await counted.run(key, PANEL_DOCUMENT, { customer: shopper.platformId })).data.customer.data;
    const rest = async (path: string) =>
      (await client(app, key).rest('GET', `/v1/customers/${path}customer_id=${shopper.platformId}`)).body;
    const balance = (await rest('balance?')).data;
    expect(panel.balance).toEqual({ points_balance: 630, points_pending: 40, next_expiry: null });
    expect(panel.balance.points_pending).toBe(balance.points_pending);
    const tiers = (await rest('tiers?')).data;
    expect(panel.tier_status).toEqual({
      current_tier: { name: 'Silver', benefits: ['Free shipping'] },
      next_tier: { name: 'Gold', threshold: 5000 },
      progress: { metric: tiers.progress.metric, value: tiers.progress.value, remaining: tiers.progress.remaining },
    });
    expect(panel.tier_status.progress.value).toBe(730);
    const redeemable = (await rest('rewards/redeemable?per_page=5&')).data;
    expect(panel.redeemable_rewards.data).toEqual(
      redeemable.map((r: any) => ({ id: r.id, name: r.name, points_cost: r.points_cost, reward_type: r.reward_type })),
    );
    expect(panel.redeemable_rewards.data.map((r: any) => r.name)).toEqual(['5 off', 'Tote']);
    const activities = (await rest('activities?per_page=5&')).data;
    expect(panel.activities.data).toEqual(
      activities.map((a: any) => ({ description: a.description, points_change: a.points_change, occurred_at: a.occurred_at })),
    );
    expect(panel.activities.data).toHaveLength(5);
    const held = (await rest('rewards?per_page=3&')).data;
    expect(panel.rewards.data).toEqual(
      held.map((h: any) => ({
        code: h.code,
        status: h.status,
        expires_at: h.expires_at,
        catalogue_reward: { name: '5 off', description: null },
      })),
    );
  });

  it('counts a list only when the document selects its total', async () => {
    const [statement] = (await counted.run(key, PANEL_DOCUMENT, { customer: shopper.platformId })).statements;
    // a list's total is read as `_total` (a counter its customer keeps, or a count)
    expect(statement).not.toMatch(/_total/);
    const withTotals = await counted.run(
      key,
      `query ($c: ID!) { customer(id: $c) { data {
        activities(per_page: 1) { meta { pagination { total } } }
        rewards_connection(first: 1) { total_count }
        redeemable_rewards(per_page: 1) { data { name } }
      } } }`,
      { c: shopper.platformId },
    );
    expect(withTotals.statements).toHaveLength(1);
    // the activities' kept counter and a count of the codes held; none of what is redeemable
    expect(withTotals.statements[0]).toMatch(/activity_count AS _total/);
    expect(withTotals.statements[0]!.match(/AS _total/g)).toHaveLength(2);
    const logged = await client(app, key).rest('GET', `/v1/customers/activities?customer_id=${shopper.platformId}`);
    expect(logged.body.meta.pagination.total).toBe(6);
    expect(withTotals.data.customer.data).toEqual({
      activities: { meta: { pagination: { total: 6 } } },
      rewards_connection: { total_count: 1 },
      redeemable_rewards: { data: [{ name: '5 off' }] },
    });
  });

  it('reads a page of customers and their links in one statement, whatever its size', async () => {
    const page = `{ customers(per_page: 50) { data { customer_id balance { points_pending } activities(per_page: 2) { data { description } } } } }`;
    const { statements, data } = await counted.run(key, page);
    expect(statements).toHaveLength(1);
    expect(data.customers.data).toEqual([
      { customer_id: shopper.platformId, balance: { points_pending: 40 }, activities: { data: expect.any(Array) } },
    ]);
  });

  it('reads a link on its own when one name asks for two selections', async () => {
    const { statements, data } = await counted.run(
      key,
      `query ($c: ID!) { customer(id: $c) { a: data { activities(per_page: 1) { data { description } } } b: data { activities(per_page: 2) { data { description } } } } }`,
      { c: shopper.platformId },
    );
    expect(data.customer.a.activities.data).toHaveLength(1);
    expect(data.customer.b.activities.data).toHaveLength(2);
    expect(data.customer.b.activities.data[0]).toEqual(data.customer.a.activities.data[0]);
    // the customer, then one batch of the link for each of its two selections
    expect(statements).toHaveLength(3);
  });
});

describe("the panel's lists of a customer with thousands", () => {
  it('are her latest activities and codes from the ordered indexes alone, not all of hers and a sort, among customers of a few each', async (ctx) => {
    // one PostgreSQL's plan: a Citus coordinator plans none of a router query's reading
    const [cluster] = await app.db.$queryRaw<
      { citus: boolean }[]
    >`SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS citus`;
    if (cluster?.citus) return ctx.skip();
    // a merchant of its own: its thousands of customers are in no other test's pages
    const shop = await newMerchant(app, 'heavy');
    const heavy = await newCustomer(app, shop.id);
    const activity = (customer: Prisma.Sql, n: number) => Prisma.sql`
      INSERT INTO activities (id, merchant_id, customer_id, type, description, points_change, balance_after, occurred_at, created_at)
      SELECT gen_random_uuid(), ${shop.id}::uuid, ${customer}, 'adjustment', 'Bonus ' || i, 1, i,
             now() - i * interval '1 minute', now() - i * interval '1 minute'
        FROM generate_series(1, ${n}) i`;
    await app.db.$executeRaw(activity(Prisma.sql`${heavy.id}::uuid`, 20_000));
    // the merchant's other customers, two activities each: the planner's typical customer
    await app.db.$executeRaw`
      INSERT INTO customers (id, merchant_id, platform_id, email, referral_code, updated_at)
      SELECT gen_random_uuid(), ${shop.id}::uuid, 'light-' || n, 'light-' || n || '@example.com', 'LIGHT' || n, now()
        FROM generate_series(1, 5000) n`;
    await app.db.$executeRaw(
      Prisma.sql`${activity(Prisma.sql`c.id`, 2)}, customers c WHERE c.merchant_id = ${shop.id}::uuid AND c.platform_id LIKE 'light-%'`,
    );
    // her 5,000 codes (none spent points: no event each), and one of each other customer's
    const reward = await app.db.reward.create({
      data: { merchantId: shop.id, name: 'Gift', rewardType: 'free_product', pointsCost: 10, rewardRule: {} },
    });
    const codes = (customer: Prisma.Sql, n: number, name: Prisma.Sql) => Prisma.sql`
      INSERT INTO customer_rewards (id, merchant_id, customer_id, reward_id, code, points_spent, issued_at)
      SELECT gen_random_uuid(), ${shop.id}::uuid, ${customer}, ${reward.id}::uuid, ${name}, 0, now() - i * interval '1 minute'
        FROM generate_series(1, ${n}) i`;
    await app.db.$executeRaw(codes(Prisma.sql`${heavy.id}::uuid`, 5_000, Prisma.sql`'HEAVY-' || i`));
    await app.db.$executeRaw(
      Prisma.sql`${codes(Prisma.sql`c.id`, 1, Prisma.sql`c.platform_id`)}, customers c WHERE c.merchant_id = ${shop.id}::uuid AND c.platform_id LIKE 'light-%'`,
    );
    // the statistics and visibility map autovacuum keeps
    await app.db.$executeRaw`VACUUM ANALYZE activities`;
    await app.db.$executeRaw`VACUUM ANALYZE customer_rewards`;
    const counted = countedInstance();
    const { data, statements } = await counted.run(await newKey(app, shop.id), PANEL_DOCUMENT, { customer: heavy.platformId });
    await counted.close();
    expect(data.customer.data.activities.data.map((a: any) => a.description)).toEqual([
      'Bonus 1',
      'Bonus 2',
      'Bonus 3',
      'Bonus 4',
      'Bonus 5',
    ]);
    expect(data.customer.data.rewards.data.map((c: any) => c.code)).toEqual(['HEAVY-1', 'HEAVY-2', 'HEAVY-3']);

    // the panel's statement, planned for any customer (a generic plan) and for her
    const { strings, values } = JSON.parse(statements.at(-1)!) as { strings: string[]; values: unknown[] };
    const text = strings.reduce((sql, part, i) => `${sql}$${i}${part}`);
    const args = values.map((v) => `'${String(v)}'`).join(', ');
    const scans = async (mode: string) => {
      const [
        {
          'QUERY PLAN': [plan],
        },
      ] = await app.db.$transaction(async (tx) => {
        await tx.$executeRawUnsafe(`SET LOCAL plan_cache_mode = ${mode}`);
        await tx.$executeRawUnsafe(`PREPARE heavy_panel AS ${text}`);
        const explained = await tx.$queryRawUnsafe<any[]>(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE heavy_panel(${args})`);
        await tx.$executeRawUnsafe('DEALLOCATE heavy_panel');
        return explained;
      });
      // each scan of her activities and codes (not of her pending activities): how, and the rows
      // it returned over all its loops
      const found: { table: string; how: string; rows: number }[] = [];
      const walk = (node: any) => {
        const table = node['Relation Name'];
        if ((table === 'activities' && !/pending/.test(node['Index Name'] ?? '')) || table === 'customer_rewards')
          found.push({ table, how: node['Node Type'], rows: node['Actual Rows'] * node['Actual Loops'] });
        for (const inner of node.Plans ?? []) walk(inner);
      };
      walk(plan.Plan);
      return found;
    };
    // her five latest activities and three latest codes (and on PostgreSQL before 17 the one past
    // them that stops the scan), from the index alone: the ordered scan of a table's few-rows
    // customer costs what a bitmap scan and a sort cost unless it reads no table page (then
    // half), and the bitmap plan reads all 20,000 (5,000) of hers
    for (const mode of ['force_generic_plan', 'force_custom_plan']) {
      const found = await scans(mode);
      expect(found.map(({ table, how }) => [table, how]).sort()).toEqual([
        ['activities', 'Index Only Scan'],
        ['customer_rewards', 'Index Only Scan'],
      ]);
      for (const { table, rows } of found) expect(rows, table).toBeLessThanOrEqual(table === 'activities' ? 6 : 4);
    }
  });
});

describe("the merchant's program, cached on every instance", () => {
  it('is forgotten by every instance when a tier or a setting changes on any of them', async () => {
    const otherDb = createPrisma(app.url, 2);
    // keeping no answers: an answer being kept reads the program at its revisions, so only the
    // program cache's own reads show what it holds (test/cache/answers.test.ts)
    const other = createApp({ db: otherDb, databaseUrl: app.url, config: testConfig({ RESPONSE_CACHE_BYTES: '0' }) });
    const admin = adminClient(app, merchant.admin_token);
    const panelOn = async (instance: { fetch: (url: string, init: RequestInit) => Promise<Response> }) => {
      const res = await instance.fetch('http://loyalty.test/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: PANEL_DOCUMENT, variables: { customer: shopper.platformId } }),
      });
      return ((await res.json()) as any).data.customer.data;
    };
    const here = { fetch: (url: string, init: RequestInit) => app.fetch(new URL(url).pathname, init) };
    const silverName = async (instance: typeof here) => (await panelOn(instance)).tier_status.current_tier.name;
    const rename = (name: string) => app.db.$executeRaw`UPDATE tiers SET name = ${name} WHERE id = ${silverId}::uuid`;
    // the other instance keeps the program once its feed is up
    await untilCached(
      () => silverName(other),
      rename,
      (cached) => (cached === 'Silver' ? 'Argent' : 'Silver'),
    );
    // the admin API announces its change in its own transaction: every instance reads it again
    const renamed = await admin(`mutation ($id: ID!) { update_tier(id: $id, input: { name: "Silver+" }) { name } }`, { id: silverId });
    expect(renamed.body.errors).toBeUndefined();
    expect(await silverName(here)).toBe('Silver+');
    await expect.poll(() => silverName(other), { timeout: 10_000 }).toBe('Silver+');
    // and so does a change of the settings: expiry on, its date in the merchant's calendar
    const settings = await admin(
      `mutation { update_merchant_settings(points_expiry_days: 30, timezone: "Pacific/Auckland") { timezone } }`,
    );
    expect(settings.body.errors).toBeUndefined();
    const expiry = (await panelOn(here)).balance.next_expiry;
    expect(expiry).toEqual({ points: 630, expires_at: expect.any(String) });
    // the start of a local day in Auckland: 11:00 or 12:00 UTC
    expect(new Date(expiry.expires_at).getUTCHours()).toBeGreaterThanOrEqual(11);
    const rest = await client(app, key).rest('GET', `/v1/customers/balance?customer_id=${shopper.platformId}`);
    expect(expiry).toEqual(rest.body.data.next_expiry);
    await expect.poll(async () => (await panelOn(other)).balance.next_expiry, { timeout: 10_000 }).toEqual(expiry);
    await other.close();
    await otherDb.$disconnect();
  });
});
