// The REST error envelope { error: { code, message, details? } } and the mapping of every
// failure (ours, GraphQL's, SOFA's) onto the codes of domain/errors.ts.
import { GraphQLError } from 'graphql';
import { isDatabaseUnavailable } from '../db/errors.js';
import { AppError, type ErrorCode, type ErrorDetails, errorStatus } from '../domain/shared/errors.js';

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details?: ErrorDetails;
}

export function errorResponse(status: number, body: ErrorBody, headers: Record<string, string> = {}) {
  return Response.json({ error: body }, { status, headers });
}

export function appErrorResponse(err: AppError) {
  return errorResponse(err.status, { code: err.code, message: err.message, ...(err.details && { details: err.details }) });
}

const isCode = (code: unknown): code is ErrorCode => typeof code === 'string' && Object.hasOwn(errorStatus, code);

/** Our errors as GraphQL errors: the code (and details) in extensions, the REST status in http. */
export function toGraphQLError(err: AppError, path?: GraphQLError['path']) {
  return new GraphQLError(err.message, { path, extensions: err.extensions });
}

/** Yoga's maskError: known failures keep their code; anything else is an opaque 500. */
export function maskError(error: unknown, message: string): Error {
  const gqlError = error instanceof GraphQLError ? error : undefined;
  // AppError's extensions (code, details, status) were copied onto the located error
  if (gqlError && isCode(gqlError.extensions?.code)) return gqlError;
  const original = gqlError?.originalError ?? error;
  if (original instanceof AppError) return toGraphQLError(original, gqlError?.path);
  // validation and coercion errors (a scalar's parseValue throws a GraphQLError of its own)
  if (gqlError && (!gqlError.originalError || gqlError.originalError instanceof GraphQLError)) return gqlError;
  if (isDatabaseUnavailable(original)) {
    return toGraphQLError(new AppError('service_unavailable', 'The database is unavailable; retry shortly'), gqlError?.path);
  }
  return new GraphQLError(message, {
    path: gqlError?.path,
    extensions: { code: 'internal_error', http: { status: 500 } },
  });
}

const VARIABLE_ERROR = /^Variable "\$(\w+)"/;

/** SOFA's error handler: the first error decides the status; argument errors become 422. */
export function restErrorHandler(errors: ReadonlyArray<unknown>): Response {
  const invalid: ErrorDetails = {};
  for (const error of errors) {
    const gql = error instanceof GraphQLError ? error : undefined;
    const original = gql?.originalError ?? error;
    if (original instanceof AppError) return appErrorResponse(original);
    const ext = (gql ?? (error as GraphQLError))?.extensions ?? {};
    if (isCode(ext.code)) {
      return errorResponse(errorStatus[ext.code], {
        code: ext.code,
        message: gql?.message ?? String(error),
        ...(ext.details ? { details: ext.details as ErrorDetails } : {}),
      });
    }
    const message = (error as Error)?.message ?? String(error);
    const variable = VARIABLE_ERROR.exec(message)?.[1];
    if (variable) {
      (invalid[variable] ??= []).push(describeVariableError(message));
    } else if (message === 'POST body sent invalid JSON.') {
      invalid.body = ['must be a valid JSON document'];
    }
  }
  if (Object.keys(invalid).length) {
    return errorResponse(422, { code: 'validation_error', message: 'The request is invalid', details: invalid });
  }
  console.error('unexpected REST error', errors);
  return errorResponse(500, { code: 'internal_error', message: 'Unexpected error' });
}

/** `Variable "$points" got invalid value 1.5; Int cannot represent ...` → a readable reason. */
function describeVariableError(message: string) {
  if (/was not provided|must not be null/.test(message)) return 'is required';
  const reason = message.split('; ').slice(1).join('; ');
  return reason || message;
}
