// Idempotency-Key on writes (REST mutations, GraphQL POSTs, on the public and admin faces): the first answer is stored and
// replayed for a retry with the same key and request (idempotency-store.ts has the rules).
// Expired keys are purged a minute after the plugin starts and then every hour.
import type { Plugin } from 'graphql-yoga';
import type { Db } from '../../db/client.js';
import { idempotentReplays } from '../../observability/metrics.js';
import { IDEMPOTENCY_HEADER, claim, fingerprint, purgeExpired, settle, validateKey } from '../idempotency-store.js';
import { requestState } from '../request-state.js';
import { checkRequest } from './checks.js';

const PURGE_EVERY_MS = 3600_000;
/** Not at once: a purge at start would compete with the first answers for the database. */
const FIRST_PURGE_AFTER_MS = 60_000;

export function useIdempotency(db: Db, onPurgeError: (err: unknown) => void): Plugin & { stop(): void } {
  const purge = () => void purgeExpired(db).catch(onPurgeError);
  const first = setTimeout(purge, FIRST_PURGE_AFTER_MS).unref();
  const timer = setInterval(purge, PURGE_EVERY_MS).unref();
  return {
    onRequest: checkRequest(({ request, url, state }) => {
      const key = request.headers.get(IDEMPOTENCY_HEADER);
      // an API key's merchant (public face) or the admin token's or session's (admin faces)
      const merchantId = state.principal?.merchantId ?? state.merchantId;
      if (key === null || !merchantId) return;
      const isWrite = state.route ? state.route.route.field.startsWith('Mutation.') : request.method === 'POST';
      if (!isWrite) return;
      validateKey(key);
      // a shopper's session never replays an answer given to the merchant's backend or to another shopper
      const who = state.principal?.kind === 'session' ? `${merchantId}/${state.principal.customerId}` : merchantId;
      return claim(db, merchantId, key, fingerprint(who, request, url, state.body)).then((claimed) => {
        if (claimed.kind === 'replay') {
          idempotentReplays.inc();
          return claimed.response;
        }
        state.idempotencyKey = claimed.key;
      });
    }),
    onResponse({ serverContext, response }) {
      const key = requestState(serverContext).idempotencyKey;
      if (key) return settle(db, key, response).catch(() => {});
    },
    stop: () => {
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}
