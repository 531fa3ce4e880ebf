// Typed GraphQL documents: gql.tada infers each document's result and variables from the admin
// schema (graphql-env.d.ts, written by `npm run schema:write` from the server's schema).
import { initGraphQLTada } from 'gql.tada';
import type { introspection } from './graphql-env.d.ts';

export const graphql = initGraphQLTada<{
  introspection: introspection;
  scalars: { DateTime: string; Date: string; JSON: unknown; ID: string };
}>();

export type { ResultOf } from 'gql.tada';
