// The operations the benchmark measures, each as a REST request and as the GraphQL document
// that selects the same fields (every field, as SOFA does), built from the live public schema.
// Request templates: `__CUST__` becomes a random customer number (2..N) per request, `__HOT__`
// one of the first few (templates.ts), and
// `"__POINTS__"` a random credit (70%, 1..100) or debit (30%, -1..-50).
import { type GraphQLObjectType, type GraphQLSchema, getNamedType, isNonNullType, isObjectType } from 'graphql';
import { HOT_CUSTOMERS } from './templates.js';

export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  headers: Record<string, string>;
}

export interface Operation {
  name: string;
  title: string;
  kind: 'read' | 'write';
  rest: { method: 'GET' | 'POST'; path: string; body?: unknown };
  graphql: { field: string; args: Record<string, unknown> };
  /**
   * A fixed GraphQL document instead of every field of `graphql.field` (the storefront panel):
   * such an operation has no REST twin on the service, only the baselines' hand-written handler
   * at `rest.path`.
   */
  document?: string;
  /** `session`: every server is called with the shopper's customer session instead of the API key. */
  credential?: 'key' | 'session';
  /**
   * Each read follows a credit of 1 point to the same customer, sent by the same client and not
   * measured, so the read is never answered from a cache (bench/load.ts's driver after writes).
   */
  afterWrite?: boolean;
  /**
   * A panel built from several REST calls sent together (paths; `__CUST__` is one customer for
   * all of them): measured in panels on the service only, by bench/load.ts's panel driver.
   */
  calls?: string[];
}

/** The customer the bench mints its shopper's session for (`panel_session`). */
export const SHOPPER = 'c2';

/** docs/graphql.md's `LoyaltyPanel`: a storefront's whole panel for one customer in one request. */
export const PANEL_DOCUMENT = `query LoyaltyPanel($customer: ID!) {
  customer(id: $customer) {
    data {
      first_name
      balance { points_balance points_pending next_expiry { points expires_at } }
      tier_status {
        current_tier { name benefits }
        next_tier { name threshold }
        progress { metric value remaining }
      }
      redeemable_rewards(per_page: 5) { data { id name points_cost reward_type } }
      activities(per_page: 5) { data { description points_change occurred_at } }
      rewards(per_page: 3) { data { code status expires_at catalogue_reward { name description } } }
    }
  }
}`;

/**
 * The REST v1 calls a storefront makes for the panel instead of PANEL_DOCUMENT: the customer's
 * profile (first name), balance, tier status, 5 redeemable rewards, 5 activities, 3 held codes,
 * and 7th the catalogue (GET /v1/rewards), for the held codes' descriptions, which
 * GET /v1/customers/rewards does not carry (a code of a reward off that page would need
 * GET /v1/rewards/{id} after it: not sent).
 */
export const PANEL_CALLS = [
  '/v1/customers/c__CUST__',
  '/v1/customers/balance?customer_id=c__CUST__',
  '/v1/customers/tiers?customer_id=c__CUST__',
  '/v1/customers/rewards/redeemable?customer_id=c__CUST__&per_page=5',
  '/v1/customers/activities?customer_id=c__CUST__&per_page=5',
  '/v1/customers/rewards?customer_id=c__CUST__&per_page=3',
  '/v1/rewards',
];

/** The deep page of the customer with `heavyRows` rows: ten pages before its last. */
export const deepPageOf = (heavyRows: number) => Math.floor(heavyRows / 20) - 10;

