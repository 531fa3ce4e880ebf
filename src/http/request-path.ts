// The request path every GraphQL face shares (the public face with REST, and both admin
// faces): one order of plugins, each one concern, with the places where a face adds its own.
// The order is the rule: the client's address before anything logs it, the route before the
// credential, the credential before the budget it is counted against, the budget before the
// body is read, the body before the idempotency key replays it, and the document's limits
// before anything runs.
import type { YogaServerOptions } from 'graphql-yoga';
import type { Config } from '../config.js';
import type { Context } from '../graphql/builder.js';
import type { Logger } from '../observability/logger.js';
import { useTracing } from '../observability/tracing.js';
import { forMerchant } from './errors.js';
import { useBody } from './plugins/body.js';
import { useCacheHeaders } from './plugins/cache-headers.js';
import { useClientAddress } from './plugins/client-address.js';
import { useCostReport } from './plugins/cost-report.js';
import { graphqlLimits } from './plugins/graphql-limits.js';
import { useLiteralValues } from './plugins/literal-values.js';
import { useRequestLog } from './plugins/request-log.js';
import { useRequestMetrics } from './plugins/request-metrics.js';
import { useScopeCacheRelease } from './plugins/scope-cache-release.js';

/** A plugin as a face's Yoga takes it: Yoga's own, or envelop's (the GraphQL phases only). */
type Plugin = NonNullable<YogaServerOptions<object, Context>['plugins']>[number];

export interface RequestPath {
  face: 'public' | 'admin';
  config: Pick<Config, 'TRUST_PROXY' | 'BODY_LIMIT_BYTES' | 'GRAPHQL_INTROSPECTION'>;
  logger: Logger;
  /** Which face and route the request is for (plugins/routing.ts). */
  routing: Plugin;
  /** Who asks: the credential's plugins (and, first, what answers without one). */
  auth: Plugin[];
  /** The request budget, counted against the credential. */
  rateLimit: Plugin;
  /** Checks of the credential's rights, before the body is read. */
  afterRateLimit?: Plugin[];
  /** Checks of the body's arguments, before the idempotency key. */
  afterBody?: Plugin[];
  idempotency: Plugin;
  /** Where the document comes from (persisted operations), before its limits. */
  documents?: Plugin[];
  /** How the document runs and how its result is answered. */
  execution?: Plugin[];
  /** What the face serves besides GraphQL (REST, its OpenAPI document), last. */
  endpoints?: Plugin[];
}

/** The plugins of one face, in the one order. */
export function requestPath(p: RequestPath): Plugin[] {
  return [
    useClientAddress(p.config.TRUST_PROXY),
    useRequestLog(p.logger),
    useRequestMetrics(p.face),
    p.routing,
    useCacheHeaders(),
    ...p.auth,
    p.rateLimit,
    ...(p.afterRateLimit ?? []),
    useBody(p.config.BODY_LIMIT_BYTES),
    ...(p.afterBody ?? []),
    p.idempotency,
    ...(p.documents ?? []),
    ...graphqlLimits({ introspection: p.config.GRAPHQL_INTROSPECTION }),
    useLiteralValues(p.face === 'admin' ? forMerchant : undefined),
    useCostReport(),
    ...(p.execution ?? []),
    useScopeCacheRelease(),
    useTracing(),
    ...(p.endpoints ?? []),
  ];
}
