// The graph's connections follow the Relay Cursor Connections spec: down a list with
// first/after, up it with last/before, between two cursors with both, each row once in the
// list's order and pageInfo as the spec reckons it at both ends. A cursor is bound to its list:
// one of another connection, of another customer's list, another merchant's, or naming no row of
// the list is a validation_error naming the argument, never an empty page or another list's rows.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
let merchantId: string;
let api: ReturnType<typeof client>;
let holder: { id: string; platformId: string };
let neighbour: { id: string; platformId: string };
let stranger: { id: string; api: ReturnType<typeof client> };

const ROWS = 45;
const links = [
  ['transactions_connection', 'transactions'],
  ['activities_connection', 'activities'],
] as const;
type Link = (typeof links)[number][0];

/** `count` transactions and activities of a customer; five share one instant, so the id breaks their tie. */
async function history(merchantId: string, customerId: string, count: number) {
  const base = Date.parse('2026-10-01T09:00:00Z');
  const at = (i: number) => new Date(base + (i >= 10 && i < 15 ? 10 : i) * 60_000);
  await app.db.pointsTransaction.createMany({
    data: Array.from({ length: count }, (_, i) => ({
      merchantId,
      customerId,
      points: i + 1,
      type: 'credit' as const,
      source: 'manual' as const,
      description: `#${i}`,
      balanceAfter: ((i + 1) * (i + 2)) / 2,
      createdAt: at(i),
    })),
  });
  await app.db.activity.createMany({
    data: Array.from({ length: count }, (_, i) => ({
      merchantId,
      customerId,
      type: 'adjustment',
      description: `#${i}`,
      pointsChange: i + 1,
      occurredAt: at(i),
      createdAt: at(i),
    })),
  });
}

beforeAll(async () => {
  app = await testApp();
  merchantId = (await newMerchant(app, 'relay')).id;
  api = client(app, await newKey(app, merchantId));
  holder = await newCustomer(app, merchantId);
  neighbour = await newCustomer(app, merchantId);
  await history(merchantId, holder.id, ROWS);
  await history(merchantId, neighbour.id, 3);
  const elsewhere = (await newMerchant(app, 'elsewhere')).id;
  const theirs = await newCustomer(app, elsewhere);
  await history(elsewhere, theirs.id, 3);
  stranger = { id: theirs.id, api: client(app, await newKey(app, elsewhere)) };
});

interface Page {
  edges: { cursor: string; node: { description: string } }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  total_count: number;
}

interface Window {
  first?: number;
  after?: string | null;
  last?: number;
  before?: string | null;
}

/** One read of a customer's connection: its page, or its errors. */
async function read(link: Link, window: Window, customer = holder.id, as = api) {
  const res = await as.gql(
    `query ($id: ID!, $first: Int, $after: String, $last: Int, $before: String) { customer(id: $id) { data {
      ${link}(first: $first, after: $after, last: $last, before: $before) {
        edges { cursor node { description } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } total_count
      } } } }`,
    { id: customer, ...window },
  );
  return { page: res.body.data?.customer?.data?.[link] as Page | null, errors: res.body.errors };
}

async function page(link: Link, window: Window, customer = holder.id, as = api) {
  const { page, errors } = await read(link, window, customer, as);
  expect(errors, JSON.stringify(errors)).toBeUndefined();
  expect(page!.pageInfo.startCursor).toBe(page!.edges[0]?.cursor ?? null);
  expect(page!.pageInfo.endCursor).toBe(page!.edges.at(-1)?.cursor ?? null);
  return page!;
}

/** The rows of the REST twin's list, in its order (their descriptions: one each). */
async function twin(rest: string) {
  const res = await api.rest('GET', `/v1/customers/${rest}?customer_id=${holder.platformId}&per_page=100`);
  expect(res.status).toBe(200);
  return res.body.data.map((r: { description: string }) => r.description) as string[];
}

const ids = (p: Page) => p.edges.map((e) => e.node.description);

describe('paging', () => {
  it.each(links)('scrolls %s down with first/after and up with last/before, each row once in order', async (link, rest) => {
    const expected = await twin(rest);
    expect(expected).toHaveLength(ROWS);

    const down: string[] = [];
    const downInfo: [boolean, boolean][] = [];
    for (let after: string | null = null, guard = 0; guard < 10; guard++) {
      const p = await page(link, { first: 10, after });
      expect(p.total_count).toBe(ROWS);
      down.push(...ids(p));
      downInfo.push([p.pageInfo.hasPreviousPage, p.pageInfo.hasNextPage]);
      if (!p.pageInfo.hasNextPage) break;
      after = p.pageInfo.endCursor;
    }
    expect(down).toEqual(expected);
    // the first page has nothing before it, the last nothing after it
    expect(downInfo).toEqual([
      [false, true],
      [true, true],
      [true, true],
      [true, true],
      [true, false],
    ]);

    const up: string[] = [];
    const upInfo: [boolean, boolean][] = [];
    for (let before: string | null = null, guard = 0; guard < 10; guard++) {
      const p = await page(link, { last: 10, before });
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
  });

  it('reads between two cursors, from either end, with pageInfo as the spec reckons it', async () => {
    const all = await page('transactions_connection', { first: ROWS });
    const expected = ids(all);
    const cursor = (i: number) => all.edges[i]!.cursor;
    expect(all.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });

    const range = await page('transactions_connection', { first: 100, after: cursor(9), before: cursor(20) });
    expect(ids(range)).toEqual(expected.slice(10, 20));
    expect(range.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });

    const tail = await page('transactions_connection', { last: 3, after: cursor(9), before: cursor(20) });
    expect(ids(tail)).toEqual(expected.slice(17, 20));
    expect(tail.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: true });
    // the edges' cursors are the cursors of a read down the list
    expect(tail.edges.map((e) => e.cursor)).toEqual([cursor(17), cursor(18), cursor(19)]);

    // first with before: the first rows above the cursor; last with after: the last rows below it
    const top = await page('transactions_connection', { first: 3, before: cursor(2) });
    expect(ids(top)).toEqual(expected.slice(0, 2));
    expect(top.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: false });
    const bottom = await page('transactions_connection', { last: 2, after: cursor(42) });
    expect(ids(bottom)).toEqual(expected.slice(43));
    expect(bottom.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: false });

    // the default window is the first 20
    const plain = await page('transactions_connection', {});
    expect(ids(plain)).toEqual(expected.slice(0, 20));
    expect(plain.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: true });
  });

  it('answers an empty list with an empty pageInfo', async () => {
    const empty = await newCustomer(app, merchantId);
    expect(await page('transactions_connection', { last: 5 }, empty.id)).toEqual({
      edges: [],
      pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
      total_count: 0,
    });
  });
});