export function operations(deepPage: number): Operation[] {
  const cart = {
    customer_id: 'c__CUST__',
    subtotal: 120.5,
    line_items: [
      { product_id: 'prod-1', quantity: 2, price: 40.25 },
      { product_id: 'prod-2', quantity: 1, price: 40 },
    ],
  };
  return [
    {
      name: 'rewards',
      title: 'GET /v1/rewards (page of 20)',
      kind: 'read',
      rest: { method: 'GET', path: '/v1/rewards' },
      graphql: { field: 'rewards', args: {} },
    },
    {
      name: 'balance',
      title: 'GET /v1/customers/balance (random customer)',
      kind: 'read',
      rest: { method: 'GET', path: '/v1/customers/balance?customer_id=c__CUST__' },
      graphql: { field: 'customer_balance', args: { customer_id: 'c__CUST__' } },
    },
    {
      name: 'transactions_p1',
      title: 'GET /v1/customers/transactions (5,000-row customer, page 1)',
      kind: 'read',
      rest: { method: 'GET', path: '/v1/customers/transactions?customer_id=c1' },
      graphql: { field: 'customer_transactions', args: { customer_id: 'c1' } },
    },
    {
      name: 'transactions_deep',
      title: `GET /v1/customers/transactions (5,000-row customer, page ${deepPage})`,
      kind: 'read',
      rest: { method: 'GET', path: `/v1/customers/transactions?customer_id=c1&page=${deepPage}` },
      graphql: { field: 'customer_transactions', args: { customer_id: 'c1', page: deepPage } },
    },
    {
      name: 'customers',
      title: 'GET /v1/customers (page 1, total over all customers)',
      kind: 'read',
      rest: { method: 'GET', path: '/v1/customers' },
      graphql: { field: 'customers', args: {} },
    },
    {
      name: 'estimate',
      title: 'POST /v1/points/estimate (customer, 2 line items)',
      kind: 'read',
      rest: { method: 'POST', path: '/v1/points/estimate', body: cart },
      graphql: { field: 'points_estimate', args: cart },
    },
    {
      name: 'panel',
      title: 'The LoyaltyPanel document over GraphQL, API key (random customer), each read after a write to that customer',
      kind: 'read',
      rest: { method: 'GET', path: '/bench/panel?customer_id=c__CUST__' },
      graphql: { field: 'customer', args: { customer: 'c__CUST__' } },
      document: PANEL_DOCUMENT,
      afterWrite: true,
    },
    {
      name: 'panel_session',
      title: `The LoyaltyPanel document over GraphQL, the shopper's customer session (${SHOPPER}), each read after a write to her`,
      kind: 'read',
      // the baselines take the customer from the session, as the service checks it against hers
      rest: { method: 'GET', path: '/bench/panel' },
      graphql: { field: 'customer', args: { customer: SHOPPER } },
      document: PANEL_DOCUMENT,
      credential: 'session',
      afterWrite: true,
    },
    {
      name: 'panel_cached',
      title: `The LoyaltyPanel document over GraphQL, API key, one of ${HOT_CUSTOMERS} customers, no writes (the service answers from its cache)`,
      kind: 'read',
      rest: { method: 'GET', path: '/bench/panel?customer_id=c__HOT__' },
      graphql: { field: 'customer', args: { customer: 'c__HOT__' } },
      document: PANEL_DOCUMENT,
    },
    {
      name: 'panel_session_cached',
      title: `The LoyaltyPanel document over GraphQL, the shopper's session (${SHOPPER}), no writes (the service answers from its cache)`,
      kind: 'read',
      rest: { method: 'GET', path: '/bench/panel' },
      graphql: { field: 'customer', args: { customer: SHOPPER } },
      document: PANEL_DOCUMENT,
      credential: 'session',
    },
    {
      name: 'panel_rest',
      title: 'The panel as seven REST v1 calls in parallel per panel, API key (random customer; figures per panel)',
      kind: 'read',
      rest: { method: 'GET', path: PANEL_CALLS[0]! },
      graphql: { field: 'customer', args: {} },
      calls: PANEL_CALLS,
    },
    {
      name: 'create_transaction',
      title: 'POST /v1/customers/transactions (mixed credits/debits, random customers)',
      kind: 'write',
      rest: {
        method: 'POST',
        path: '/v1/customers/transactions?customer_id=c__CUST__',
        body: { points: '__POINTS__', description: 'bench adjustment' },
      },
      graphql: {
        field: 'create_customer_transaction',
        args: { customer_id: 'c__CUST__', points: '__POINTS__', description: 'bench adjustment' },
      },
    },
  ];
}

function selectAll(type: GraphQLObjectType, depth: number): string {
  if (depth > 6) return '';
  const fields = Object.values(type.getFields())
    .filter((f) => !f.args.some((a) => isNonNullType(a.type)))
    .map((f) => {
      const named = getNamedType(f.type);
      return isObjectType(named) ? `${f.name} ${selectAll(named, depth + 1)}` : f.name;
    });
  return `{ ${fields.join(' ')} }`;
}

/** The GraphQL document for `op` (null when the schema lacks its root field). */
export function graphqlDocument(schema: GraphQLSchema, op: Operation): string | null {
  const query = schema.getQueryType()?.getFields()[op.graphql.field];
  const mutation = schema.getMutationType()?.getFields()[op.graphql.field];
  const field = query ?? mutation;
  if (!field) return null;
  const named = getNamedType(field.type);
  if (!isObjectType(named)) return null;
  const used = field.args.filter((a) => a.name in op.graphql.args);
  const vars = used.map((a) => `$${a.name}: ${String(a.type)}`).join(', ');
  const call = used.map((a) => `${a.name}: $${a.name}`).join(', ');
  return `${query ? 'query' : 'mutation'} Bench${vars ? `(${vars})` : ''} { ${field.name}${call ? `(${call})` : ''} ${selectAll(named, 0)} }`;
}

const json = { 'content-type': 'application/json' };

/** The write before each read of an `afterWrite` operation: a credit of 1 point to the customer it reads. */
export function writeBefore(op: Operation, key: string): RequestSpec {
  const customer = op.credential === 'session' ? SHOPPER : 'c__CUST__';
  return {
    method: 'POST',
    path: `/v1/customers/transactions?customer_id=${customer}`,
    body: JSON.stringify({ points: 1, description: 'bench write before a read' }),
    headers: { authorization: `Bearer ${key}`, ...json },
  };
}

export function restRequest(op: Operation, key: string): RequestSpec {
  return {
    method: op.rest.method,
    path: op.rest.path,
    ...(op.rest.body ? { body: JSON.stringify(op.rest.body) } : {}),
    headers: { authorization: `Bearer ${key}`, ...(op.rest.body ? json : {}) },
  };
}

export function graphqlRequest(document: string, op: Operation, key: string): RequestSpec {
  return {
    method: 'POST',
    path: '/graphql',
    body: JSON.stringify({ query: document, variables: op.graphql.args }),
    headers: { authorization: `Bearer ${key}`, ...json },
  };
}
