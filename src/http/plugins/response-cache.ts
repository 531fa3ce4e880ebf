// Storefront answers served again from memory, exactly. A query on /graphql whose every root
// field declares what it depends on (graphql/cached.ts: the program, or the program and the
// customer it names) is kept per document, variables, viewer and its scopes, under the revisions
// of the merchant's row, its program and the customers named (domain/storefront/revisions.ts),
// read in one statement before the answer is computed. Every write that can change an answer
// moves one of them in its own transaction, so a kept answer is served only while it is what
// executing the document would answer, on every instance. What changes with the clock alone
// ends a kept answer's life: a code's expiry, a booster's start or end, a rolling tier window,
// as the fields computing them note it, and at the latest the merchant's next local midnight.
//
// A query sent again is answered before it is parsed (useKeptAnswers): its operation, learnt
// from its first run, says which customers to read the revisions of, and the kept answer under
// the key they make is served as it was sent. envelop's useResponseCache runs the first request
// of an operation and every miss: the key (the revisions read once a request), the store
// (bounded), the lifetime (onTtl) and the `responseCache` extension that says hit or miss. Not
// Yoga's wrapper of it: that answers If-None-Match with 304 whenever an entry keyed by the sent
// ETag is still in this process's memory, without reading the revisions, so after a change made
// through another instance (or a job) it would confirm a stale answer; and its ETag is the key,
// which stays the same while the clock changes the answer. Here the ETag is of the answer's data
// (answer-store.ts), compared after the revisions were read.
import type { Plugin as EnvelopPlugin } from '@envelop/core';
import { useResponseCache as useEnvelopResponseCache } from '@envelop/response-cache';
import type { ExecutionResult } from 'graphql';
import type { GraphQLParams, Plugin, YogaServerOptions } from 'graphql-yoga';
import type { Db } from '../../db/client.js';
import type { Principal } from '../../domain/access/principal.js';
import { localDayEnd } from '../../domain/shared/calendar.js';
import { type Revisions, readRevisions } from '../../domain/storefront/revisions.js';
import type { Context } from '../../graphql/builder.js';
import { type AnswerPlan, answerPlan, customersNamed } from '../../graphql/cached.js';
import { type AnswerStore, answerStore, type KeptAnswer } from '../answer-store.js';
import { requestState } from '../request-state.js';

/** A plugin as the public face's Yoga takes it: Yoga's own, or envelop's. */
type FacePlugin = NonNullable<YogaServerOptions<object, Context>['plugins']>[number];

/** Who an answer is for: the same document gives another answer to another viewer or other scopes. */
function viewerOf(principal: Principal | null): string {
  if (!principal) return '';
  switch (principal.kind) {
    case 'api_key':
      return `key:${principal.keyId}:${principal.scopes.join(' ')}`;
    case 'session':
      // every session of one shopper with the same grants is answered alike
      return `shopper:${principal.customerId}:${principal.scopes.join(' ')}`;
    case 'guest':
      // a publishable key has no scope: every visitor of the shop is answered alike
      return 'guest';
  }
}

/** What a document's operation, once run, gives a request that sends its text again. */
interface KnownOperation {
  /** Names the operation (with its text) in the keys of its answers. */
  id: number;
  /** Null: the operation's answers are never kept. */
  plan: AnswerPlan | null;
  operationName?: string;
  cost?: number | null;
  /** How often its kept answers are asked for again. */
  asks: Asks;
}

/**
 * A kept answer costs every request of its operation a read of the revisions, a round trip of
 * its own before anything runs, and saves the run of the document when it is asked for again. It
 * pays only when the share of requests it answers is above what the read costs over what a run
 * costs (both timed per operation; half at most): a key's reads of random customers, or a panel read after
 * each change, would pay the read for nothing. So each operation counts its hits over WINDOW
 * requests; under that share, its next SKIPPED requests run without the cache (no revisions
 * read, nothing kept: always exact), then it is counted again.
 */
export const ASKS = { WINDOW: 500, SKIPPED: 4_500 };

interface Asks {
  asked: number;
  hits: number;
  /** Requests left to run without the cache. */
  skip: number;
  /** Moving averages (ms): a read of the revisions, and a run of the document after a miss. */
  readMs: number;
  runMs: number;
}

const newAsks = (): Asks => ({ asked: 0, hits: 0, skip: 0, readMs: Number.NaN, runMs: Number.NaN });

/** A moving average over about the last 20 samples (the first sample starts it). */
const averaged = (average: number, sample: number) => (Number.isNaN(average) ? sample : average + (sample - average) / 20);

/** Whether this request of the operation runs without the cache (counted). */
function skipsCache(asks: Asks): boolean {
  if (asks.skip === 0) return false;
  asks.skip--;
  return true;
}

