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
// envelop's useResponseCache runs it: the key (async, with the revisions), the store (bytes,
// bounded), the lifetime (onTtl) and the `responseCache` extension that says hit or miss. Not
// Yoga's wrapper of it: that answers If-None-Match with 304 whenever an entry keyed by the sent
// ETag is still in this process's memory, without reading the revisions, so after a change made
// through another instance (or a job) it would confirm a stale answer; and its ETag is the key,
// which stays the same while the clock changes the answer. Here the ETag is of the answer's data
// (answer-store.ts), compared after the revisions were read.
import { createHash } from 'node:crypto';
import type { Plugin as EnvelopPlugin } from '@envelop/core';
import { useResponseCache as useEnvelopResponseCache } from '@envelop/response-cache';
import type { ExecutionResult } from 'graphql';
import type { Plugin, YogaServerOptions } from 'graphql-yoga';
import type { Principal } from '../../domain/access/principal.js';
import { dayStartFrom } from '../../domain/shared/calendar.js';
import { readRevisions } from '../../domain/storefront/revisions.js';
import type { Context } from '../../graphql/builder.js';
import { customersNamed } from '../../graphql/cached.js';
import { answerStore } from '../answer-store.js';
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

/** Which answers may be kept: the queries whose root fields all declare their dependencies (cached.ts). */
function usePlan(): EnvelopPlugin<Context> {
  return {
    onExecute({ args }) {
      const ctx = args.contextValue;
      const state = requestState(ctx);
      if (state.kind !== 'graphql' || !ctx.principal) return;
      const named = customersNamed(args.schema, args.document, args.operationName, args.variableValues);
      if (!named) return;
      if (ctx.principal.kind === 'session') named.ids.push(ctx.principal.customerId);
      state.answer = { named };
      ctx.answerLife = { until: Number.POSITIVE_INFINITY };
    },
  };
}

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
function useAnswerHeaders(): Plugin {
  return {
    onResultProcess({ request, result, setResult, setResultProcessor, acceptableMediaTypes, serverContext }) {
      if (!requestState(serverContext).answer || Array.isArray(result) || Symbol.asyncIterator in result) return;
      const single = result as ExecutionResult<unknown, CacheExtensions>;
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
      const http = single.extensions?.http;
      setResult({
        ...single,
        extensions: { ...single.extensions, http: { ...http, headers: { ...http?.headers, 'Cache-Status': status } } },
      });
    },
  };
}

/**
 * The plugins, in their order: after compiled execution, whose execute the cache wraps. `maxBytes`:
 * the bytes of answers this process keeps (0: none, and nothing is read for them).
 */
export function useResponseCache(maxBytes: number): FacePlugin[] {
  if (maxBytes <= 0) return [];
  return [
    usePlan(),
    useEnvelopResponseCache<Context>({
      cache: answerStore(maxBytes),
      session: (ctx) => viewerOf(ctx.principal),
      enabled: (ctx) => requestState(ctx).answer !== undefined,
      async buildResponseCacheKey({ documentString, operationName, variableValues, sessionId, context }) {
        const ctx = context as Context;
        const answer = requestState(ctx).answer!;
        const revisions = await readRevisions(ctx.db, ctx.merchantId, answer.named);
        answer.zone = revisions?.zone;
        return createHash('sha256')
          .update(
            [
              ctx.merchantId,
              sessionId,
              operationName ?? '',
              documentString,
              JSON.stringify(variableValues ?? {}),
              revisions?.key ?? '',
            ].join('\n'),
          )
          .digest('base64url');
      },
      // answers are kept under their revisions: nothing a mutation returns is needed to drop them
      invalidateViaMutation: false,
      idFields: [],
      shouldCacheResult: ({ result }) => !result.errors?.length,
      // the earliest change the fields noted, and the merchant's day: calendar figures move at its end
      onTtl({ ttl, context }) {
        const now = Date.now();
        const zone = requestState(context).answer?.zone;
        const dayEnds = zone ? dayStartFrom(new Date(now), 1, zone).getTime() : now;
        return Math.min(ttl, Math.min(context.answerLife?.until ?? now, dayEnds) - now);
      },
      includeExtensionMetadata: true,
    }),
    useAnswerHeaders(),
  ];
}
