// The events feed (GET /v1/events, events / events_connection on /graphql, webhook_events on
// the admin API), black-box: an integrator whose endpoint was disabled while things changed
// catches up from the feed alone. Deliveries are made by the dispatcher (queue jobs stubbed: no
// worker runs, so a delivery stays pending until the test attempts it).
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { expirePoints } from '../../src/domain/ledger/expiry.js';
import { rowKey } from '../../src/domain/shared/keys.js';
import { attemptDelivery, dispatchOutbox } from '../../src/domain/webhooks/deliveries.js';
import { projectRoot } from '../../src/project-root.js';
import { adminClient, client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;

beforeAll(async () => {
  process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'true';
  app = await testApp({ ownDatabase: true });
});

/** One dispatcher pass for the merchant's events; the jobs it queues are never worked. */
async function dispatch() {
  const conn = new pg.Client({ connectionString: app.url });
  await conn.connect();
  try {
    await dispatchOutbox(conn, async () => {});
  } finally {
    await conn.end();
  }
}

/** Attempts every pending delivery of the merchant once, the receiver answering `status`. */
async function deliverPending(merchantId: string, status = 200) {
  const pending = await app.db.webhookDelivery.findMany({ where: { merchantId, status: 'pending' } });
  for (const d of pending) {
    await attemptDelivery(
      app.db,
      { merchantId, deliveryId: d.id },
      { send: async () => ({ status, response: 'ok' }), windowMs: 86_400_000 },
    );
  }
  return pending.length;
}

async function shop(label = 'feed') {
  const merchant = await newMerchant(app, label);
  const admin = adminClient(app, merchant.admin_token);
  const created = await admin(`mutation($url: String!) { create_webhook_endpoint(url: $url) { id } }`, { url: 'http://127.0.0.1:9/hook' });
  expect(created.body.errors).toBeUndefined();
  const reward = await app.db.reward.create({
    data: { merchantId: merchant.id, name: '$5 off', rewardType: 'fixed_discount', pointsCost: 100, rewardRule: { discount_value: 5 } },
  });
  return {
    merchant,
    admin,
    reward,
    endpointId: created.body.data.create_webhook_endpoint.id as string,
    api: client(app, await newKey(app, merchant.id)),
    feed: client(app, await newKey(app, merchant.id, 'custom', { events: 'read' })),
  };
}

type Feed = ReturnType<typeof client>;
interface FeedEvent {
  id: string;
  type: string;
  created_at: string;
  version: number;
  data: any;
}

/** Every event of the REST feed, page after page by `starting_after`. */
async function readAllRest(feed: Feed, query = '') {
  const events: FeedEvent[] = [];
  for (let after: string | undefined; ; ) {
    const res = await feed.rest('GET', `/v1/events?per_page=4${query}${after ? `&starting_after=${after}` : ''}`);
    expect(res.status).toBe(200);
    events.push(...res.body.data);
    if (!res.body.meta.pagination.has_more) return events;
    after = res.body.data.at(-1).id;
  }
}

/** Every event of the GraphQL connection, by cursor. */
async function readAllGraphql(feed: Feed) {
  const events: FeedEvent[] = [];
  for (let after: string | null = null; ; ) {
    const res = await feed.gql(
      `query($after: String) { events_connection(first: 3, after: $after) {
         edges { cursor node { id type created_at version data } } pageInfo { hasNextPage endCursor } total_count } }`,
      { after },
    );
    expect(res.body.errors).toBeUndefined();
    const page = res.body.data.events_connection;
    events.push(...page.edges.map((e: { node: FeedEvent }) => e.node));
    if (!page.pageInfo.hasNextPage) return events;
    after = page.pageInfo.endCursor;
  }
}

/** What a consumer does: each customer's balance from points.credited / points.debited alone, each event id once. */
function balancesFrom(events: FeedEvent[]) {
  const seen = new Set<string>();
  const balances = new Map<string, number>();
  for (const e of events) {
    if (seen.has(e.id)) continue;
    seen.add(e.id);
    if (e.type === 'points.credited' || e.type === 'points.debited') {
      const id = e.data.customer.customer_id as string;
      balances.set(id, (balances.get(id) ?? 0) + e.data.points);
    }
  }
  return balances;
}

describe('catching up after an endpoint was disabled', () => {
  it('rebuilds every balance from the feed alone', async () => {
    const { merchant, admin, reward, endpointId, api, feed } = await shop();
    const customers = [await newCustomer(app, merchant.id), await newCustomer(app, merchant.id), await newCustomer(app, merchant.id)];
    const credit = (platformId: string, points: number) =>
      api.rest('POST', `/v1/customers/transactions?customer_id=${platformId}`, { points, description: 'feed test' });
    for (const [i, c] of customers.entries()) expect((await credit(c.platformId, 100 * (i + 1))).status).toBe(201);
    await dispatch();
    await deliverPending(merchant.id);
    // 3 customer.created, 3 credits
    expect(await app.db.webhookDelivery.count({ where: { merchantId: merchant.id, endpointId } })).toBe(6);

    const disable = await admin(`mutation($id: ID!) { update_webhook_endpoint(id: $id, enabled: false) { enabled } }`, { id: endpointId });
    expect(disable.body.data.update_webhook_endpoint.enabled).toBe(false);
    const sinceDisabled = new Date();
    const [a, b, c] = customers as [(typeof customers)[number], (typeof customers)[number], (typeof customers)[number]];
    expect((await credit(a.platformId, 250)).status).toBe(201);
    expect((await credit(b.platformId, -50)).status).toBe(201);
    expect((await api.rest('POST', `/v1/customers/rewards/redeem?customer_id=${a.platformId}`, { reward_id: reward.id })).status).toBe(201);
    expect((await credit(a.platformId, -1000)).status).toBe(422); // refused: no event either
    // c's points expire
    await app.db.merchant.update({ where: { id: merchant.id }, data: { pointsExpiryDays: 30 } });
    await app.db.customer.update({ where: rowKey(merchant.id, c.id), data: { lastActivityAt: new Date(Date.now() - 40 * 86_400_000) } });
    await expirePoints(app.db, { merchantId: merchant.id });
    await dispatch();
    const enable = await admin(`mutation($id: ID!) { update_webhook_endpoint(id: $id, enabled: true) { enabled } }`, { id: endpointId });
    expect(enable.body.data.update_webhook_endpoint.enabled).toBe(true);
    await dispatch();
    expect(await deliverPending(merchant.id)).toBe(0);

    // what happened while it was disabled was never sent: the admin API shows no delivery for it
    const missed = await admin(
      `query($after: DateTime) { webhook_events(created_after: $after, per_page: 100) { data { id type deliveries { status } } } }`,
      { after: sinceDisabled.toISOString() },
    );
    expect(missed.body.errors).toBeUndefined();
    const missedTypes = missed.body.data.webhook_events.data.map((e: { type: string }) => e.type).sort();
    expect(missedTypes).toEqual([
      'points.credited',
      'points.debited',
      'points.debited',
      'points.debited',
      'points.expired',
      'reward.redeemed',
    ]);
    for (const e of missed.body.data.webhook_events.data) expect(e.deliveries).toEqual([]);

    const rest = await readAllRest(feed);
    const graph = await readAllGraphql(feed);
    expect(rest.length).toBe(6 + 6);
    expect(new Set(rest.map((e) => e.id)).size).toBe(rest.length);
    expect(graph).toEqual(rest);
    const rebuilt = balancesFrom(rest);
    for (const customer of customers) {
      const balance = await api.rest('GET', `/v1/customers/balance?customer_id=${customer.platformId}`);
      expect(rebuilt.get(customer.platformId) ?? 0).toBe(balance.body.data.points_balance);
    }
    expect(customers.map((x) => rebuilt.get(x.platformId))).toEqual([100 + 250 - 100, 200 - 50, 0]);

    // each event shows exactly what its deliveries send
    const stored = await app.db.outboxEvent.findMany({ where: { merchantId: merchant.id } });
    for (const e of rest) {
      const body = JSON.parse(stored.find((s) => s.id === e.id)!.body);
      expect(e).toEqual({ id: body.id, type: body.type, created_at: body.created_at, version: body.version ?? 1, data: body.data });
    }
    // newest first
    expect(rest.map((e) => e.created_at)).toEqual(
      rest
        .map((e) => e.created_at)
        .sort()
        .reverse(),
    );
  });

  it('pages by number as by event, whatever is written meanwhile', async () => {
    const { merchant, api, feed } = await shop();
    const customer = await newCustomer(app, merchant.id);
    for (let i = 1; i <= 6; i++)
      await api.rest('POST', `/v1/customers/transactions?customer_id=${customer.platformId}`, { points: i, description: `#${i}` });
    const first = await feed.rest('GET', '/v1/events?per_page=3');
    expect(first.body.meta.pagination).toEqual({ current_page: 1, per_page: 3, total: 7, last_page: 3, has_more: true });
    const second = await feed.rest('GET', '/v1/events?per_page=3&page=2');
    // written between two pages: shifts the page numbers, never what follows an event
    await api.rest('POST', `/v1/customers/transactions?customer_id=${customer.platformId}`, { points: 7, description: '#7' });
    const after = await feed.rest('GET', `/v1/events?per_page=3&starting_after=${first.body.data.at(-1).id}`);
    expect(after.body.data).toEqual(second.body.data);
    expect(after.body.meta.pagination).toMatchObject({ total: 4, has_more: true });
    const shifted = await feed.rest('GET', '/v1/events?per_page=3&page=2');
    expect(shifted.body.data[0]).toEqual(first.body.data.at(-1));
  });
});

describe('the connection', () => {
  /** A shop with 45 events: two statements of customers, so events tie on their time within each (the id breaks it). */
  async function busyShop(label: string) {
    const shopped = await shop(label);
    for (const [batch, count] of [20, 25].entries()) {
      await app.db.customer.createMany({
        data: Array.from({ length: count }, (_, i) => ({
          merchantId: shopped.merchant.id,
          platformId: `${label}-${batch}-${i}`,
          email: `${label}-${batch}-${i}@example.com`,
          referralCode: `${label}${batch}x${i}`.toUpperCase(),
        })),
      });
    }
    return shopped;
  }

  interface Page {
    edges: { cursor: string; node: { id: string } }[];
    pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  }

  async function read(feed: Feed, window: { first?: number; after?: string | null; last?: number; before?: string | null }) {
    const res = await feed.gql(
      `query($first: Int, $after: String, $last: Int, $before: String) {
         events_connection(first: $first, after: $after, last: $last, before: $before) {
           edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`,
      window,
    );
    return { page: (res.body.data?.events_connection ?? null) as Page | null, errors: res.body.errors };
  }

  async function page(feed: Feed, window: Parameters<typeof read>[1]) {
    const { page, errors } = await read(feed, window);
    expect(errors, JSON.stringify(errors)).toBeUndefined();
    expect([page!.pageInfo.startCursor, page!.pageInfo.endCursor]).toEqual([
      page!.edges[0]?.cursor ?? null,
      page!.edges.at(-1)?.cursor ?? null,
    ]);
    return page!;
  }

  const ids = (p: Page) => p.edges.map((e) => e.node.id);

  it('pages down with first/after and up with last/before, each event once in order, pageInfo right at both ends', async () => {
    const { feed } = await busyShop('relay');
    const expected = (await readAllRest(feed)).map((e) => e.id);
    expect(expected).toHaveLength(45);

    const down: string[] = [];
    const downInfo: boolean[][] = [];
    for (let after: string | null = null, guard = 0; guard < 10; guard++) {
      const p = await page(feed, { first: 10, after });
      down.push(...ids(p));
      downInfo.push([p.pageInfo.hasPreviousPage, p.pageInfo.hasNextPage]);
      if (!p.pageInfo.hasNextPage) break;
      after = p.pageInfo.endCursor;
    }
    expect(down).toEqual(expected);
    expect(downInfo).toEqual([
      [false, true],
      [true, true],
      [true, true],
      [true, true],
      [true, false],
    ]);

    const up: string[] = [];
    const upInfo: boolean[][] = [];
    for (let before: string | null = null, guard = 0; guard < 10; guard++) {
      const p = await page(feed, { last: 10, before });
      up.unshift(...ids(p));
      upInfo.push([p.pageInfo.hasPreviousPage, p.pageInfo.hasNextPage]);
      if (!p.pageInfo.hasPreviousPage) break;
      before = p.pageInfo.startCursor;
    }
    expect(up).toEqual(expected);
    expect(upInfo).toEqual([
      [true, false],
      [true, true],
      [true, true],
      [true, true],
      [false, true],
    ]);

    const all = await page(feed, { first: 45 });
    const range = await page(feed, { last: 3, after: all.edges[9]!.cursor, before: all.edges[20]!.cursor });
    expect(ids(range)).toEqual(expected.slice(17, 20));
    expect(range.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: true });
  });

  it('keeps a cursor a position after its event is forgotten', async () => {
    const { merchant, feed } = await busyShop('pruned');
    const top = await page(feed, { first: 5 });
    const next = await page(feed, { first: 5, after: top.pageInfo.endCursor });
    const above = await page(feed, { last: 5, before: next.pageInfo.startCursor });
    await app.db.outboxEvent.deleteMany({
      where: { merchantId: merchant.id, id: { in: [...ids(top).slice(-1), ...ids(next).slice(0, 1)] } },
    });
    expect(ids(await page(feed, { first: 4, after: top.pageInfo.endCursor }))).toEqual(ids(next).slice(1));
    expect(ids(await page(feed, { last: 4, before: next.pageInfo.startCursor }))).toEqual(ids(above).slice(0, -1));
  });

  it("refuses, naming the argument, a cursor of another merchant's feed, of another connection, or none", async () => {
    const mine = await shop('mine');
    const theirs = await busyShop('theirs');
    const customer = await newCustomer(app, mine.merchant.id);
    await mine.api.rest('POST', `/v1/customers/transactions?customer_id=${customer.platformId}`, { points: 5, description: 'x' });
    const refused = async (window: Parameters<typeof read>[1], arg: string) => {
      const { page, errors } = await read(mine.feed, window);
      expect(page).toBeNull();
      expect(errors![0].extensions.code).toBe('validation_error');
      expect(Object.keys(errors![0].extensions.details)).toEqual([arg]);
      return errors![0].extensions.details[arg][0];
    };
    const theirCursor = (await page(theirs.feed, { first: 3 })).pageInfo.endCursor!;
    const mineCursor = (await page(mine.feed, { first: 1 })).pageInfo.endCursor!;
    const history = await mine.api.gql(
      `{ customer(id: "${customer.id}") { data { transactions_connection { pageInfo { endCursor } } } } }`,
    );
    const listCursor = history.body.data.customer.data.transactions_connection.pageInfo.endCursor;
    for (const arg of ['after', 'before']) {
      expect(await refused({ [arg]: theirCursor }, arg)).toBe('is a cursor of this connection for another merchant');
      expect(await refused({ [arg]: listCursor }, arg)).toBe('is a cursor of transactions_connection, not of this connection');
      // the form feed cursors had before they were bound to a feed
      const unbound = Buffer.from(`event:${new Date().toISOString()}|${randomUUID()}`).toString('base64url');
      expect(await refused({ [arg]: unbound }, arg)).toBe('is not a cursor of this list');
      // the feed's own list and owner with a made-up position: a time no event can have is none
      const [, list, owner] = Buffer.from(mineCursor, 'base64url').toString().split(':');
      const at = (time: string) => Buffer.from(`v1:${list}:${owner}:${time}|${randomUUID()}`).toString('base64url');
      for (const time of ['-200000-01-01T00:00:00.000Z', '0000-01-01T00:00:00.000Z', '2026-02-30T00:00:00.000Z', '2026-11-01T00:00:00Z']) {
        expect(await refused({ [arg]: at(time) }, arg), time).toBe('is not a cursor of this list');
      }
      // and a time it can: a position, though no event is there
      expect((await page(mine.feed, { first: 5, [arg]: at('9999-12-31T23:59:59.999Z') })).edges).toHaveLength(arg === 'after' ? 2 : 0);
    }
    expect(await refused({ first: 2, last: 2 }, 'last')).toMatch(/cannot be given with first/);
    expect(await refused({ last: 101 }, 'last')).toBe('must be between 1 and 100');
  });
});

