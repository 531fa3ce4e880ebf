// Rate limits per credential (an API key, an admin token, a customer session), per client address
// for publishable storefront keys, and per merchant: 429
// rate_limited with Retry-After over a limit, and the IETF RateLimit-Policy / RateLimit
// headers on every admitted answer.
import type { Plugin } from 'graphql-yoga';
import { AppError } from '../../domain/shared/errors.js';
import { rateLimited } from '../../observability/metrics.js';
import { refusal } from '../errors.js';
import type { CredentialKind, RateLimiter } from '../rate-limiter.js';
import { type RequestState, requestState } from '../request-state.js';
import { checkRequest } from './checks.js';

/** Who a request is counted against: its credential and its merchant (none: not counted). */
type Identify = (state: RequestState) => { credential: string; merchantId: string; kind?: CredentialKind } | undefined;

/**
 * An API key; a customer session: one budget per shopper, however many tokens they were given;
 * a publishable key, which anyone can copy from a page: one budget per client address and shop.
 */
const byPrincipal: Identify = ({ principal, client }) => {
  if (!principal) return undefined;
  const { merchantId } = principal;
  if (principal.kind === 'session') return { credential: `${merchantId}:${principal.customerId}`, merchantId, kind: 'session' };
  if (principal.kind === 'guest') return { credential: `${merchantId}:${client ?? 'local'}`, merchantId, kind: 'guest' };
  return { credential: principal.keyId, merchantId };
};

export function useRateLimit(limiter: RateLimiter, identify: Identify = byPrincipal): Plugin {
  if (!limiter.enabled) return {};
  return {
    onRequest: checkRequest(async ({ state }) => {
      const who = identify(state);
      if (!who) return;
      const decision = await limiter.consume(who.credential, who.merchantId, who.kind);
      state.rateLimitHeaders = decision.headers;
      state.rateBudget = decision.budget;
      if (!decision.allowed) {
        const err = new AppError('rate_limited', `Rate limit exceeded; retry in ${decision.retryAfter} s`);
        rateLimited.inc({ face: state.kind });
        return refusal(err, state.kind);
      }
    }),
    onResponse({ serverContext, response }) {
      for (const [name, value] of Object.entries(requestState(serverContext).rateLimitHeaders ?? {})) {
        response.headers.set(name, value);
      }
    },
  };
}
