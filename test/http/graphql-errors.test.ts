// Hostile GraphQL over every transport (POST, GET, persisted by hash) on both GraphQL faces,
// and hostile REST: never a 5xx, never a line logged as an error (with its stack), and every
// error carries a code of the one table (domain/shared/errors.ts) - GraphQL's in
// `errors[].extensions.code`, REST's in its envelope. The status follows the GraphQL over
// HTTP spec for `application/graphql-response+json` (a refused request or document is 4xx, a
// document that ran is 200); for `application/json` parse and validation errors stay 200.
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { errorStatus } from '../../src/domain/shared/errors.js';
import { messages } from '../../src/domain/shared/messages.js';
import { documentHash } from '../../src/domain/storefront/persisted-operations.js';
import { createApp } from '../../src/http/app.js';
import { restRoutes } from '../../src/http/rest/routes.js';
import { newCustomer, newKey, newMerchant, type TestApp, testApp, testConfig } from '../harness.js';

const GRAPHQL_RESPONSE = 'application/graphql-response+json';
const JSON_TYPE = 'application/json';

/** What the service logged at warn and above, one parsed line each. */
const logged: { level: number; msg?: string; [key: string]: unknown }[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n')) if (line) logged.push(JSON.parse(line));
    done();
  },
});

let db: TestApp;
let service: ReturnType<typeof createApp>;
let key: string;
let adminToken: string;

beforeAll(async () => {
  db = await testApp();
  // the harness's app logs nothing: this one, over the same database, logs into `logged`
  service = createApp({ db: db.db, config: testConfig(), logger: pino({ level: 'warn', base: undefined }, sink) });
  const merchant = await newMerchant(db, 'gql-errors');
  key = await newKey(db, merchant.id);
  adminToken = merchant.admin_token;
  await newCustomer(db, merchant.id, { customerId: 'g-1', points: 10 });
});

afterAll(() => service.close());
afterEach(() => void (logged.length = 0));

const faces = {
  public: { path: '/graphql', auth: () => `Bearer ${key}` },
  admin: { path: '/admin/graphql', auth: () => `Bearer ${adminToken}` },
} as const;
type FaceName = keyof typeof faces;

const fetch = (path: string, init: RequestInit = {}) => service.fetch(`http://loyalty.test${path}`, init);

interface Answer {
  status: number;
  text: string;
  body: { data?: unknown; errors?: { message: string; extensions?: { code?: string; details?: Record<string, string[]> } }[] };
}

async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  let body: Answer['body'] = {};
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    body = {};
  }
  return { status: res.status, text, body };
}

function post(face: FaceName, body: unknown, accept = GRAPHQL_RESPONSE) {
  return fetch(faces[face].path, {
    method: 'POST',
    headers: { authorization: faces[face].auth(), 'content-type': 'application/json', accept },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  }).then(answer);
}

function get(face: FaceName, search: string, accept = GRAPHQL_RESPONSE) {
  return fetch(`${faces[face].path}?${search}`, { headers: { authorization: faces[face].auth(), accept } }).then(answer);
}

const codes = (a: Answer) => (a.body.errors ?? []).map((e) => e.extensions?.code);
const isTableCode = (code: unknown) => typeof code === 'string' && Object.hasOwn(errorStatus, code);
/** Nothing at error level, and no stack, in what the service logged. */
const noErrorLogged = () => expect(logged.filter((l) => l.level >= 50 || JSON.stringify(l).includes('"stack"'))).toEqual([]);

/** The refusal of a request or document: its code on every error, the status the accept header asks. */
function expectRefused(a: Answer, code: string, status: { graphqlResponse: number; json: number }, accept: string) {
  expect(a.body.data, a.text).toBeUndefined();
  expect(codes(a).length, a.text).toBeGreaterThan(0);
  expect(codes(a).every(isTableCode), a.text).toBe(true);
  expect(codes(a), a.text).toContain(code);
  expect(a.status, a.text).toBe(accept === GRAPHQL_RESPONSE ? status.graphqlResponse : status.json);
}

