// Relay connections on every list a storefront scrolls: the rewards a customer holds, what it
// can redeem, its referrals and its tier memberships, each read by keyset cursor (down with
// first/after, up with last/before) in exactly the order of its REST twin, beside the
// page-numbered links that stay as they were.
import { beforeAll, describe, expect, it } from 'vitest';
import { client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';
import { restSelection as all } from './rest-selection.js';

let app: TestApp;
let merchantId: string;
let api: ReturnType<typeof client>;
let holder: { id: string; platformId: string };

/** Each connection, its REST twin (path under /v1/customers/) and its item type. */
const lists = [
  ['rewards_connection', 'rewards', 'CustomerReward'],
  ['redeemable_rewards_connection', 'rewards/redeemable', 'Reward'],
  ['referrals_connection', 'referrals', 'Referral'],
  ['memberships_connection', 'memberships', 'Membership'],
] as const;

beforeAll(async () => {
  app = await testApp();
  merchantId = (await newMerchant(app, 'scroll')).id;
  api = client(app, await newKey(app, merchantId));
  const tiers = await Promise.all(
    ['Bronze', 'Silver', 'Gold'].map((name, position) =>
      app.db.tier.create({ data: { merchantId, name, position, threshold: position * 100, isDefault: position === 0 } }),
    ),
  );
  // equal costs: the cursor must break their tie as the list does (newest first: a second
  // apart, as rows made within one millisecond would tie on created_at too)
  const costs = [50, 50, 50, 80, 120, 120, 400, 90_000];
  const rewards = [];
  for (const [i, pointsCost] of costs.entries()) {
    rewards.push(
      await app.db.reward.create({
        data: {
          merchantId,
          name: `Reward ${i}`,
          rewardType: 'fixed_discount',
          pointsCost,
          rewardRule: { discount_value: 5 },
          createdAt: new Date(Date.now() - (costs.length - i) * 1000),
        },
      }),
    );
  }
  const customer = await newCustomer(app, merchantId, { points: 2000 });
  holder = { id: customer.id, platformId: customer.platformId };
  for (const reward of rewards.slice(0, 5)) {
    const redeemed = await api.rest('POST', `/v1/customers/rewards/redeem?customer_id=${holder.platformId}`, { reward_id: reward.id });
    expect(redeemed.status).toBe(201);
  }
  // same-instant rows too: the id breaks the tie
  const at = new Date('2026-11-01T10:00:00Z');
  await app.db.referral.createMany({
    data: [1, 2, 3, 4, 5].map((n) => ({
      merchantId,
      referrerId: customer.id,
      refereeEmail: `friend${n}@example.com`,
      createdAt: n <= 3 ? at : new Date(at.getTime() + n * 60_000),
    })),
  });
  await app.db.tierMembership.createMany({
    data: [0, 1, 2, 3, 4].map((n) => ({
      merchantId,
      customerId: customer.id,
      tierId: tiers[n % 3]!.id,
      status: n === 4 ? ('active' as const) : ('ended' as const),
      startedAt: n < 2 ? at : new Date(at.getTime() + n * 86_400_000),
    })),
  });
});

/** Scrolls a connection two rows at a time to its end (`up`: from its end to its top): every node, in order. */
async function scroll(link: string, itemType: string, up = false) {
  const seen: unknown[] = [];
  let cursor: string | null = null;
  for (let guard = 0; guard < 20; guard++) {
    const window = up ? 'last: 2, before: $cursor' : 'first: 2, after: $cursor';
    const res: any = await api.gql(
      `query Scroll($id: ID!, $cursor: String) { customer(id: $id) { data {
        ${link}(${window}) { edges { cursor node ${all(itemType)} } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } total_count }
      } } }`,
      { id: holder.id, cursor },
    );
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    const { edges, pageInfo, total_count } = res.body.data.customer.data[link];
    expect(edges.length).toBeLessThanOrEqual(2);
    expect([pageInfo.startCursor, pageInfo.endCursor]).toEqual([edges[0]?.cursor ?? null, edges.at(-1)?.cursor ?? null]);
    // the side a page starts from goes on when a cursor was given there
    expect(up ? pageInfo.hasNextPage : pageInfo.hasPreviousPage).toBe(cursor !== null);
    const nodes = edges.map((e: any) => e.node);
    if (up) seen.unshift(...nodes);
    else seen.push(...nodes);
    if (!(up ? pageInfo.hasPreviousPage : pageInfo.hasNextPage)) return { seen, total: total_count as number };
    cursor = up ? pageInfo.startCursor : pageInfo.endCursor;
  }
  throw new Error(`${link} never ended`);
}

describe('Customer connections', () => {
  it.each(lists)('scrolls %s down and up in the order of GET /v1/customers/%s, each row once', async (link, rest, itemType) => {
    const twin = await api.rest('GET', `/v1/customers/${rest}?customer_id=${holder.platformId}&per_page=100`);
    expect(twin.status).toBe(200);
    const { seen, total } = await scroll(link, itemType);
    expect(seen).toEqual(twin.body.data);
    expect(total).toBe(twin.body.meta.pagination.total);
    expect(seen.length).toBeGreaterThan(4);
    expect((await scroll(link, itemType, true)).seen).toEqual(twin.body.data);
  });

  it("refuses a cursor of another of the customer's connections, naming the argument", async () => {
    const held = await api.gql(`{ customer(id: "${holder.id}") { data { rewards_connection(first: 1) { pageInfo { endCursor } } } } }`);
    const cursor = held.body.data.customer.data.rewards_connection.pageInfo.endCursor;
    for (const [link] of lists.filter(([link]) => link !== 'rewards_connection')) {
      const res = await api.gql(
        `query ($c: String) { customer(id: "${holder.id}") { data { ${link}(last: 2, before: $c) { total_count } } } }`,
        {
          c: cursor,
        },
      );
      expect(res.body.data.customer.data[link]).toBeNull();
      expect(res.body.errors![0].extensions).toEqual({
        code: 'validation_error',
        details: { before: ['is a cursor of rewards_connection, not of this connection'] },
      });
    }
  });

  it('keeps a cursor of what a customer can redeem a position when its reward is retired', async () => {
    const read = (after: string | null) =>
      api.gql(
        `query ($after: String) { customer(id: "${holder.id}") { data {
          redeemable_rewards_connection(first: 2, after: $after) { edges { node { name } } pageInfo { endCursor } } } } }`,
        { after },
      );
    const top = (await read(null)).body.data.customer.data.redeemable_rewards_connection;
    const next = (await read(top.pageInfo.endCursor)).body.data.customer.data.redeemable_rewards_connection;
    const retired = top.edges[1].node.name;
    await app.db.reward.updateMany({ where: { merchantId, name: retired }, data: { isActive: false } });
    try {
      const after = await read(top.pageInfo.endCursor);
      expect(after.body.errors).toBeUndefined();
      expect(after.body.data.customer.data.redeemable_rewards_connection.edges).toEqual(next.edges);
    } finally {
      await app.db.reward.updateMany({ where: { merchantId, name: retired }, data: { isActive: true } });
    }
  });

  it('keeps the page-numbered links beside them, unchanged', async () => {
    const res = await api.gql(
      `query ($id: ID!) { customer(id: $id) { data {
        rewards(per_page: 2, page: 2) { meta { pagination { current_page total } } }
        redeemable_rewards(per_page: 2) { data { name } }
        referrals { meta { pagination { total } } }
        memberships { meta { pagination { total } } }
      } } }`,
      { id: holder.id },
    );
    expect(res.body.errors).toBeUndefined();
    const c = res.body.data.customer.data;
    expect(c.rewards.meta.pagination).toEqual({ current_page: 2, total: 5 });
    expect(c.redeemable_rewards.data.map((r: any) => r.name)).toEqual(['Reward 2', 'Reward 1']);
    expect([c.referrals.meta.pagination.total, c.memberships.meta.pagination.total]).toEqual([5, 5]);
  });

  it('refuses a cursor that is not one, on that link only (validation_error)', async () => {
    for (const [link] of lists) {
      const res = await api.gql(`{ customer(id: "${holder.id}") { data { id ${link}(after: "nope") { total_count } } } }`);
      expect(res.body.data.customer.data).toEqual({ id: holder.id, [link]: null });
      expect(res.body.errors![0]).toMatchObject({
        path: ['customer', 'data', link],
        extensions: { code: 'validation_error', details: { after: ['is not a cursor of this list'] } },
      });
    }
    const tooMany = await api.gql(`{ customer(id: "${holder.id}") { data { referrals_connection(first: 101) { total_count } } } }`);
    expect(tooMany.body.errors![0].extensions.code).toBe('validation_error');
  });

  it('gives an excluded customer nothing to redeem', async () => {
    const excluded = await newCustomer(app, merchantId, { points: 5000 });
    await app.db.customer.update({ where: { merchantId_id: { merchantId, id: excluded.id } }, data: { status: 'excluded' } });
    const res = await api.gql(
      `{ customer(id: "${excluded.id}") { data { redeemable_rewards_connection { edges { cursor } pageInfo { hasNextPage endCursor } total_count } } } }`,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.customer.data.redeemable_rewards_connection).toEqual({
      edges: [],
      pageInfo: { hasNextPage: false, endCursor: null },
      total_count: 0,
    });
  });

  it("scrolls a shopper's own lists with its customer session (me)", async () => {
    const minted = await api.gql(`mutation { create_customer_session(customer_id: "${holder.platformId}") { data { token } } }`);
    const token = minted.body.data.create_customer_session.data.token;
    const asShopper = { ...api, gql: client(app, token).gql };
    const twin = await api.rest('GET', `/v1/customers/rewards?customer_id=${holder.platformId}&per_page=100`);
    const seen: unknown[] = [];
    let after: string | null = null;
    do {
      const res: any = await asShopper.gql(
        `query ($after: String) { me { rewards_connection(first: 3, after: $after) { edges { node { id } } pageInfo { hasNextPage endCursor } } } }`,
        { after },
      );
      expect(res.body.errors).toBeUndefined();
      const connection = res.body.data.me.rewards_connection;
      seen.push(...connection.edges.map((e: any) => e.node.id));
      after = connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null;
    } while (after);
    expect(seen).toEqual(twin.body.data.map((r: any) => r.id));
  });
});