function counted(asks: Asks, hit: boolean) {
  asks.asked++;
  if (hit) asks.hits++;
  if (asks.asked < ASKS.WINDOW) return;
  // no run timed yet (every request a hit, or none ended): the cache is kept; and so it is
  // whenever half the requests or more are hits (a run saves the database its statements too)
  const paysAbove = Number.isNaN(asks.runMs) ? 0 : Math.min(0.5, asks.readMs / asks.runMs);
  if (asks.hits < asks.asked * paysAbove) asks.skip = ASKS.SKIPPED;
  asks.asked = asks.hits = 0;
}

/** Operations learnt, by text; bounded like Yoga's parser cache (documents sent in full are bounded in length). */
const KNOWN_OPERATIONS = 1000;

function knownOperations() {
  const known = new Map<string, KnownOperation>();
  let ids = 0;
  const textOf = (params: GraphQLParams) => `${params.operationName ?? ''}\n${params.query}`;
  return {
    get: (params: GraphQLParams) => known.get(textOf(params)),
    learn(params: GraphQLParams, operation: Omit<KnownOperation, 'id' | 'asks'>): KnownOperation {
      if (known.size >= KNOWN_OPERATIONS) known.delete(known.keys().next().value!);
      const learnt = { ...operation, id: ++ids, asks: newAsks() };
      known.set(textOf(params), learnt);
      return learnt;
    },
  };
}
type KnownOperations = ReturnType<typeof knownOperations>;

/** The key an answer is kept under: who asks, what (the operation's text, by its id), and the revisions of what it depends on. */
function answerKey(principal: Principal, operation: { id: number }, params: GraphQLParams, revisions: Revisions | null) {
  return `${operation.id}\n${principal.merchantId}\n${viewerOf(principal)}\n${JSON.stringify(params.variables ?? {})}\n${revisions?.key ?? ''}`;
}

/** The customers an answer depends on: those its arguments name, and a session's own. */
function namedFor(principal: Principal, plan: AnswerPlan, variables: GraphQLParams['variables']) {
  const named = customersNamed(plan, variables);
  if (principal.kind === 'session') named.ids.push(principal.customerId);
  return named;
}

/**
 * A query sent again is answered here, before it is parsed, validated and run, when its
 * operation is known to be cacheable and an answer is kept under the revisions read now; the
 * rest of the request path (the result's extensions and headers) runs as for any answer. It
 * may be answered only so because a kept answer was computed from the same text, variables
 * and viewer, which parse, validate and coerce alike every time. On a miss the revisions read
 * here make the key the cache looks up after execution: read once a request.
 */
function useKeptAnswers(store: AnswerStore, known: KnownOperations, runs: Runs, dbFor: (merchantId: string) => Promise<Db>): Plugin {
  return {
    onParams({ params, context, setResult }) {
      const state = requestState(context);
      const principal = state.principal;
      if (state.kind !== 'graphql' || !principal || typeof params.query !== 'string') return;
      state.answerParams = params;
      const operation = known.get(params);
      if (!operation?.plan) return;
      if (skipsCache(operation.asks)) {
        state.answerSkipped = true;
        return;
      }
      const named = namedFor(principal, operation.plan, params.variables);
      const asked = performance.now();
      return dbFor(principal.merchantId)
        .then((db) => readRevisions(db, principal.merchantId, named))
        .then((revisions) => {
          const read = performance.now();
          operation.asks.readMs = averaged(operation.asks.readMs, read - asked);
          const key = answerKey(principal, operation, params, revisions);
          state.answer = { named, operation, zone: revisions?.zone, program: revisions?.program, key };
          const kept = store.find(key);
          counted(operation.asks, Boolean(kept));
          if (!kept) return void runs.set(state, { asks: operation.asks, from: read });
          state.operationName = operation.operationName;
          state.requestedCost = operation.cost;
          setResult(withHit(kept));
        });
    },
  };
}

/** A hit's answer: the kept one, said to be a hit, written with the kept data's JSON. */
const withHit = ({ result, stringify }: KeptAnswer): ExecutionResult & Pick<KeptAnswer, 'stringify'> => ({
  ...result,
  extensions: { ...result.extensions, responseCache: { hit: true } },
  stringify,
});

/** Which answers may be kept: the queries whose root fields all declare their dependencies (cached.ts); learnt per text. */
function usePlan(known: KnownOperations): EnvelopPlugin<Context> {
  return {
    onExecute({ args }) {
      const ctx = args.contextValue;
      const state = requestState(ctx);
      const params = state.answerParams;
      if (state.kind !== 'graphql' || !ctx.principal || !params || state.answerSkipped) return;
      const plan = answerPlan(args.schema, args.document, args.operationName);
      const operation = known.get(params) ?? known.learn(params, { plan, operationName: state.operationName, cost: state.requestedCost });
      if (!plan) return;
      state.answer ??= { named: namedFor(ctx.principal, plan, params.variables), operation };
      ctx.answerLife = { until: Number.POSITIVE_INFINITY };
      ctx.programRevision = state.answer.program;
    },
  };
}

