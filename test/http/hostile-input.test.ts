// Every route tried with 2,500 generated hostile requests (wrong types,
// huge numbers and strings, unicode, injection, duplicated parameters, wrong content
// types, other merchants' ids): never a 5xx, every error in the envelope, and a refused
// request changes no balance. GraphQL's transports and faces: graphql-errors.test.ts.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorStatus } from '../../src/domain/shared/errors.js';
import { restRoutes } from '../../src/http/rest/routes.js';
import { newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
let merchantId: string;
let key: string;
const ids: string[] = [];
const merchants: string[] = [];

beforeAll(async () => {
  app = await testApp();
  merchantId = (await newMerchant(app, 'hostile')).id;
  key = await newKey(app, merchantId);
  for (let i = 0; i < 3; i++) ids.push((await newCustomer(app, merchantId, { customerId: `h-${i}`, points: 50 })).platformId);
  const other = await newMerchant(app, 'victim');
  merchants.push(merchantId, other.id);
  ids.push((await newCustomer(app, other.id, { customerId: 'victim-1', points: 50 })).platformId);
  const reward = await app.db.reward.create({
    data: { merchantId: other.id, name: 'Not yours', rewardType: 'free_shipping', pointsCost: 1, rewardRule: {} },
  });
  ids.push(reward.id);
});

const nasty = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    "' OR 1=1 --",
    '"; DROP TABLE customers; --',
    '\u0000',
    'a\u0000b',
    '%00',
    '../../etc/passwd',
    '{"$ne":null}',
    '__proto__',
    'constructor',
    '💥'.repeat(50),
    'x'.repeat(5000),
    '-1',
    '0',
    '1e308',
    'NaN',
    'Infinity',
    'true',
    'null',
    '2147483648',
    '-2147483649',
    '9007199254740993',
    ' ',
    '%',
    '_',
    'h-0',
    'victim-1',
  ),
  fc.integer().map(String),
  fc.nat(4).map((i) => ids[i] ?? 'none'), // real ids, ours and another merchant's
);

const jsonNasty = fc.oneof(
  nasty,
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, 1.5, 2 ** 31, -(2 ** 31) - 1, Number.MAX_SAFE_INTEGER, 1e308, -1e308, true, false, null),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
);

const paramNames = [
  'customer_id',
  'email',
  'page',
  'per_page',
  'reward_type',
  'campaign_type',
  'reward_id',
  'points',
  'description',
  'subtotal',
  'id',
];

const requestArb = fc.record({
  route: fc.constantFrom(...restRoutes),
  pathId: nasty,
  query: fc.array(fc.tuple(fc.constantFrom(...paramNames, 'x'), nasty), { maxLength: 4 }),
  body: fc.oneof(
    fc.dictionary(fc.constantFrom(...paramNames, 'line_items', 'currency'), jsonNasty, { maxKeys: 5 }).map((o) => JSON.stringify(o)),
    fc.constantFrom('{', 'null', '[]', '"str"', '42', '', '{"points": 1, "points": -1000, "description": "dup"}'),
    fc.string({ maxLength: 50 }),
  ),
  contentType: fc.constantFrom('application/json', 'text/plain', undefined, 'application/json; charset=utf-8'),
  method: fc.constantFrom<'route' | 'GET' | 'POST' | 'PUT'>('route', 'route', 'route', 'GET', 'POST', 'PUT'),
});

async function ledgerState() {
  const [balances, transactions] = await Promise.all([
    app.db.customer.aggregate({ where: { merchantId: { in: merchants } }, _sum: { pointsBalance: true } }),
    app.db.pointsTransaction.count({ where: { merchantId: { in: merchants } } }),
  ]);
  return { balance: balances._sum.pointsBalance, transactions };
}

describe('hostile input', () => {
  it('never answers 5xx, always the envelope, and refused requests change nothing', async () => {
    await fc.assert(
      fc.asyncProperty(requestArb, async (req) => {
        const path = req.route.path.replace(/:\w+/, encodeURIComponent(req.pathId));
        const search = new URLSearchParams(req.query).toString();
        const method = req.method === 'route' ? req.route.method : req.method;
        const before = method === 'GET' ? undefined : await ledgerState(); // only writes can change it
        const res = await app.fetch(`/v1${path}${search ? `?${search}` : ''}`, {
          method,
          headers: { authorization: `Bearer ${key}`, ...(req.contentType ? { 'content-type': req.contentType } : {}) },
          body: method === 'GET' ? undefined : req.body,
        });
        const text = await res.text();
        expect(res.status, `${method} ${path}?${search} ${req.body} → ${text}`).toBeLessThan(500);
        if (res.status >= 400) {
          const body = JSON.parse(text);
          expect(body.error).toEqual(expect.objectContaining({ code: expect.any(String), message: expect.any(String) }));
          if (before) expect(await ledgerState()).toEqual(before);
        }
      }),
      { numRuns: 2000, seed: 20261121 },
    );
  }, 600_000);

  it('answers GraphQL garbage with errors, each with a code of the table, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 100 }),
          fc.constantFrom(
            '{ rewards(per_page: 1e400) { data { id } } }',
            '{ customer(id: "\\u0000") { data { id } } }',
            '{ a: rewards { data { id } } b: rewards { data { id } } c: rewards { data { id } } d: rewards { data { id } } e: rewards { data { id } } f: rewards { data { id } } g: rewards { data { id } } h: rewards { data { id } } i: rewards { data { id } } j: rewards { data { id } } k: rewards { data { id } } l: rewards { data { id } } m: rewards { data { id } } n: rewards { data { id } } o: rewards { data { id } } p: rewards { data { id } } }',
            '{ __schema { types { name fields { name type { name ofType { name ofType { name ofType { name } } } } } } } }',
            'mutation { create_customer_transaction(customer_id: "h-0", points: 2147483647, description: "x") { data { points } } }',
            'subscription { rewards { data { id } } }',
            '{ a { a { a { a { a { a { a { a { a { a { b } } } } } } } } } } }',
          ),
        ),
        fc.option(fc.dictionary(fc.string({ maxLength: 5 }), jsonNasty, { maxKeys: 3 })),
        async (query, variables) => {
          const res = await app.fetch('/graphql', {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ query, variables }),
          });
          const text = await res.text();
          expect(res.status, text).toBeLessThan(500);
          for (const error of JSON.parse(text).errors ?? []) expect(Object.keys(errorStatus), text).toContain(error.extensions?.code);
        },
      ),
      { numRuns: 500, seed: 7 },
    );
  }, 300_000);
});

describe('malformed paths', () => {
  it.each(['/v1/customers/%E0%A4%A', '/v1/rewards/%E0%A4%A', '/v1/customers/%', '/v1/rewards/%zz'])(
    'answers %s with 404 not_found in the envelope, not a 500',
    async (path) => {
      const res = await app.fetch(path, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(404);
      expect((await res.json()).error.code).toBe('not_found');
    },
  );
});