describe('filters', () => {
  it('by type, customer, time and delivery state, on REST, GraphQL and the admin API', async () => {
    const { merchant, admin, api, feed } = await shop();
    const [a, b] = [await newCustomer(app, merchant.id), await newCustomer(app, merchant.id)];
    await dispatch();
    await deliverPending(merchant.id); // the two customer.created: delivered
    const between = new Date();
    await api.rest('POST', `/v1/customers/transactions?customer_id=${a.platformId}`, { points: 10, description: 'x' });
    await api.rest('POST', `/v1/customers/transactions?customer_id=${b.platformId}`, { points: 20, description: 'x' });
    await api.rest('POST', `/v1/customers/transactions?customer_id=${b.platformId}`, { points: -5, description: 'x' });
    await dispatch();
    await deliverPending(merchant.id, 500); // the three points events: failing, retried (pending)

    const types = async (query: string) => {
      const res = await feed.rest('GET', `/v1/events?per_page=100${query}`);
      expect(res.status).toBe(200);
      return res.body.data.map((e: FeedEvent) => e.type).sort();
    };
    expect(await types('&types=points.debited')).toEqual(['points.debited']);
    const both = ['customer.created', 'customer.created', 'points.debited'];
    expect(await types('&types=points.debited&types=customer.created')).toEqual(both);
    expect(await types('&types[]=points.debited&types[]=customer.created')).toEqual(both);
    expect(await types('&types=points.debited,customer.created')).toEqual(both);
    expect(await types(`&customer_id=${b.platformId}`)).toEqual(['customer.created', 'points.credited', 'points.debited']);
    expect(await types(`&customer_id=${a.platformId}&types=points.credited`)).toEqual(['points.credited']);
    expect(await types(`&created_after=${between.toISOString()}`)).toEqual(['points.credited', 'points.credited', 'points.debited']);
    expect(await types(`&created_before=${between.toISOString()}`)).toEqual(['customer.created', 'customer.created']);
    expect(await types('&delivery_success=true')).toEqual(['customer.created', 'customer.created']);
    expect(await types('&delivery_success=false')).toEqual(['points.credited', 'points.credited', 'points.debited']);

    const gql = await feed.gql(
      `query($c: String) { events(customer_id: $c, types: ["points.credited"]) { data { type data } }
         events_connection(customer_id: $c, delivery_success: false) { total_count edges { node { type } } } }`,
      { c: b.platformId },
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.events.data).toEqual([
      { type: 'points.credited', data: expect.objectContaining({ points: 20, customer: expect.objectContaining({ id: b.id }) }) },
    ]);
    expect(gql.body.data.events_connection.total_count).toBe(2);

    const adminView = await admin(`{ webhook_events(delivery_success: false, types: ["points.debited"]) {
      data { type deliveries { endpoint_id status attempts last_status } } } }`);
    expect(adminView.body.errors).toBeUndefined();
    expect(adminView.body.data.webhook_events.data).toEqual([
      { type: 'points.debited', deliveries: [expect.objectContaining({ status: 'pending', attempts: 1, last_status: 500 })] },
    ]);
  });
});

