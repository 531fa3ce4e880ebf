// Rate limits per API key and per merchant: 429 rate_limited with Retry-After over a
// limit, and the IETF RateLimit-Policy / RateLimit headers on every admitted answer.
import type { Plugin } from 'graphql-yoga';
import { AppError } from '../../domain/errors.js';
import { refusal } from '../errors.js';
import type { RateLimiter } from '../rate-limiter.js';
import { requestState } from '../request-state.js';
import { checkRequest } from './checks.js';

export function useRateLimit(limiter: RateLimiter): Plugin {
  if (!limiter.enabled) return {};
  const headers = new WeakMap<object, Record<string, string>>();
  return {
    onRequest: checkRequest(async ({ state }) => {
      if (!state.principal) return;
      const decision = await limiter.consume(state.principal.keyId, state.principal.merchantId);
      headers.set(state, decision.headers);
      if (!decision.allowed) {
        const err = new AppError('rate_limited', `Rate limit exceeded; retry in ${decision.retryAfter} s`);
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
