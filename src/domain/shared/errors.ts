// The one table of error codes, used by REST (status + envelope) and GraphQL (extensions).
export const errorStatus = {
  invalid_token: 401,
  insufficient_scope: 403,
  not_found: 404,
  validation_error: 422,
  adjustment_failed: 422,
  insufficient_points: 422,
  reward_unavailable: 422,
  referral_rejected: 422,
  conflict: 409,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  idempotency_in_progress: 409,
  rate_limited: 429,
  csrf_rejected: 403,
  origin_not_allowed: 403,
  operation_not_allowed: 403,
  persisted_query_not_found: 404,
  internal_error: 500,
  service_unavailable: 503,
  // GraphQL faces only. GraphQL's own codes, as Yoga (and Apollo Server) name them, which
  // GraphQL clients know: a request that is not a GraphQL request, a document that does not
  // parse or validate, no operation to run. Then the document limits (http/plugins/graphql-limits.ts).
  BAD_REQUEST: 400,
  GRAPHQL_PARSE_FAILED: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
  OPERATION_RESOLUTION_FAILURE: 400,
  query_too_deep: 400,
  query_too_costly: 400,
  too_many_aliases: 400,
  too_many_directives: 400,
  too_many_tokens: 400,
} as const;

export type ErrorCode = keyof typeof errorStatus;

/** Codes only the admin app's session endpoints answer (/admin): not part of the REST contract. */
export const adminAppOnlyCodes: ReadonlySet<ErrorCode> = new Set(['csrf_rejected']);
/** The codes of a document's limits: each a validation error of GraphQL. */
export const documentLimitCodes = [
  'query_too_deep',
  'query_too_costly',
  'too_many_aliases',
  'too_many_directives',
  'too_many_tokens',
] as const;
/** GraphQL's own codes: the request, the document and its operations, refused before anything runs. */
const graphqlRequestCodes = ['BAD_REQUEST', 'GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'OPERATION_RESOLUTION_FAILURE'] as const;
/** Codes only the GraphQL faces answer (storefront sessions, persisted operations, GraphQL's own): not part of the REST contract. */
export const graphqlOnlyCodes: ReadonlySet<ErrorCode> = new Set([
  'origin_not_allowed',
  'operation_not_allowed',
  'persisted_query_not_found',
  ...graphqlRequestCodes,
  ...documentLimitCodes,
]);
export type ErrorDetails = Record<string, string[]>;

/** A failure the client can act on: it carries a stable code and, for validation, details. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetails,
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return errorStatus[this.code];
  }

  /** GraphQL copies an error's `extensions` when it locates it, so the code survives. */
  get extensions() {
    return { code: this.code, ...(this.details && { details: this.details }), http: { status: this.status } };
  }
}

export const notFound = (what: string) => new AppError('not_found', `${what} not found`);

export function validationError(details: ErrorDetails, message = 'The request is invalid') {
  return new AppError('validation_error', message, details);
}
