// Limits on GraphQL documents, for every GraphQL face (REST runs fixed documents): depth,
// cost, aliases, tokens and directives, no field suggestions, and introspection when
// configured off. Validation-phase plugins: they never see REST requests.
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { useDisableIntrospection } from '@graphql-yoga/plugin-disable-introspection';
import type { Plugin } from 'graphql-yoga';

export function graphqlLimits({ introspection }: { introspection: boolean }): Plugin<Record<string, unknown>>[] {
  return [
    EnvelopArmorPlugin({
      maxDepth: { n: 8 },
      costLimit: { maxCost: 5000 },
      maxAliases: { n: 15 },
      maxTokens: { n: 2000 },
      maxDirectives: { n: 20 },
      blockFieldSuggestion: { enabled: true },
    }),
    ...(introspection ? [] : [useDisableIntrospection()]),
  ];
}