describe('access', () => {
  it('needs read:events, which Full Access and Read-Only keys have', async () => {
    const { merchant, feed } = await shop();
    await newCustomer(app, merchant.id);
    const without = client(app, await newKey(app, merchant.id, 'custom', { customers: 'write', transactions: 'write' }));
    const rest = await without.rest('GET', '/v1/events');
    expect(rest.status).toBe(403);
    expect(rest.body.error).toMatchObject({ code: 'insufficient_scope', message: expect.stringContaining('read:events') });
    const gql = await without.gql('{ events { data { id } } }');
    expect(gql.body.errors?.[0]).toMatchObject({ extensions: { code: 'insufficient_scope' } });
    const connection = await without.gql('{ events_connection { total_count } }');
    expect(connection.body.errors?.[0]).toMatchObject({ extensions: { code: 'insufficient_scope' } });
    for (const type of ['full', 'read_only'] as const) {
      const res = await client(app, await newKey(app, merchant.id, type)).rest('GET', '/v1/events');
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(1);
    }
    expect((await feed.rest('GET', '/v1/events')).body.data).toHaveLength(1);
  });

  it("never shows another merchant's events", async () => {
    const mine = await shop('mine');
    const theirs = await shop('theirs');
    const customer = await newCustomer(app, mine.merchant.id);
    await mine.api.rest('POST', `/v1/customers/transactions?customer_id=${customer.platformId}`, { points: 5, description: 'x' });
    const myEvents = (await mine.feed.rest('GET', '/v1/events')).body.data as FeedEvent[];
    expect(myEvents).toHaveLength(2);
    const list = await theirs.feed.rest('GET', '/v1/events');
    expect(list.body).toMatchObject({ data: [], meta: { pagination: { total: 0 } } });
    expect((await theirs.feed.gql('{ events_connection { total_count } }')).body.data.events_connection.total_count).toBe(0);
    expect((await theirs.admin('{ webhook_events { data { id } } }')).body.data.webhook_events.data).toEqual([]);
    // my event ids and customers name nothing to them
    const after = await theirs.feed.rest('GET', `/v1/events?starting_after=${myEvents[0]!.id}`);
    expect(after.status).toBe(422);
    expect(after.body.error.details).toHaveProperty('starting_after');
    const byCustomer = await theirs.feed.rest('GET', `/v1/events?customer_id=${customer.platformId}`);
    expect(byCustomer.status).toBe(404);
    expect(byCustomer.body.error.code).toBe('not_found');
  });
});

