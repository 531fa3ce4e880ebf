// REST arguments held to their types before SOFA reads them, on every route: an input object
// (or a list of them) is a JSON object, never JSON text inside a string; an empty query value
// is refused, never read as absent; NUL in a query parameter or a body field is refused naming
// it. Each is 422 validation_error, as GraphQL refuses the same values in variables.
import { getNamedType, isInputObjectType } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { restSchema } from '../../src/graphql/public.js';
import { restRoutes } from '../../src/http/rest/routes.js';
import { client, newCustomer, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
let api: ReturnType<typeof client>;
let merchantId: string;

beforeAll(async () => {
  app = await testApp();
  merchantId = (await newMerchant(app, 'arguments')).id;
  api = client(app, await newKey(app, merchantId));
  await newCustomer(app, merchantId, { customerId: 'args-1', points: 40 });
});

/** Every route with the arguments of its root field. */
const routes = restRoutes.map((route) => {
  const [type, name] = route.field.split('.') as ['Query' | 'Mutation', string];
  const root = type === 'Query' ? restSchema.getQueryType() : restSchema.getMutationType();
  return { ...route, args: root!.getFields()[name]!.args, path: `/v1${route.path.replace(':id', 'args-1')}` };
});

const inputObjectArgs = routes.flatMap((r) =>
  r.args.filter((a) => isInputObjectType(getNamedType(a.type))).map((arg) => ({ route: r, arg })),
);

async function ledger() {
  const [customer, rows] = await Promise.all([
    app.db.customer.findFirstOrThrow({ where: { merchantId, platformId: 'args-1' } }),
    app.db.pointsTransaction.count({ where: { merchantId } }),
  ]);
  return { balance: customer.pointsBalance, rows };
}

describe('input objects are JSON objects', () => {
  it('the public schema has input-object arguments on REST (the table below is not empty)', () => {
    expect(inputObjectArgs.map(({ route, arg }) => `${route.method} ${route.path} ${arg.name}`)).toContain(
      'POST /v1/points/estimate line_items',
    );
  });

  const item = { product_id: 'p', quantity: 1, price: 10 };
  it.each([
    ['a string that is not JSON, in a list', 'line_items.0', ['AAA']],
    ['JSON text inside a string, in a list', 'line_items.0', [JSON.stringify(item)]],
    ['a string where the list goes', 'line_items', 'x'],
    ['JSON text where the list goes', 'line_items', JSON.stringify([item])],
    ['a number in a list', 'line_items.1', [item, 5]],
    ['a list in a list', 'line_items.0', [[item]]],
    ['true', 'line_items', true],
  ])('refuses %s with 422 validation_error naming %s, on every route that takes one', async (_what, path, value) => {
    for (const { route, arg } of inputObjectArgs) {
      const before = await ledger();
      const res = await api.rest(route.method, route.path, { subtotal: 10, [arg.name]: value });
      expect(res.status, `${route.path} ${JSON.stringify(res.body)}`).toBe(422);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.details[path.replace('line_items', arg.name)]).toEqual(['Expected type "LineItemInput" to be an object.']);
      expect(await ledger()).toEqual(before);
    }
  });

  it('refuses a string in the query string for one as well', async () => {
    for (const { route, arg } of inputObjectArgs) {
      const res = await api.rest(route.method, `${route.path}?${arg.name}=AAA`, { subtotal: 10 });
      expect(res.status).toBe(422);
      expect(res.body.error.details[arg.name]).toEqual(['Expected type "LineItemInput" to be an object.']);
    }
  });

  it('takes the object itself, and one object as a list of one, as GraphQL does', async () => {
    const item = { product_id: 'p', quantity: 1, price: 10 };
    for (const line_items of [[item], item]) {
      const res = await api.rest('POST', '/v1/points/estimate', { subtotal: 10, line_items });
      expect(res.status).toBe(200);
    }
  });

  it('is refused by GraphQL in a variable with the same code', async () => {
    for (const l of [['AAA'], 'x', [JSON.stringify(item)]]) {
      const res = await api.gql('query ($l: [LineItemInput!]) { points_estimate(subtotal: 10, line_items: $l) { data { points } } }', {
        l,
      });
      expect(res.status).toBe(422);
      expect(res.body.errors![0].extensions.code).toBe('validation_error');
      expect(res.body.errors![0].extensions.details.l).toEqual(['Expected type "LineItemInput" to be an object.']);
    }
  });
});