/** The misses under way: their operation's counts, and when their run began (after the revisions). */
type Runs = WeakMap<object, { asks: Asks; from: number }>;

/** `If-None-Match`: `*` or a list of (weakly compared) entity tags. */
function matches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = etag.replace(/^W\//, '');
  return ifNoneMatch
    .split(',')
    .map((t) => t.trim())
    .some((t) => t === '*' || t.replace(/^W\//, '') === opaque);
}

type CacheExtensions = {
  responseCache?: { hit: boolean; didCache?: boolean; ttl?: number };
  http?: { headers?: Record<string, string> };
};

/**
 * The answer's `Cache-Status` (RFC 9211) and ETag headers, and 304 with no body when the client
 * already holds this answer (If-None-Match).
 */
function useAnswerHeaders(runs: Runs): Plugin {
  return {
    onResultProcess({ request, result, setResult, setResultProcessor, acceptableMediaTypes, serverContext }) {
      const state = requestState(serverContext);
      const run = runs.get(state);
      if (run) {
        run.asks.runMs = averaged(run.asks.runMs, performance.now() - run.from);
        runs.delete(state);
      }
      if (!(state.answer || state.answerSkipped) || Array.isArray(result) || Symbol.asyncIterator in result) return;
      const single = result as ExecutionResult<unknown, CacheExtensions>;
      if (state.answerSkipped) {
        setResult(withStatus(single, 'loyalty; fwd=bypass'));
        return;
      }
      const cache = single.extensions?.responseCache;
      if (!cache) return;
      const status = cache.hit
        ? 'loyalty; hit'
        : `loyalty; fwd=miss${cache.didCache ? `; stored; ttl=${Math.floor((cache.ttl ?? 0) / 1000)}` : ''}`;
      const etag = single.extensions?.http?.headers?.ETag;
      if (etag && matches(request.headers.get('if-none-match'), etag)) {
        setResultProcessor(
          (_result, fetchAPI) => new fetchAPI.Response(null, { status: 304, headers: { ETag: etag, 'Cache-Status': status } }),
          acceptableMediaTypes[0] ?? 'application/json',
        );
        return;
      }
      setResult(withStatus(single, status));
    },
  };
}

/** The result with its `Cache-Status` header. */
function withStatus(result: ExecutionResult<unknown, CacheExtensions>, status: string): ExecutionResult<unknown, CacheExtensions> {
  const http = result.extensions?.http;
  return { ...result, extensions: { ...result.extensions, http: { ...http, headers: { ...http?.headers, 'Cache-Status': status } } } };
}

/**
 * The plugins, in their order: after compiled execution, whose execute the cache wraps. `maxBytes`:
 * the bytes of answers this process keeps (0: none, and nothing is read for them).
 */
export function useResponseCache(maxBytes: number, dbFor: (merchantId: string) => Promise<Db>): FacePlugin[] {
  if (maxBytes <= 0) return [];
  const store = answerStore(maxBytes);
  const known = knownOperations();
  const runs: Runs = new WeakMap();
  return [
    useKeptAnswers(store, known, runs, dbFor),
    usePlan(known),
    useEnvelopResponseCache<Context>({
      cache: store,
      session: (ctx) => viewerOf(ctx.principal),
      enabled: (ctx) => requestState(ctx).answer !== undefined,
      async buildResponseCacheKey({ context }) {
        const ctx = context as Context;
        const state = requestState(ctx);
        const answer = state.answer!;
        if (answer.key) return answer.key;
        // the operation's first request: it was learnt just now
        const revisions = await readRevisions(ctx.db, ctx.merchantId, answer.named);
        answer.zone = revisions?.zone;
        ctx.programRevision = answer.program = revisions?.program;
        return (answer.key = answerKey(ctx.principal!, answer.operation!, state.answerParams!, revisions));
      },
      // answers are kept under their revisions: nothing a mutation returns is needed to drop them
      invalidateViaMutation: false,
      idFields: [],
      shouldCacheResult: ({ result }) => !result.errors?.length,
      // the earliest change the fields noted, and the merchant's day: calendar figures move at its end
      onTtl({ ttl, context }) {
        const now = Date.now();
        const zone = requestState(context).answer?.zone;
        const dayEnds = zone ? localDayEnd(new Date(now), zone).getTime() : now;
        return Math.min(ttl, Math.min(context.answerLife?.until ?? now, dayEnds) - now);
      },
      includeExtensionMetadata: true,
    }),
    useAnswerHeaders(runs),
  ];
}
