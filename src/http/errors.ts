// Failures as answers: the REST envelope { error: { code, message, details? } }, GraphQL
// errors with the same code in extensions, and the mapping of every failure (ours,
// GraphQL's, the database's) onto the codes of domain/shared/errors.ts. SOFA's errors reach
// rest/error-handler.ts through maskError, which has given them their codes.
import { GraphQLError } from 'graphql';
import { databaseTrouble, isShardMoved } from '../db/errors.js';
import { AppError, type documentLimitCodes, type ErrorCode, type ErrorDetails, errorStatus } from '../domain/shared/errors.js';
import { inMerchantWords } from '../domain/shared/messages.js';
import type { RequestKind } from './request-state.js';

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details?: ErrorDetails;
}

function errorResponse(status: number, body: ErrorBody, headers: Record<string, string> = {}) {
  return Response.json({ error: body }, { status, headers });
}

export function appErrorResponse(err: AppError) {
  return errorResponse(err.status, { code: err.code, message: err.message, ...(err.details && { details: err.details }) });
}

export const isCode = (code: unknown): code is ErrorCode => typeof code === 'string' && Object.hasOwn(errorStatus, code);

/** The words of a 503 for each trouble: an operator reading them looks for the database, or for load. */
const TROUBLE_MESSAGES = {
  down: 'The database is unavailable; nothing was changed, retry shortly',
  busy: 'The database is too busy to take this request now; nothing was changed, retry shortly',
} as const;

/** Our errors as GraphQL errors: the code (and details) in extensions, the REST status in http. */
export function toGraphQLError(err: AppError, path?: GraphQLError['path']) {
  return new GraphQLError(err.message, { path, extensions: err.extensions });
}

/**
 * Yoga's maskError, for every GraphQL face and REST (SOFA runs through it): every error leaves
 * with a code of the table. Ours keep theirs; GraphQL's own failures - the client's - get
 * theirs in place (a variable that does not coerce is validation_error, a mutation over GET
 * method_not_allowed, any other refusal of the request BAD_REQUEST); anything else is an
 * opaque 500 internal_error, which Yoga logs with its stack.
 */
export function maskError(error: unknown, message: string): Error {
  const gqlError = error instanceof GraphQLError ? error : undefined;
  const original = gqlError?.originalError ?? error;
  // AppError's extensions (code, details, status) were copied onto the located error
  if (gqlError && isCode(gqlError.extensions?.code) && !renamed(gqlError)) return gqlError;
  if (original instanceof AppError) return toGraphQLError(original, gqlError?.path);
  // raised by GraphQL itself (or by a scalar's parseValue, a GraphQLError of its own)
  if (gqlError && (!gqlError.originalError || gqlError.originalError instanceof GraphQLError)) {
    const own = graphqlsOwn(gqlError);
    if (own) return withCode(gqlError, own.code, own.details);
  }
  const transient = transientDatabaseError(original);
  if (transient) return toGraphQLError(transient, gqlError?.path);
  return toGraphQLError(new AppError('internal_error', message), gqlError?.path);
}

/**
 * An error masked by maskError, in the message catalogue's words (the admin faces): the message
 * says what is wrong and what to enter, each detail is a sentence; the code stays.
 */
export function forMerchant(error: Error): Error {
  if (!(error instanceof GraphQLError) || !isCode(error.extensions?.code)) return error;
  const code = error.extensions.code;
  const { message, details } = inMerchantWords(code, error.message, error.extensions.details as ErrorDetails | undefined);
  const extensions = { ...error.extensions, ...(details && { details }) };
  // amended in place where it can be (Yoga logs as a failure every error its mask replaces)
  const writable = (key: string) => Object.getOwnPropertyDescriptor(error, key)?.configurable !== false;
  if (!writable('message') || !writable('extensions')) {
    const { nodes, source, positions, path, originalError } = error;
    return new GraphQLError(message, { nodes, source, positions, path, originalError, extensions });
  }
  Object.defineProperty(error, 'message', { value: message, writable: true, configurable: true });
  Object.defineProperty(error, 'extensions', { value: extensions, configurable: true, enumerable: true });
  return error;
}

