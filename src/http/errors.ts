// Failures as answers: the REST envelope { error: { code, message, details? } }, GraphQL
// errors with the same code in extensions, and the mapping of every failure (ours,
// GraphQL's, the database's) onto the codes of domain/errors.ts. SOFA's own errors are
// mapped in rest/error-handler.ts.
import { GraphQLError } from 'graphql';
import { isDatabaseUnavailable } from '../db/errors.js';
import { AppError, type ErrorCode, type ErrorDetails, errorStatus } from '../domain/shared/errors.js';
import type { Face } from './request-state.js';

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

export const isCode = (code: unknown): code is ErrorCode => typeof code === 'string' && Object.hasOwn(errorStatus, code);

const databaseUnavailable = () => new AppError('service_unavailable', 'The database is unavailable; retry shortly');

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
  if (isDatabaseUnavailable(original)) return toGraphQLError(databaseUnavailable(), gqlError?.path);
  return new GraphQLError(message, {
    path: gqlError?.path,
    extensions: { code: 'internal_error', http: { status: 500 } },
  });
}

const VARIABLE_ERROR = /^Variable "\$(\w+)"/;

/** The variable a GraphQL coercion error names (`Variable "$points" got invalid value…`), if any. */
export const variableOf = (message: string) => VARIABLE_ERROR.exec(message)?.[1];

/** An unreachable database is 503 service_unavailable; anything else not ours is rethrown. */
export function asAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isDatabaseUnavailable(err)) return databaseUnavailable();
  throw err;
}

/** A refusal in the shape of the face that was asked: the REST envelope or GraphQL errors. */
export function refusal(err: AppError, face: Face): Response {
  return face === 'rest' || face === 'app'
    ? appErrorResponse(err)
    : Response.json({ errors: [toGraphQLError(err).toJSON()] }, { status: err.status });
}
