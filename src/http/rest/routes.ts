// The REST v1 surface (spec 4.1): each spec path is one root field of the public schema,
// served by SOFA. This table is the only place that names REST paths.
import type { GraphQLField, GraphQLSchema } from 'graphql';
import type { ScopeGrant } from '../../domain/access/scopes.js';

export interface RestRoute {
  field: `${'Query' | 'Mutation'}.${string}`;
  method: 'GET' | 'POST';
  path: string;
  /** POST only: the arguments documented as query parameters (the rest are body fields). */
  query?: string[];
}

// Order matters: fixed paths before parameter paths (/customers/balance before /customers/:id).
export const restRoutes: RestRoute[] = [
  { field: 'Query.customers', method: 'GET', path: '/customers' },
  { field: 'Query.customer_balance', method: 'GET', path: '/customers/balance' },
  { field: 'Query.customer_memberships', method: 'GET', path: '/customers/memberships' },
  { field: 'Query.customer_tier', method: 'GET', path: '/customers/tiers' },
  { field: 'Query.customer_activities', method: 'GET', path: '/customers/activities' },
  { field: 'Query.customer_referrals', method: 'GET', path: '/customers/referrals' },
  { field: 'Query.customer_rewards', method: 'GET', path: '/customers/rewards' },
  { field: 'Query.redeemable_rewards', method: 'GET', path: '/customers/rewards/redeemable' },
  { field: 'Mutation.redeem_reward', method: 'POST', path: '/customers/rewards/redeem', query: ['customer_id', 'email'] },
  { field: 'Query.customer_transactions', method: 'GET', path: '/customers/transactions' },
  { field: 'Mutation.create_customer_transaction', method: 'POST', path: '/customers/transactions', query: ['customer_id'] },
  { field: 'Query.customer', method: 'GET', path: '/customers/:id' },
  { field: 'Query.rewards', method: 'GET', path: '/rewards' },
  { field: 'Query.reward', method: 'GET', path: '/rewards/:id' },
  { field: 'Query.tiers', method: 'GET', path: '/tiers' },
  { field: 'Query.earning_rules', method: 'GET', path: '/earning-rules' },
  { field: 'Query.referral_program', method: 'GET', path: '/referrals/program' },
  // a calculation, not a creation: a query answered with 200, sent as POST for its cart body
  { field: 'Query.points_estimate', method: 'POST', path: '/points/estimate', query: [] },
  { field: 'Query.booster_campaigns', method: 'GET', path: '/booster-campaigns' },
  // ours: the spec shows no events
  { field: 'Query.events', method: 'GET', path: '/events' },
];

/** SOFA's `routes`: mutations answer 201 Created. */
export const sofaRoutes = Object.fromEntries(
  restRoutes.map((r) => [
    r.field,
    { method: r.method, path: r.path, ...(r.field.startsWith('Mutation.') ? { responseStatus: 201 as const } : {}) },
  ]),
);

interface CompiledRoute extends RestRoute {
  pattern: RegExp;
  graphqlField: GraphQLField<unknown, unknown>;
  scope: ScopeGrant | undefined;
}

function rootField(schema: GraphQLSchema, route: RestRoute) {
  const [typeName, fieldName] = route.field.split('.') as [string, string];
  const type = typeName === 'Query' ? schema.getQueryType() : schema.getMutationType();
  return type?.getFields()[fieldName];
}

/** Routes whose root field the schema lacks (a test keeps this empty). */
export function unresolvedRoutes(schema: GraphQLSchema) {
  return restRoutes.filter((route) => !rootField(schema, route));
}

/** Matches a request to its route, with the scope its root field requires (from the schema). */
export function routeMatcher(schema: GraphQLSchema, basePath: string) {
  const compiled: CompiledRoute[] = restRoutes.flatMap((route) => {
    const field = rootField(schema, route);
    if (!field) return [];
    const authScopes = (field.extensions?.pothosOptions as { authScopes?: { scope?: ScopeGrant } } | undefined)?.authScopes;
    const source = route.path.replace(/:(\w+)/g, '(?<$1>[^/]+)');
    return [{ ...route, pattern: new RegExp(`^${basePath}${source}$`), graphqlField: field, scope: authScopes?.scope }];
  });
  return (method: string, pathname: string) => {
    const candidates = compiled.filter((r) => r.pattern.test(pathname));
    if (candidates.length === 0) return { kind: 'not_found' as const };
    const route = candidates.find((r) => r.method === method);
    if (!route) return { kind: 'method_not_allowed' as const, allow: [...new Set(candidates.map((r) => r.method))] };
    const params: Record<string, string> = {};
    for (const [name, raw] of Object.entries(route.pattern.exec(pathname)?.groups ?? {})) {
      const value = decoded(raw);
      // a malformed percent-encoding names no record
      if (value === undefined) return { kind: 'not_found' as const };
      params[name] = value;
    }
    return { kind: 'ok' as const, route, params };
  };
}

export type RouteMatcher = ReturnType<typeof routeMatcher>;
export type MatchedRoute = Extract<ReturnType<RouteMatcher>, { kind: 'ok' }>;

function decoded(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}
