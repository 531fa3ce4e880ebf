// The admin app's GraphQL client (urql): every request goes to /admin/app/graphql with the
// session cookie (HttpOnly: the page never sees it) and the session's CSRF token in a header.
// A mutation that must not run twice (a manual adjustment) carries an Idempotency-Key.
import { Client, type CombinedError, cacheExchange, fetchExchange, mapExchange } from 'urql';
import { messages } from '../../src/domain/shared/messages';

const GRAPHQL_URL = '/admin/app/graphql';
export const SESSION_URL = '/admin/session';
/** How long a session lasts, as the service is configured (no session needed). */
export const SESSION_POLICY_URL = '/admin/session/policy';

export interface SessionPolicy {
  idle_seconds: number;
  max_seconds: number;
}

let csrfToken = '';
let onSessionEnded: () => void = () => {};

export function setCsrfToken(token: string) {
  csrfToken = token;
}

export function whenSessionEnds(handler: () => void) {
  onSessionEnded = handler;
}

export const csrfHeaders = () => ({ 'x-csrf-token': csrfToken });

export const client = new Client({
  url: GRAPHQL_URL,
  // fresh data after every change: show what is cached, then what the server says
  requestPolicy: 'cache-and-network',
  // every operation is a POST (urql sends queries as GET by default): one shape for the endpoint's checks
  preferGetMethod: false,
  fetchOptions: () => ({ credentials: 'same-origin', headers: csrfHeaders() }),
  exchanges: [
    mapExchange({
      onError(error) {
        if (codeOf(error) === 'invalid_token') onSessionEnded();
      },
    }),
    cacheExchange,
    fetchExchange,
  ],
});

/** The options of a mutation sent with an Idempotency-Key. */
export const idempotent = (key: string) => ({
  fetchOptions: { credentials: 'same-origin' as const, headers: { ...csrfHeaders(), 'idempotency-key': key } },
});

/** The error code the API answered (extensions.code), if any. */
export function codeOf(error: CombinedError | undefined): string | undefined {
  const code = error?.graphQLErrors[0]?.extensions?.code;
  return typeof code === 'string' ? code : undefined;
}

export type FieldErrors = Record<string, string[]>;

/** validation_error details: field path (e.g. reward_rule.discount_value) → messages. */
export function fieldErrorsOf(error: CombinedError | undefined): FieldErrors {
  const details = error?.graphQLErrors[0]?.extensions?.details;
  return details && typeof details === 'object' ? (details as FieldErrors) : {};
}

/** A sentence for the person: the API's message, or what went wrong with the network. */
export function messageOf(error: CombinedError | undefined): string | undefined {
  if (!error) return undefined;
  if (error.graphQLErrors[0]) return error.graphQLErrors[0].message;
  return messages.unreachable;
}