describe('empty query values', () => {
  it('refuses ?<argument>= with 422 validation_error "must not be empty", for every argument of every route', async () => {
    const tried: string[] = [];
    for (const route of routes) {
      for (const arg of route.args) {
        for (const query of [`${arg.name}=`, arg.name, `${arg.name}[]=`]) {
          const res = await api.rest(route.method, `${route.path}?${query}`, route.method === 'POST' ? {} : undefined);
          expect(res.status, `${route.method} ${route.path}?${query} ${JSON.stringify(res.body)}`).toBe(422);
          expect(res.body.error.code).toBe('validation_error');
          expect(res.body.error.details[arg.name]).toEqual(['must not be empty']);
        }
        tried.push(arg.name);
      }
    }
    expect(tried).toEqual(expect.arrayContaining(['page', 'per_page', 'reward_type', 'campaign_type', 'customer_id', 'email', 'types']));
  });

  it('refuses an empty value repeated beside a full one, and in a write, which changes nothing', async () => {
    expect((await api.rest('GET', '/v1/rewards?page=1&page=')).body.error.details.page).toEqual(['must not be empty']);
    const before = await ledger();
    const res = await api.rest('POST', '/v1/customers/transactions?customer_id=args-1&description=', { points: 5, description: 'x' });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual({ description: ['must not be empty'] });
    expect(await ledger()).toEqual(before);
  });

  it('still reads a parameter that is not sent as absent', async () => {
    expect((await api.rest('GET', '/v1/rewards')).status).toBe(200);
    expect((await api.rest('GET', '/v1/rewards?unknown=')).status).toBe(200);
  });
});

describe('numbers in the query string', () => {
  it('are decimal digits: hexadecimal, exponents, fractions, signs and spaces are 422 validation_error, naming the parameter', async () => {
    for (const text of ['0x10', '1e1', '10.0', '+10', '%2010', '10%20', 'Infinity']) {
      const res = await api.rest('GET', `/v1/rewards?per_page=${text}`);
      expect([res.status, res.body.error.code], text).toEqual([422, 'validation_error']);
      expect(res.body.error.details.per_page, text).toEqual([
        `Int cannot represent non-integer value: ${JSON.stringify(new URLSearchParams(`v=${text}`).get('v'))}`,
      ]);
    }
    expect((await api.rest('GET', '/v1/rewards?page=1e1')).body.error.details).toEqual({
      page: ['Int cannot represent non-integer value: "1e1"'],
    });
    const read = await api.rest('GET', '/v1/rewards?per_page=10&page=-0');
    expect([read.status, read.body.error?.details]).toEqual([422, { page: expect.any(Array) }]);
    expect((await api.rest('GET', '/v1/rewards?per_page=010')).body.meta.pagination.per_page).toBe(10);
  });
});

describe('NUL', () => {
  const nul = ['must not contain NUL (U+0000) characters'];

  it('is refused in a query parameter, naming it, in a body field, naming its path, and in the path', async () => {
    const before = await ledger();
    const inQuery = await api.rest('GET', '/v1/customers/balance?customer_id=args%001');
    expect([inQuery.status, inQuery.body.error.code, inQuery.body.error.details]).toEqual([422, 'validation_error', { customer_id: nul }]);
    const write = await api.rest('POST', '/v1/customers/transactions?customer_id=args-1', { points: 5, description: 'a\u0000b' });
    expect([write.status, write.body.error.details]).toEqual([422, { description: nul }]);
    const nested = await api.rest('POST', '/v1/points/estimate', {
      subtotal: 1,
      line_items: [{ product_id: '\u0000', quantity: 1, price: 1 }],
    });
    expect([nested.status, nested.body.error.details]).toEqual([422, { 'line_items.0.product_id': nul }]);
    const inPath = await api.rest('GET', '/v1/customers/args%001');
    expect([inPath.status, inPath.body.error.details]).toEqual([422, { request: nul }]);
    // a raw NUL byte inside a JSON string is not JSON: the request as a whole
    const raw = await api.rest('POST', '/v1/customers/transactions?customer_id=args-1', '{"points":5,"description":"a\u0000"}');
    expect([raw.status, raw.body.error.details]).toEqual([422, { request: nul }]);
    expect(await ledger()).toEqual(before);
  });

  it('is refused by GraphQL in a variable and in the document with the same code', async () => {
    const variable = await api.gql('query ($c: String) { customer_balance(customer_id: $c) { data { points_balance } } }', {
      c: 'a\u0000',
    });
    expect([variable.status, variable.body.errors![0].extensions.details]).toEqual([422, { c: nul }]);
    const literal = await api.gql('{ customer_balance(customer_id: "a\\u0000") { data { points_balance } } }');
    expect([literal.status, literal.body.errors![0].extensions.details]).toEqual([422, { query: nul }]);
  });
});
