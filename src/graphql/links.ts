// The graph's links: fields that follow a record to its related records, such as
// `Customer.activities` or `Membership.tier`. A link belongs to the `graph` sub-graph: the
// public GraphQL face shows it (public + graph), REST v1 never does. SOFA builds each route's
// document by selecting every field of its type, so it is given the public sub-graph alone
// (src/http/public.ts), and every REST answer and the OpenAPI document keep exactly their v1
// fields. A link carries the scope of the REST endpoint it mirrors and is nullable, so a key
// without that scope gets `insufficient_scope` on the link and the rest of the answer intact.
import type { ScopeGrant } from '../domain/access/scopes.js';

/** The options every link shares; `scope` is the scope of the REST endpoint it mirrors. */
export function link(scope: ScopeGrant) {
  return {
    subGraphs: ['graph' as const],
    nullable: true as const,
    authScopes: { scope },
  };
}
