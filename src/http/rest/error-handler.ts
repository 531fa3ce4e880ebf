// SOFA's error handler: REST failures as our envelope. The first error decides the status;
// GraphQL's argument errors (SOFA names no field) become 422 validation_error.
import { GraphQLError } from 'graphql';
import { AppError, type ErrorDetails, errorStatus } from '../../domain/shared/errors.js';
import { appErrorResponse, errorResponse, isCode, variableOf } from '../errors.js';
import type { Logger } from '../logger.js';

/** SOFA's errorHandler; an error we cannot map is logged (as one JSON line) and answered 500. */
export const restErrorHandler = (logger: Logger) => (errors: ReadonlyArray<unknown>): Response => {
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
    const variable = variableOf(message);
    if (variable) {
      (invalid[variable] ??= []).push(describeVariableError(message));
    } else if (message === 'POST body sent invalid JSON.') {
      invalid.body = ['must be a valid JSON document'];
    }
  }
  if (Object.keys(invalid).length) {
    return errorResponse(422, { code: 'validation_error', message: 'The request is invalid', details: invalid });
  }
  logger.error({ errors: errors.map((e) => (e instanceof Error ? { message: e.message, stack: e.stack } : e)) }, 'unexpected REST error');
  return errorResponse(500, { code: 'internal_error', message: 'Unexpected error' });
};

/** `Variable "$points" got invalid value 1.5; Int cannot represent ...` → a readable reason. */
function describeVariableError(message: string) {
  if (/was not provided|must not be null/.test(message)) return 'is required';
  const reason = message.split('; ').slice(1).join('; ');
  return reason || message;
}
