// What the request plugins learn about one request, shared between them. It lives on
// Yoga's server context: one object per request, which Yoga's GraphQL context and SOFA's
// context are (or inherit from). It is never keyed by the Request, which the body plugin
// replaces once it has read the body. Plugins keep what they learn here rather than in a
// WeakMap keyed by the request: V8's young-generation collector keeps the value of such an
// entry alive once its key has died, so every request would live on until a full collection.

import type { GraphQLParams } from 'graphql-yoga';
import type { OpenTransaction } from '../db/transaction.js';
import type { Principal } from '../domain/access/principal.js';
import type { NamedCustomers } from '../domain/storefront/revisions.js';
import type { RateBudget } from './rate-limiter.js';
import type { MatchedRoute } from './rest/routes.js';

/**
 * What kind of request this is, from its path: a REST route, a GraphQL request, the OpenAPI
 * document, the admin app's pages and session endpoints ('app', refused in the REST envelope)
 * or anything else. It decides the shape of a refusal and which checks apply. (The face a
 * request reaches, public or admin, is the Yoga that serves it: docs/glossary.md.)
 */
export type RequestKind = 'rest' | 'graphql' | 'document' | 'app' | 'other';

export interface RequestState {
  /** When the request arrived (performance.now()). */
  startedAt: number;
  kind: RequestKind;
  /** REST only: the route and its path parameters. */
  route?: MatchedRoute;
  /** Public face: who the request acts as: an API key, a shopper's customer session, or a guest's publishable key. */
  principal?: Principal;
  /** Admin faces: the merchant of the admin token, or of the admin app's session. */
  merchantId?: string;
  /** Admin faces: who acts, for the audit log (`token:<admin token prefix>` or `session:<session id>`). */
  actor?: string;
  /** The request body, read once by the body plugin ('' for a request without one). */
  body: string;
  /** GraphQL: the operation's name, if it has one. */
  operationName?: string;
  /** The client's address (client-address.ts: the socket's, or X-Forwarded-For's as TRUST_PROXY allows). */
  client?: string;
  /** Whether the socket's peer is a trusted proxy (TRUST_PROXY), believed about the scheme and host (X-Forwarded-Proto, -Host). */
  proxied?: boolean;
  /** The request's id (the caller's X-Request-Id when sane), answered and logged. */
  requestId?: string;
  /** The rate limiter's headers, set on the answer of an admitted request. */
  rateLimitHeaders?: Record<string, string>;
  /** What the rate limiter left of the tightest budget (GraphQL answers report it). */
  rateBudget?: RateBudget;
  /** GraphQL: the cost of the operation, as the cost limit counts it (null: no operation to run). */
  requestedCost?: number | null;
  /** A keyed write's Idempotency-Key, and once it executes, the transaction its answer commits in. */
  idempotency?: IdempotentRequest;
  /** A customer session's request from an origin its shop allows: the answer grants CORS. */
  originGranted?: boolean;
  /** A publishable key's read of the public program, answered without an error: any cache may keep it briefly. */
  publicAnswer?: boolean;
  /** GraphQL: the request's document, operation and variables, as its answer is kept under them (plugins/response-cache.ts). */
  answerParams?: GraphQLParams;
  /**
   * GraphQL: a query whose answer may be kept: the customers it names; once its revisions are
   * read, the merchant's zone, its program's revisions and the answer's key.
   */
  answer?: { named: NamedCustomers; operation?: { id: number }; zone?: string; program?: string; key?: string };
  /** GraphQL: a query whose answers may be kept, run without the cache (its answers are seldom asked for again). */
  answerSkipped?: boolean;
}

export interface IdempotentRequest {
  merchantId: string;
  key: string;
  /** The request's fingerprint: the same key with another request is refused. */
  print: string;
  tx?: OpenTransaction;
}

const STATE = Symbol('loyalty.request');

export function requestState(serverContext: object): RequestState {
  const holder = serverContext as { [STATE]?: RequestState };
  return (holder[STATE] ??= { startedAt: performance.now(), kind: 'other', body: '' });
}
