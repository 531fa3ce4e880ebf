// Idempotency-Key on writes (REST mutations, GraphQL mutations, on the public and admin faces):
// the first answer is stored and replayed for a retry with the same key and request
// (idempotency-store.ts has the rules). A keyed mutation runs in one transaction, opened when it
// executes: the key's claim, every write of the mutation and its stored answer commit together,
// when the answer is ready. Expired keys are purged a minute after the plugin starts and then
// every hour.
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Db } from '../../db/client.js';
import { type OpenTransaction, openTransaction } from '../../db/transaction.js';
import { AppError } from '../../domain/shared/errors.js';
import type { Context } from '../../graphql/builder.js';
import { faultPoint } from '../../observability/faults.js';
import { idempotencyKeyRows, idempotentReplays } from '../../observability/metrics.js';
import { asAppError, refusal, toGraphQLError } from '../errors.js';
import {
  claimIn,
  fingerprint,
  IDEMPOTENCY_HEADER,
  inProgress,
  purgeExpired,
  storeAnswerIn,
  storedAnswer,
  validateKey,
} from '../idempotency-store.js';
import { type IdempotentRequest, type RequestState, requestState } from '../request-state.js';
import { checkRequest } from './checks.js';

const PURGE_EVERY_MS = 3600_000;
/** Not at once: a purge at start would compete with the first answers for the database. */
const FIRST_PURGE_AFTER_MS = 60_000;

export function useIdempotency(
  db: Db,
  { requestTimeoutMs, onPurgeError }: { requestTimeoutMs: number; onPurgeError: (err: unknown) => void },
): Plugin & { stop(): void } {
  const purge = () =>
    void purgeExpired(db)
      .then(() => db.idempotencyKey.count())
      .then((rows) => idempotencyKeyRows.set(rows))
      .catch(onPurgeError);
  const first = setTimeout(purge, FIRST_PURGE_AFTER_MS).unref();
  const timer = setInterval(purge, PURGE_EVERY_MS).unref();

  /** Opens the mutation's transaction and claims the key in it: the refusal to answer, if any. */
  async function claim(request: IdempotentRequest): Promise<AppError | undefined> {
    let tx: OpenTransaction;
    try {
      tx = await openTransaction(db, requestTimeoutMs);
    } catch (err) {
      // the database is unreachable, or too busy to start a transaction: 503, nothing changed
      return asAppError(err);
    }
    try {
      if (await claimIn(tx.client, request.merchantId, request.key, request.print, requestTimeoutMs)) {
        request.tx = tx;
        return undefined;
      }
      // another request with this key answered meanwhile: its answer is replayed on a retry
      await tx.rollback();
      return inProgress();
    } catch (err) {
      await tx.rollback();
      return asAppError(err);
    }
  }

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
      const print = fingerprint(who, request, url, state.body);
      return storedAnswer(db, merchantId, key, print).then((answer) => {
        if (answer) {
          idempotentReplays.inc();
          return answer;
        }
        state.idempotency = { merchantId, key, print };
      });
    }),
    onExecute({ args, setResultAndStopExecution }) {
      const state = requestState(args.contextValue);
      const request = state.idempotency;
      if (!request || request.tx) return;
      // only a mutation changes anything; a keyed query answers as it would without a key
      if (getOperationAST(args.document, args.operationName)?.operation !== 'mutation') {
        state.idempotency = undefined;
        return;
      }
      return claim(request).then((refused) => {
        if (refused) {
          state.idempotency = undefined;
          setResultAndStopExecution({ errors: [toGraphQLError(refused)] });
        } else {
          (args.contextValue as unknown as Context).db = request.tx!.client;
        }
      });
    },
    onResponse({ serverContext, response, setResponse }) {
      const state = requestState(serverContext);
      const tx = state.idempotency?.tx;
      if (!tx) return;
      return settle(state, state.idempotency!, tx, response).then((failed) => {
        if (failed) setResponse(failed);
      });
    },
    stop: () => {
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}

/**
 * Commits the mutation with its stored answer, or rolls it back when the answer must not be
 * replayed (a 5xx, or a refusal as invalid that changed nothing). Returns the answer to send
 * instead when the commit failed: then nothing the first answer says may have happened is
 * promised, and a retry with the key finds out (replayed if it committed, run if not).
 */
async function settle(state: RequestState, request: IdempotentRequest, tx: OpenTransaction, response: Response) {
  const body = await response.clone().text();
  const parsed = parseAnswer(body);
  const changed = response.status < 300 || hasData(parsed);
  if (response.status >= 500 || (!changed && isValidationFailure(parsed))) {
    await tx.rollback();
    // an answer that reports a change that is now rolled back must not go out
    return changed ? unavailable(state, response) : undefined;
  }
  try {
    await storeAnswerIn(tx.client, request.merchantId, request.key, {
      status: response.status,
      body,
      type: response.headers.get('content-type'),
    });
    await faultPoint('idempotency.stored');
    await tx.commit();
  } catch {
    // the answer could not be stored or committed (the database went away, or a refusal's failed
    // statement, a unique violation, had aborted the transaction): nothing of it is kept, and a
    // refusal that changed nothing stands, unstored
    await tx.rollback();
    return changed ? unavailable(state, response) : undefined;
  }
  await faultPoint('idempotency.committed');
  return undefined;
}

type Answer = { data?: unknown; error?: { code?: string }; errors?: { extensions?: { code?: string } }[] } | null;

function parseAnswer(body: string): Answer {
  try {
    return JSON.parse(body) as Answer;
  } catch {
    return null;
  }
}

/** A GraphQL answer in which some mutation field answered. */
const hasData = (answer: Answer) =>
  answer !== null && typeof answer.data === 'object' && answer.data !== null && Object.values(answer.data).some((v) => v !== null);

const isValidationFailure = (answer: Answer) =>
  answer?.error?.code === 'validation_error' ||
  (answer?.errors ?? []).some((e) => e.extensions?.code === 'validation_error' || e.extensions?.code === undefined);

function unavailable(state: RequestState, sent: Response) {
  const answer = refusal(
    new AppError(
      'service_unavailable',
      'The change could not be confirmed; a retry with the same Idempotency-Key replays its answer if it was made, and makes it if not',
    ),
    state.kind,
  );
  // what other plugins set on the first answer (CORS, request id, rate limits) still applies
  for (const [name, value] of sent.headers) if (name !== 'content-type' && name !== 'content-length') answer.headers.set(name, value);
  return answer;
}
