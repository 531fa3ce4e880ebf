// The REST v1 surface: each spec path is one root field of the public schema, served by
// SOFA. This table is the only place that names REST paths.
import type { GraphQLField, GraphQLSchema } from 'graphql';

export interface RestRoute {
  field: `${'Query' | 'Mutation'}.${string}`;
  method: 'GET' | 'POST';
  path: string;
}

// Order matters: fixed paths before parameter paths (/customers/balance before /customers/:id).
export const restRoutes: RestRoute[] = [
  { field: 'Query.customer_balance', method: 'GET', path: '/customers/balance' },
  { field: 'Mutation.create_customer_transaction', method: 'POST', path: '/customers/transactions' },
  { field: 'Query.rewards', method: 'GET', path: '/rewards' },
  { field: 'Query.reward', method: 'GET', path: '/rewards/:id' },
  { field: 'Query.earning_rules', method: 'GET', path: '/earning-rules' },
];

export const sofaRoutes = Object.fromEntries(
  restRoutes.map((r) => [
    r.field,
    { method: r.method, path: r.path, ...(r.method === 'POST' ? { responseStatus: 201 as const } : {}) },
  ]),
);

interface CompiledRoute extends RestRoute {
  pattern: RegExp;
  graphqlField: GraphQLField<unknown, unknown>;
  scope: string | undefined;
}

/** Matches a request to its route, with the scope its root field requires (from the schema). */
export function routeMatcher(schema: GraphQLSchema, basePath: string) {
  const compiled: CompiledRoute[] = restRoutes.map((route) => {
    const [typeName, fieldName] = route.field.split('.') as [string, string];
    const type = typeName === 'Query' ? schema.getQueryType() : schema.getMutationType();
    const field = type?.getFields()[fieldName];
    if (!field) throw new Error(`REST route ${route.path} names unknown field ${route.field}`);
    const authScopes = (field.extensions?.pothosOptions as { authScopes?: { scope?: string } } | undefined)?.authScopes;
    const source = route.path.replace(/:(\w+)/g, '(?<$1>[^/]+)');
    return { ...route, pattern: new RegExp(`^${basePath}${source}$`), graphqlField: field, scope: authScopes?.scope };
  });
  return (method: string, pathname: string) => {
    const candidates = compiled.filter((r) => r.pattern.test(pathname));
    if (candidates.length === 0) return { kind: 'not_found' as const };
    const route = candidates.find((r) => r.method === method);
    if (!route) return { kind: 'method_not_allowed' as const, allow: candidates.map((r) => r.method) };
    const params = Object.fromEntries(
      Object.entries(route.pattern.exec(pathname)?.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)]),
    );
    return { kind: 'ok' as const, route, params };
  };
}