/** The refusal of a read: the link is null, with one validation_error whose details name `arg` alone. */
async function refused(link: Link, window: Window, arg: string, customer = holder.id) {
  const { page, errors } = await read(link, window, customer);
  expect(page, JSON.stringify(window)).toBeNull();
  expect(errors, JSON.stringify(window)).toHaveLength(1);
  expect(errors![0]).toMatchObject({ path: ['customer', 'data', link], extensions: { code: 'validation_error' } });
  expect(Object.keys(errors![0].extensions.details), JSON.stringify(window)).toEqual([arg]);
  return errors![0].extensions.details[arg][0] as string;
}

const text = (cursor: string) => Buffer.from(cursor, 'base64url').toString();
const encoded = (text: string) => Buffer.from(text).toString('base64url');

describe('a cursor is bound to its list', () => {
  it('refuses first with last, and either out of 1 to 100, naming the argument', async () => {
    expect(await refused('transactions_connection', { first: 5, last: 5 }, 'last')).toMatch(/cannot be given with first/);
    await refused('transactions_connection', { last: 0 }, 'last');
    await refused('transactions_connection', { last: 101 }, 'last');
    await refused('activities_connection', { first: 101 }, 'first');
  });

  it.each(['after', 'before'] as const)('refuses as `%s` every cursor that is not of this list', async (arg) => {
    const mine = (await page('transactions_connection', { first: 2 })).edges[1]!.cursor;
    const activity = (await page('activities_connection', { first: 1 })).edges[0]!.cursor;
    const neighbours = (await page('transactions_connection', { first: 1 }, neighbour.id)).edges[0]!.cursor;
    const theirs = (await page('transactions_connection', { first: 1 }, stranger.id, stranger.api)).edges[0]!.cursor;
    // the same list and owner, another position: a row that does not exist, and the neighbour's row
    const [, list, owner] = text(mine).split(':');
    const position = (id: string) => encoded(`v1:${list}:${owner}:${id}`);
    const neighboursRow = text(neighbours).split(':').at(-1)!;

    expect(await refused('transactions_connection', { [arg]: activity }, arg)).toBe(
      'is a cursor of activities_connection, not of this connection',
    );
    expect(await refused('transactions_connection', { [arg]: neighbours }, arg)).toBe(
      'is a cursor of this connection for another customer',
    );
    expect(await refused('transactions_connection', { [arg]: theirs }, arg)).toBe('is a cursor of this connection for another customer');
    expect(await refused('transactions_connection', { [arg]: position(randomUUID()) }, arg)).toBe('names no row of this list');
    expect(await refused('transactions_connection', { [arg]: position(neighboursRow) }, arg)).toBe('names no row of this list');
    // malformed: not base64url text, another version, the form cursors had before they were bound
    for (const bad of ['nope', encoded('hello'), encoded(text(mine).replace(/^v1:/, 'v0:')), encoded(`cursor:${randomUUID()}`)]) {
      expect(await refused('transactions_connection', { [arg]: bad }, arg)).toBe('is not a cursor of this list');
    }
    // the cursor itself is good
    expect((await page('transactions_connection', { [arg]: mine })).edges.length).toBeGreaterThan(0);
  });

  it("reads a page of customers' lists: the cursor's own customer gets its rows, the others the refusal", async () => {
    const mine = (await page('transactions_connection', { first: 40 })).pageInfo.endCursor;
    const res = await api.gql(
      `query ($after: String) { customers(per_page: 100) { data { id transactions_connection(first: 10, after: $after) { edges { cursor } } } } }`,
      { after: mine },
    );
    const customers = res.body.data.customers.data as { id: string; transactions_connection: { edges: unknown[] } | null }[];
    expect(customers.find((c) => c.id === holder.id)!.transactions_connection!.edges).toHaveLength(ROWS - 40);
    const others = customers.filter((c) => c.id !== holder.id);
    expect(others.length).toBeGreaterThan(0);
    expect(others.every((c) => c.transactions_connection === null)).toBe(true);
    expect(res.body.errors).toHaveLength(others.length);
    for (const error of res.body.errors!) {
      expect(error.extensions).toMatchObject({
        code: 'validation_error',
        details: { after: ['is a cursor of this connection for another customer'] },
      });
    }
  });
});