describe('bad input', () => {
  it('is a 4xx with a stable code that names the parameter', async () => {
    const { feed } = await shop();
    const refused = async (query: string, field: string) => {
      const res = await feed.rest('GET', `/v1/events?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.body.error.code).toBe('validation_error');
      expect(Object.keys(res.body.error.details), query).toEqual([field]);
      return res.body.error.details[field] as string[];
    };
    expect(await refused('types=points.credited&types=points.teleported', 'types')).toEqual([
      expect.stringContaining('"points.teleported"'),
    ]);
    await refused('types=points.credited,', 'types');
    await refused('starting_after=not-an-id', 'starting_after');
    await refused('starting_after=00000000-0000-4000-8000-000000000000', 'starting_after');
    // a window that ends before it starts holds nothing; it is no mistake of the request's form
    const inverted = await feed.rest('GET', '/v1/events?created_after=2026-11-02T00:00:00Z&created_before=2026-11-01T00:00:00Z');
    expect([inverted.status, inverted.body.data, inverted.body.meta.pagination.total]).toEqual([200, [], 0]);
    await refused('created_after=yesterday', 'created_after');
    await refused('delivery_success=maybe', 'delivery_success');
    await refused('per_page=101', 'per_page');
    await refused('per_page=0', 'per_page');
    await refused('types[x]=points.credited', 'types');
    const unknown = await feed.rest('GET', '/v1/events?customer_id=nobody');
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'not_found']);

    const graphql = async (args: string) => (await feed.gql(`{ events_connection(${args}) { total_count } }`)).body.errors?.[0];
    expect(await graphql('after: "garbage"')).toMatchObject({
      extensions: { code: 'validation_error', details: { after: ['is not a cursor of this list'] } },
    });
    expect(await graphql('first: 101')).toMatchObject({
      extensions: { code: 'validation_error', details: { first: [expect.any(String)] } },
    });
    expect(await graphql('types: ["nope"]')).toMatchObject({
      extensions: { code: 'validation_error', details: { types: [expect.any(String)] } },
    });
  });
});

describe('retention', () => {
  it('is at least 30 days: a shorter setting is refused', () => {
    expect(() => loadConfig({ ...process.env, WEBHOOK_EVENT_RETENTION_DAYS: '29' })).toThrow(/WEBHOOK_EVENT_RETENTION_DAYS/);
    expect(loadConfig({ ...process.env, WEBHOOK_EVENT_RETENTION_DAYS: '30' }).WEBHOOK_EVENT_RETENTION_DAYS).toBe(30);
  });
});

describe('the docs', () => {
  it('show a request that works: the curl line of docs/events.md, sent as it is', async () => {
    const doc = readFileSync(path.join(projectRoot, 'docs/events.md'), 'utf8');
    const url = /curl -H "Authorization: Bearer lpk_…" \\\n\s+"http:\/\/127\.0\.0\.1:4000(\/v1\/events\?[^"]+)"/.exec(doc)?.[1];
    expect(url, 'the curl example of docs/events.md').toBeDefined();
    const merchant = await newMerchant(app, 'docs');
    const api = client(app, await newKey(app, merchant.id));
    const customer = await newCustomer(app, merchant.id);
    expect(
      (await api.rest('POST', `/v1/customers/transactions?customer_id=${customer.platformId}`, { points: 10, description: 'docs' })).status,
    ).toBe(201);
    const res = await api.rest('GET', url!);
    expect(res.status).toBe(200);
    expect(res.body.data.map((e: { type: string }) => e.type)).toEqual(['points.credited']);
  });
});
