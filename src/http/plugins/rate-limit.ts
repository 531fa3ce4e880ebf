// Rate limits per credential (an API key, an admin token) and per merchant: 429
// rate_limited with Retry-After over a limit, and the IETF RateLimit-Policy / RateLimit
// headers on every admitted answer.
import type { Plugin } from 'graphql-yoga';
import { AppError } from '../../domain/shared/errors.js';
import { rateLimited } from '../../observability/metrics.js';
import { refusal } from '../errors.js';
import type { RateLimiter } from '../rate-limiter.js';
import { type RequestState, requestState } from '../request-state.js';
import { checkRequest } from './checks.js';

/** Who a request is counted against: its credential and its merchant (none: not counted). */
type Identify = (state: RequestState) => { credential: string; merchantId: string } | undefined;

const byApiKey: Identify = ({ principal }) => principal && { credential: principal.keyId, merchantId: principal.merchantId };

export function useRateLimit(limiter: RateLimiter, identify: Identify = byApiKey): Plugin {
  if (!limiter.enabled) return {};
  const headers = new WeakMap<object, Record<string, string>>();
  return {
    onRequest: checkRequest(async ({ state }) => {
      const who = identify(state);
      if (!who) return;
      const decision = await limiter.consume(who.credential, who.merchantId);
      headers.set(state, decision.headers);
      if (!decision.allowed) {
        const err = new AppError('rate_limited', `Rate limit exceeded; retry in ${decision.retryAfter} s`);
        rateLimited.inc({ face: state.face });
        return refusal(err, state.face);
      }
    }),
    onResponse({ serverContext, response }) {
      for (const [name, value] of Object.entries(headers.get(requestState(serverContext)) ?? {})) {
        response.headers.set(name, value);
      }
    },
  };
}
