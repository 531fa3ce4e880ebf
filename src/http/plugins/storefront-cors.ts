// CORS for storefronts: a page may call /graphql with a customer session or a publishable
// storefront key only from an origin its merchant allows (storefront settings), besides the operator's CORS_ORIGINS
// (Yoga's own CORS, unchanged). A preflight carries no Authorization header, so it cannot name
// the merchant: it is granted when *some* merchant allows its origin (an origin no merchant
// lists gets no grant, so the browser never sends the request), and the actual request is then
// held to its own session's (or key's) merchant: a session or publishable key from a page of an
// origin its merchant does not list is 403 origin_not_allowed, before anything runs. Requests without an Origin (the
// merchant's servers) and API key requests are not affected.
import type { Plugin } from 'graphql-yoga';
import type { Db } from '../../db/client.js';
import { AppError } from '../../domain/shared/errors.js';
import { whenReady } from '../../domain/shared/maybe-promise.js';
import { anyStorefrontAllows, type StorefrontCache } from '../../domain/storefront/storefront-settings.js';
import { requestState } from '../request-state.js';
import { checkRequest } from './checks.js';

/** How long a browser may keep a preflight's grant, the operator's (Yoga's CORS) and a storefront's alike. */
export const CORS_MAX_AGE_SECONDS = 600;
// If-None-Match and ETag: a page's script revalidates the answer it kept (plugins/response-cache.ts)
export const corsAllowedHeaders = ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-None-Match', 'X-Request-Id'];
export const corsExposedHeaders = [
  'X-Request-Id',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Idempotent-Replayed',
  'ETag',
  'Cache-Status',
];

function grant(headers: Headers, origin: string) {
  headers.set('Access-Control-Allow-Origin', origin);
  headers.append('Vary', 'Origin');
  headers.delete('Access-Control-Allow-Credentials');
}

export interface StorefrontCorsOptions {
  db: Db;
  storefronts: StorefrontCache;
  /** CORS_ORIGINS: the operator's origins, served by Yoga's own CORS as before. */
  operatorOrigins: string[];
  graphqlPath: string;
}

export function storefrontCors({ db, storefronts, operatorOrigins, graphqlPath }: StorefrontCorsOptions) {
  const foreignOrigin = (request: Request) => {
    const origin = request.headers.get('origin');
    return origin && !operatorOrigins.includes(origin) ? origin : undefined;
  };

  const preflightOrigin = (request: Request, url: URL) =>
    request.method === 'OPTIONS' && url.pathname === graphqlPath ? foreignOrigin(request) : undefined;
  const grantPreflight = (headers: Headers, origin: string) => {
    headers.set('Access-Control-Allow-Methods', 'GET, POST');
    headers.set('Access-Control-Allow-Headers', corsAllowedHeaders.join(', '));
    headers.set('Access-Control-Max-Age', String(CORS_MAX_AGE_SECONDS));
    grant(headers, origin);
  };

  /**
   * Before authentication: answers the preflight of an origin some merchant allows. With
   * CORS_ORIGINS set, Yoga's own CORS answers every preflight first; the grant is then added
   * to its answer.
   */
  const preflight: Plugin = {
    onRequest: checkRequest(({ request, url }) => {
      const origin = preflightOrigin(request, url);
      if (!origin) return;
      return anyStorefrontAllows(db, origin).then((allowed) => {
        if (!allowed) return;
        const headers = new Headers({ 'Content-Length': '0' });
        grantPreflight(headers, origin);
        return new Response(null, { status: 204, headers });
      });
    }),
    onResponse({ request, response }) {
      if (request.method !== 'OPTIONS') return;
      const origin = preflightOrigin(request, new URL(request.url));
      if (!origin || response.headers.get('Access-Control-Allow-Origin') === origin) return;
      return anyStorefrontAllows(db, origin).then((allowed) => void (allowed && grantPreflight(response.headers, origin)));
    },
  };

  /** After authentication: a session's or publishable key's page must be of an origin its merchant allows. */
  const actual: Plugin = {
    onRequest: checkRequest(({ request, state }) => {
      const origin = foreignOrigin(request);
      const kind = state.principal?.kind;
      if (state.kind !== 'graphql' || (kind !== 'session' && kind !== 'guest') || !origin) return;
      return whenReady(storefronts.get(state.principal!.merchantId), ({ allowedOrigins }) => {
        if (!allowedOrigins.includes(origin.toLowerCase())) {
          const what = kind === 'guest' ? 'its publishable keys' : 'customer sessions';
          throw new AppError('origin_not_allowed', `The shop does not allow ${what} from ${origin}`);
        }
        state.originGranted = true;
      });
    }),
    onResponse({ request, serverContext, response }) {
      const origin = request.headers.get('origin');
      if (!origin || !requestState(serverContext).originGranted) return;
      grant(response.headers, origin);
      response.headers.set('Access-Control-Expose-Headers', corsExposedHeaders.join(', '));
    },
  };
  return { preflight, actual };
}