const nested = (levels: number) => `{ ${'a { '.repeat(levels - 1)}b${' }'.repeat(levels - 1)} }`;
const aliased = (field: string, n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(' ')} }`;
const rootField = { public: 'rewards { data { id } }', admin: 'merchant { id }' } as const;
const intVariable = {
  public: 'query ($x: Int!) { rewards(per_page: $x) { data { id } } }',
  admin: 'query ($x: Int!) { customers(per_page: $x) { data { id } } }',
} as const;

describe.each(['public', 'admin'] as const)('the probes, on the %s GraphQL face', (face) => {
  describe.each([GRAPHQL_RESPONSE, JSON_TYPE])('accepting %s', (accept) => {
    const document = { graphqlResponse: 400, json: 200 }; // parse and validation errors
    const request = { graphqlResponse: 400, json: 400 }; // not a GraphQL request at all

    it('refuses a subscription (the schema has none) as a validation error', async () => {
      expectRefused(
        await post(face, { query: 'subscription { rewards { data { id } } }' }, accept),
        'GRAPHQL_VALIDATION_FAILED',
        document,
        accept,
      );
      expectRefused(
        await get(face, `query=${encodeURIComponent('subscription S { merchant { id } }')}`, accept),
        'GRAPHQL_VALIDATION_FAILED',
        document,
        accept,
      );
      noErrorLogged();
    });

    it.each(['variables=%7B', 'extensions=%5B', 'variables=%7B&extensions=%5B', 'variables=nope'])(
      'refuses GET parameters that are not JSON (%s) with 400 BAD_REQUEST',
      async (params) => {
        expectRefused(await get(face, `query=${encodeURIComponent('{ __typename }')}&${params}`, accept), 'BAD_REQUEST', request, accept);
        noErrorLogged();
      },
    );

    it('refuses a form-encoded POST whose variables are not JSON with 400 BAD_REQUEST', async () => {
      const res = await fetch(faces[face].path, {
        method: 'POST',
        headers: { authorization: faces[face].auth(), 'content-type': 'application/x-www-form-urlencoded', accept },
        body: `query=${encodeURIComponent('{ __typename }')}&variables=%7B`,
      }).then(answer);
      expectRefused(res, 'BAD_REQUEST', request, accept);
      noErrorLogged();
    });

    it('refuses a document 11 levels deep with query_too_deep', async () => {
      expectRefused(await post(face, { query: nested(11) }, accept), 'query_too_deep', document, accept);
      expectRefused(await get(face, `query=${encodeURIComponent(nested(11))}`, accept), 'query_too_deep', document, accept);
      noErrorLogged();
    });

    it('refuses 20 aliases with too_many_aliases', async () => {
      const res = await post(face, { query: aliased(rootField[face], 20) }, accept);
      expectRefused(res, 'too_many_aliases', document, accept);
      expect(res.body.errors![0]!.message).toBe('Aliases limit of 15 exceeded, found 20.');
      noErrorLogged();
    });

    it('refuses too many directives, tokens and too costly a document, each with its code', async () => {
      const directives = `{ __typename ${'@skip(if: false) '.repeat(21)} }`;
      expectRefused(await post(face, { query: directives }, accept), 'too_many_directives', document, accept);
      const tokens = `{ ${'__typename '.repeat(2001)} }`;
      expectRefused(await post(face, { query: tokens }, accept), 'too_many_tokens', document, accept);
      // 600 fields 7 levels down: neither deep nor wide nor long, but costly
      const costly = `{ a { b { c { d { e { f { ${'g '.repeat(600)}} } } } } } }`;
      expectRefused(await post(face, { query: costly }, accept), 'query_too_costly', document, accept);
      noErrorLogged();
    });

    it('refuses a variable of the wrong type with 422 validation_error naming it', async () => {
      const res = await post(face, { query: intVariable[face], variables: { x: 'abc' } }, accept);
      expectRefused(res, 'validation_error', { graphqlResponse: 422, json: 422 }, accept);
      // the admin face answers in the message catalogue's words
      const wrongType = face === 'admin' ? messages.number : 'Int cannot represent non-integer value: "abc"';
      expect(res.body.errors![0]!.extensions!.details).toEqual({ x: [wrongType] });
      const missing = await post(face, { query: intVariable[face] }, accept);
      expectRefused(missing, 'validation_error', { graphqlResponse: 422, json: 422 }, accept);
      expect(missing.body.errors![0]!.extensions!.details).toEqual({ x: [face === 'admin' ? messages.required : 'is required'] });
      noErrorLogged();
    });

    it('gives GraphQL’s own parse and validation errors their codes', async () => {
      expectRefused(await post(face, { query: '{' }, accept), 'GRAPHQL_PARSE_FAILED', document, accept);
      expectRefused(await post(face, { query: '{ nope }' }, accept), 'GRAPHQL_VALIDATION_FAILED', document, accept);
      expectRefused(await post(face, '{', accept), 'BAD_REQUEST', request, accept);
      expectRefused(
        await post(face, { query: 'query A { __typename } query B { __typename }' }, accept),
        'OPERATION_RESOLUTION_FAILURE',
        request,
        accept,
      );
      noErrorLogged();
    });

    it('refuses a mutation over GET with 405 method_not_allowed', async () => {
      const res = await get(face, `query=${encodeURIComponent('mutation { __typename }')}`, accept);
      expectRefused(res, 'method_not_allowed', { graphqlResponse: 405, json: 405 }, accept);
      noErrorLogged();
    });

    it('refuses a body GraphQL cannot read with 415 unsupported_media_type', async () => {
      const res = await fetch(faces[face].path, {
        method: 'POST',
        headers: { authorization: faces[face].auth(), 'content-type': 'text/plain', accept },
        body: '{ __typename }',
      }).then(answer);
      expectRefused(res, 'unsupported_media_type', { graphqlResponse: 415, json: 415 }, accept);
      noErrorLogged();
    });

    it('answers a document that runs with 200', async () => {
      const res = await post(face, { query: `{ ${rootField[face]} }` }, accept);
      expect(res.status, res.text).toBe(200);
      expect(res.body.errors).toBeUndefined();
    });
  });
});

describe('persisted queries by hash (public face)', () => {
  const byHash = (query: string) => ({ persistedQuery: { version: 1, sha256Hash: documentHash(query) } });

  it.each([
    ['a subscription', 'subscription { rewards { data { id } } }', 'GRAPHQL_VALIDATION_FAILED'],
    ['a document 11 levels deep', nested(11), 'query_too_deep'],
    ['20 aliases', aliased('rewards { data { id } }', 20), 'too_many_aliases'],
  ])('refuses %s sent by hash as it refuses it sent in full', async (_label, query, code) => {
    const extensions = byHash(query);
    expectRefused(await post('public', { query, extensions }), code, { graphqlResponse: 400, json: 200 }, GRAPHQL_RESPONSE);
    const search = `extensions=${encodeURIComponent(JSON.stringify(extensions))}`;
    expectRefused(await get('public', search), code, { graphqlResponse: 400, json: 200 }, GRAPHQL_RESPONSE);
    noErrorLogged();
  });

  it('refuses a wrong-typed variable of a persisted document with validation_error, over GET', async () => {
    const query = intVariable.public;
    expect((await post('public', { query, variables: { x: 1 }, extensions: byHash(query) })).status).toBe(200);
    const res = await get(
      'public',
      `extensions=${encodeURIComponent(JSON.stringify(byHash(query)))}&variables=${encodeURIComponent('{"x":"abc"}')}`,
    );
    expectRefused(res, 'validation_error', { graphqlResponse: 422, json: 422 }, GRAPHQL_RESPONSE);
    expectRefused(
      await get('public', `extensions=${encodeURIComponent(JSON.stringify(byHash(query)))}&variables=%7B`),
      'BAD_REQUEST',
      { graphqlResponse: 400, json: 400 },
      GRAPHQL_RESPONSE,
    );
    noErrorLogged();
  });
});

describe('a value that cannot be coerced', () => {
  // the same refusal on every face: REST's query string, the public and the admin GraphQL variables
  it.each([
    ['a page size that is no whole number', 'per_page', 'abc', 'query ($x: Int) { events(per_page: $x) { data { id } } }'],
    ['a time that is no time', 'created_after', 'abc', 'query ($x: DateTime) { events(created_after: $x) { data { id } } }'],
  ])('%s is 422 validation_error naming it, on REST and on the public face', async (_label, arg, value, query) => {
    const rest = await answer(await fetch(`/v1/events?${arg}=${value}`, { headers: { authorization: `Bearer ${key}` } }));
    expect(rest.status, rest.text).toBe(422);
    const envelope = (rest.body as { error?: { code?: string; details?: Record<string, string[]> } }).error;
    expect(envelope?.code, rest.text).toBe('validation_error');
    expect(Object.keys(envelope?.details ?? {}), rest.text).toEqual([arg]);
    for (const accept of [GRAPHQL_RESPONSE, JSON_TYPE]) {
      const graphql = await post('public', { query, variables: { x: value } }, accept);
      expectRefused(graphql, 'validation_error', { graphqlResponse: 422, json: 422 }, accept);
      expect(Object.keys(graphql.body.errors![0]!.extensions!.details ?? {}), graphql.text).toEqual(['x']);
    }
    noErrorLogged();
  });

  it('is 422 validation_error on the admin face too', async () => {
    const query = 'query ($x: DateTime) { audit_log(created_after: $x) { data { id } } }';
    const res = await post('admin', { query, variables: { x: 'abc' } });
    expectRefused(res, 'validation_error', { graphqlResponse: 422, json: 422 }, GRAPHQL_RESPONSE);
    noErrorLogged();
  });
});

// ---- the property test ----

const nasty = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom(
    "' OR 1=1 --",
    '\u0000',
    '%00',
    '__proto__',
    'constructor',
    '💥',
    '-1',
    '1e308',
    'NaN',
    'null',
    '{',
    '[',
    '}',
    '"',
    '\\',
    '%',
    '',
  ),
);
const jsonValue = fc.oneof(
  nasty,
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, 1.5, 2 ** 31, -(2 ** 31) - 1, 1e308, true, false, null),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
);

const names = fc.constantFrom(
  'rewards',
  'customers',
  'customer',
  'merchant',
  'tiers',
  'data',
  'id',
  'name',
  'points_balance',
  'activities',
  'transactions',
  '__typename',
  '__schema',
  '__type',
  'types',
  'fields',
  'nope',
  'a',
  'x',
);
const values = fc.oneof(
  fc.integer().map(String),
  fc.constantFrom('1.5', '1e400', '"x"', '"\\u0000"', 'null', 'true', '$x', '$y', 'ACTIVE', '[1, 2]', '{ a: 1 }', '"h-0"', '""'),
);
const args = fc.option(
  fc
    .array(fc.tuple(fc.constantFrom('per_page', 'page', 'id', 'first', 'after', 'customer_id', 'x'), values), {
      minLength: 1,
      maxLength: 3,
    })
    .map((pairs) => `(${pairs.map(([n, v]) => `${n}: ${v}`).join(', ')})`),
  { nil: '' },
);
const directive = fc.option(
  fc.constantFrom('@skip(if: true)', '@include(if: $x)', '@include(if: false)', '@deprecated', '@nope', '@skip'),
  { nil: '' },
);

const { selectionSet } = fc.letrec<{ selectionSet: string; selection: string }>((tie) => ({
  selection: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc
      .tuple(
        fc.option(
          names.map((n) => `${n}2:`),
          { nil: '' },
        ),
        names,
        args,
        directive,
      )
      .map((p) => p.join(' ')),
    fc
      .tuple(
        fc.option(
          names.map((n) => `${n}2:`),
          { nil: '' },
        ),
        names,
        args,
        directive,
        tie('selectionSet'),
      )
      .map((p) => p.join(' ')),
    fc.constantFrom('...F', '...Missing'),
    tie('selectionSet').map((s) => `... on Query ${s}`),
  ),
  selectionSet: fc.array(tie('selection'), { minLength: 1, maxLength: 4 }).map((s) => `{ ${s.join(' ')} }`),
}));

const operation = fc.constantFrom(
  '',
  'query',
  'mutation',
  'subscription',
  'query Q',
  'query ($x: Int!)',
  'query Q($x: Boolean, $y: [ID!])',
  'mutation M($x: Int)',
);
const fragment = fc.option(
  fc.tuple(fc.constantFrom('Query', 'Customer', 'Reward', 'Nope'), selectionSet).map(([on, s]) => ` fragment F on ${on} ${s}`),
  { nil: '' },
);

const wellFormed = fc.tuple(operation, selectionSet, fragment).map(([op, set, frag]) => `${op} ${set}${frag}`);

/** Documents that validate, on one face or the other, with `$v` to coerce: they run. */
const runnable = fc.constantFrom(
  'query Q($v: Int) { customers(per_page: $v) { data { id balance { points_balance } tier_status { current_tier { name } } } } }',
  'query Q($v: ID!) { customer(id: $v) { data { id first_name activities(per_page: 2) { data { id points_change } } } } }',
  'query Q($v: Float!) { points_estimate(subtotal: $v) { __typename } }',
  'query Q($v: [LineItemInput!]) { points_estimate(subtotal: 10, line_items: $v) { __typename } }',
  'query Q($v: Int) { customer(id: "g-1") { data { activities_connection(first: $v) { edges { cursor node { id } } } } } }',
  'query Q($v: String) { customer(id: "g-1") { data { transactions_connection(first: 2, after: $v) { pageInfo { hasNextPage } } } } }',
  'query Q($v: Int) { rewards(page: $v) { data { id } } }',
  'mutation M($v: Int!) { create_customer_transaction(customer_id: "g-1", points: $v, description: "fuzz") { __typename } }',
  'query Q($v: Int) { customers(per_page: $v) { data { id points_balance } } }',
  'query Q($v: ID!) { customer(id: $v) { id points_balance } }',
  'query Q($v: String) { audit_log(action: $v) { __typename } }',
  'query Q($v: DashboardRange) { dashboard(range: $v) { __typename } }',
  '{ merchant { id } api_scopes { __typename } }',
);

const document = fc.oneof(
  { arbitrary: runnable, weight: 4 },
  { arbitrary: wellFormed, weight: 2 },
  wellFormed.chain((doc) =>
    fc
      .tuple(fc.nat(doc.length), fc.constantFrom('', '{', '}', '(', '"', '$', '@', '...', '#'))
      .map(([at, junk]) => doc.slice(0, at) + junk + doc.slice(at + 1)),
  ), // broken text
  fc.integer({ min: 1, max: 14 }).map(nested),
  fc.integer({ min: 1, max: 25 }).map((n) => aliased('rewards { data { id } }', n)),
  fc.string({ maxLength: 60 }),
  fc.constantFrom(
    'subscription { rewards { data { id } } }',
    'query A { __typename } query B { __typename }',
    '{ __schema { types { name fields { name type { name ofType { name ofType { name } } } } } } }',
    `{ ${'__typename '.repeat(2100)} }`,
  ),
);

/** Mostly absent, sometimes anything. */
const seldom = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: arb, weight: 1 });

const extensions = (query: string | undefined) =>
  seldom(
    fc.oneof(
      fc.record({
        persistedQuery: fc.record({
          version: fc.constantFrom<unknown>(1, 1, 2, '1', null),
          sha256Hash: fc.oneof(fc.constant(documentHash(query ?? '')), fc.stringMatching(/^[0-9a-f]{64}$/), nasty, fc.integer()),
        }),
      }),
      fc.dictionary(fc.string({ maxLength: 5 }), jsonValue, { maxKeys: 2 }),
      jsonValue,
    ),
  );

const params = fc
  .record({
    query: fc.option(document, { nil: undefined, freq: 8 }),
    variables: fc.oneof(
      { arbitrary: jsonValue.map((v) => ({ v })), weight: 3 },
      fc.constant(undefined),
      fc.dictionary(fc.constantFrom('v', 'x', 'y'), jsonValue, { maxKeys: 3 }),
      jsonValue,
    ),
    operationName: seldom(fc.oneof(fc.constantFrom('Q', 'M', 'A', 'B'), nasty, fc.integer())),
  })
  .chain((p) => extensions(p.query).map((ext) => ({ ...p, extensions: ext })));

/** A query string parameter: JSON as a client sends it, or anything. */
const queryParam = (value: unknown) =>
  fc.oneof(
    { arbitrary: fc.constant(value === undefined ? undefined : typeof value === 'string' ? value : JSON.stringify(value)), weight: 4 },
    fc.option(nasty, { nil: undefined }),
  );

const graphqlRequest = fc.record({
  face: fc.constantFrom<FaceName>('public', 'admin'),
  accept: fc.constantFrom(
    GRAPHQL_RESPONSE,
    GRAPHQL_RESPONSE,
    JSON_TYPE,
    JSON_TYPE,
    undefined,
    '*/*',
    `${GRAPHQL_RESPONSE}, ${JSON_TYPE};q=0.9`,
  ),
  auth: fc.oneof({ arbitrary: fc.constant('good'), weight: 12 }, fc.constantFrom('none', 'wrong')),
  transport: fc.oneof(
    { arbitrary: params.map((p) => ({ kind: 'post-json' as const, body: JSON.stringify(p) })), weight: 3 },
    fc.record({
      kind: fc.constant('post-raw' as const),
      body: fc.oneof(
        fc.string({ maxLength: 60 }),
        fc.constantFrom(
          '{',
          '[]',
          'null',
          '42',
          '"q"',
          '{"query": 1}',
          '{"query": "{", "variables": "x"}',
          'query=%7B&variables=%7B',
          '--x\r\nContent-Disposition: form-data; name="operations"\r\n\r\n{\r\n--x--',
        ),
      ),
      contentType: fc.constantFrom(
        JSON_TYPE,
        'application/graphql',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'text/plain',
        undefined,
      ),
    }),
    {
      weight: 2,
      arbitrary: params.chain((p) =>
        fc
          .tuple(queryParam(p.query), queryParam(p.variables), queryParam(p.extensions), queryParam(p.operationName))
          .map(([query, variables, ext, operationName]) => {
            const search = new URLSearchParams();
            for (const [name, value] of Object.entries({ query, variables, extensions: ext, operationName }))
              if (value !== undefined) search.set(name, value);
            return { kind: 'get' as const, search: search.toString() };
          }),
      ),
    },
    fc.record({ kind: fc.constant('get' as const), search: fc.string({ maxLength: 40 }) }),
    fc.record({
      kind: fc.constantFrom('PUT' as const, 'DELETE' as const, 'PATCH' as const),
      body: fc.constant('{"query":"{ __typename }"}'),
    }),
  ),
});

type GraphQLRequest = typeof graphqlRequest extends fc.Arbitrary<infer T> ? T : never;

async function sendGraphQL(req: GraphQLRequest) {
  const { path, auth } = faces[req.face];
  const headers: Record<string, string> = {};
  if (req.auth === 'good') headers.authorization = auth();
  if (req.auth === 'wrong') headers.authorization = 'Bearer lpk_nope';
  if (req.accept) headers.accept = req.accept;
  const t = req.transport;
  if (t.kind === 'get') return fetch(`${path}?${t.search}`, { headers });
  if (t.kind === 'post-json') return fetch(path, { method: 'POST', headers: { ...headers, 'content-type': JSON_TYPE }, body: t.body });
  if (t.kind === 'post-raw') {
    return fetch(path, {
      method: 'POST',
      headers: { ...headers, ...(t.contentType ? { 'content-type': t.contentType } : {}) },
      body: t.body,
    });
  }
  return fetch(path, { method: t.kind, headers: { ...headers, 'content-type': JSON_TYPE }, body: t.body });
}

const restRequest = fc.record({
  route: fc.constantFrom(...restRoutes),
  pathId: nasty,
  query: fc.array(fc.tuple(fc.constantFrom('customer_id', 'page', 'per_page', 'points', 'description', 'reward_id', 'x'), nasty), {
    maxLength: 3,
  }),
  body: fc.oneof(
    fc
      .dictionary(fc.constantFrom('customer_id', 'points', 'description', 'reward_id', 'subtotal', 'line_items'), jsonValue, { maxKeys: 4 })
      .map((o) => JSON.stringify(o)),
    fc.constantFrom('{', 'null', '[]', '"s"', ''),
    fc.string({ maxLength: 30 }),
  ),
  contentType: fc.constantFrom(JSON_TYPE, 'text/plain', undefined),
  method: fc.constantFrom('route', 'route', 'GET', 'POST', 'DELETE'),
});

describe('hostile requests, generated', () => {
  it('never answer 5xx nor log an error; every GraphQL error has a code from the table', async () => {
    await fc.assert(
      fc.asyncProperty(graphqlRequest, async (req) => {
        logged.length = 0;
        const res = await answer(await sendGraphQL(req));
        const seen = `${JSON.stringify(req)} → ${res.status} ${res.text.slice(0, 500)}`;
        expect(res.status, seen).toBeLessThan(500);
        expect(res.text, seen).not.toBe('');
        expect(res.body.errors ?? res.body.data, seen).toBeDefined();
        for (const error of res.body.errors ?? []) expect(isTableCode(error.extensions?.code), seen).toBe(true);
        if (req.accept === GRAPHQL_RESPONSE) {
          // GraphQL over HTTP: no data, a 4xx; a document that ran (data) answers 200
          if (!('data' in res.body)) expect(res.status, seen).toBeGreaterThanOrEqual(400);
          else if (res.body.data !== null) expect(res.status, seen).toBe(200);
        }
        noErrorLogged();
      }),
      { numRuns: 400, seed: 20261204 },
    );
  }, 120_000);

  it('never answer 5xx nor log an error on REST; every error has the envelope and a code from the table', async () => {
    await fc.assert(
      fc.asyncProperty(restRequest, async (req) => {
        logged.length = 0;
        const path = req.route.path.replace(/:\w+/, encodeURIComponent(req.pathId));
        const search = new URLSearchParams(req.query).toString();
        const method = req.method === 'route' ? req.route.method : req.method;
        const res = await answer(
          await fetch(`/v1${path}${search ? `?${search}` : ''}`, {
            method,
            headers: { authorization: `Bearer ${key}`, ...(req.contentType ? { 'content-type': req.contentType } : {}) },
            body: method === 'GET' ? undefined : req.body,
          }),
        );
        const seen = `${method} ${path}?${search} ${req.body} → ${res.status} ${res.text.slice(0, 300)}`;
        expect(res.status, seen).toBeLessThan(500);
        if (res.status >= 400) expect(isTableCode((res.body as { error?: { code?: string } }).error?.code), seen).toBe(true);
        noErrorLogged();
      }),
      { numRuns: 200, seed: 20261205 },
    );
  }, 120_000);
});
