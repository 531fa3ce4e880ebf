// Pothos keeps each request's scope decisions in a WeakMap keyed by the GraphQL context. The
// entry goes when the execution ends: V8's young-generation collector keeps the value of an
// entry whose key has died, and this one reaches the whole request (src/http/request-state.ts).
import { RequestCache } from '@pothos/plugin-scope-auth';
import type { Plugin } from 'graphql-yoga';

export function useScopeCacheRelease(): Plugin {
  return {
    onExecute: ({ args }) => ({ onExecuteDone: () => RequestCache.clearForContext(args.contextValue as object) }),
  };
}