/** Yoga's codes that name one of ours. */
function renamed(error: GraphQLError): ErrorCode | undefined {
  const { code, http } = (error.extensions ?? {}) as { code?: unknown; http?: { status?: number } };
  if (code === 'BAD_REQUEST' && http?.status === 405) return 'method_not_allowed'; // a mutation over GET
  if (code === 'REQUEST_ENTITY_TOO_LARGE') return 'payload_too_large';
  return undefined;
}

/** The code of one of GraphQL's own errors, when it is the client's doing. */
function graphqlsOwn(error: GraphQLError): { code: ErrorCode; details?: ErrorDetails } | undefined {
  const code = renamed(error);
  if (code) return { code };
  const variable = variableOf(error.message);
  if (variable && !error.path) return { code: 'validation_error', details: { [variable]: [variableReason(error.message)] } };
  const argument = ARGUMENT_ERROR.exec(error.message)?.[1];
  if (argument) return { code: 'validation_error', details: { [argument]: [error.message] } };
  // a field's error GraphQL raised (a value its type cannot represent) is ours: internal_error
  if (!error.path) return { code: 'BAD_REQUEST' };
  return undefined;
}

/**
 * One of GraphQL's own errors with a code, amended in place: Yoga logs as a failure every
 * error its mask replaces, and this one is the client's. Its status is the code's.
 */
function withCode(error: GraphQLError, code: ErrorCode, details?: ErrorDetails): GraphQLError {
  const own = new AppError(code, error.message, details).extensions;
  const extensions = { ...error.extensions, ...own, http: { ...(error.extensions?.http as object | undefined), ...own.http } };
  // graphql-jit's errors hold their extensions read-only: those are replaced (and logged)
  if (!Object.getOwnPropertyDescriptor(error, 'extensions')?.configurable) {
    const { nodes, source, positions, path, originalError } = error;
    return new GraphQLError(error.message, { nodes, source, positions, path, originalError, extensions });
  }
  Object.defineProperty(error, 'extensions', { value: extensions });
  return error;
}

/**
 * A document over one of the limits (plugins/graphql-limits.ts), a validation error like
 * GraphQL's own: 400 for application/graphql-response+json, 200 for application/json.
 */
export function documentLimitError(code: (typeof documentLimitCodes)[number], message: string) {
  // graphql-armor calls every refusal a syntax error; none is
  const err = new AppError(code, message.replace(/^Syntax Error: /, ''));
  return new GraphQLError(err.message, { extensions: { ...err.extensions, http: { spec: true, ...err.extensions.http } } });
}

/** A request GraphQL cannot read (parameters that are not JSON): 400 BAD_REQUEST, as Yoga answers a body that is not JSON. */
export const badRequest = (message: string) => toGraphQLError(new AppError('BAD_REQUEST', message));

const VARIABLE_ERROR = /^Variable "\$(\w+)"/;
const ARGUMENT_ERROR = /^Argument "(\w+)"/;

/** The variable a GraphQL coercion error names (`Variable "$points" got invalid value…`), if any. */
const variableOf = (message: string) => VARIABLE_ERROR.exec(message)?.[1];

/** `Variable "$points" got invalid value 1.5; Int cannot represent ...` → a readable reason. */
function variableReason(message: string) {
  if (/was not provided|must not be null/.test(message)) return 'is required';
  const reason = message.split('; ').slice(1).join('; ');
  return reason || message;
}

/** A database down or busy, or a shard split under the request: 503 service_unavailable, nothing changed. */
function transientDatabaseError(err: unknown): AppError | undefined {
  const trouble = databaseTrouble(err);
  if (trouble) return new AppError('service_unavailable', TROUBLE_MESSAGES[trouble]);
  if (isShardMoved(err))
    return new AppError('service_unavailable', 'The data moved between database nodes meanwhile; nothing changed, retry');
  return undefined;
}

/** A transient database error as 503 service_unavailable; anything else not ours is rethrown. */
export function asAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const transient = transientDatabaseError(err);
  if (transient) return transient;
  throw err;
}

/** A refusal in the shape of the kind of request: the REST envelope or GraphQL errors. */
export function refusal(err: AppError, kind: RequestKind): Response {
  return kind === 'rest' || kind === 'app'
    ? appErrorResponse(err)
    : Response.json({ errors: [toGraphQLError(err).toJSON()] }, { status: err.status });
}
