// SOFA's error handler: REST failures as our envelope. The errors come through maskError
// (http/errors.ts), which gave each its code: the first error decides the status, except that
// the validation errors of several arguments (variables, to GraphQL) answer as one 422
// validation_error naming each. GraphQL's own request codes are no REST code: a request SOFA
// could not read is a validation_error too.
import { GraphQLError } from 'graphql';
import { AppError, type ErrorDetails, graphqlOnlyCodes, validationError } from '../../domain/shared/errors.js';
import type { Logger } from '../../observability/logger.js';
import { appErrorResponse, isCode } from '../errors.js';

/** SOFA's errorHandler; errors without a code (maskError let them through) are logged and answered 500. */
export const restErrorHandler =
  (logger: Logger) =>
  (errors: ReadonlyArray<unknown>): Response => {
    const invalid: ErrorDetails = {};
    for (const error of errors) {
      const gql = error instanceof GraphQLError ? error : undefined;
      const original = gql?.originalError ?? error;
      if (original instanceof AppError) return appErrorResponse(original);
      const { code, details } = (gql?.extensions ?? {}) as { code?: unknown; details?: ErrorDetails };
      const message = (error as Error)?.message ?? String(error);
      if (code === 'validation_error' && details) {
        for (const [field, reasons] of Object.entries(details)) (invalid[field] ??= []).push(...reasons);
      } else if (message === 'POST body sent invalid JSON.') {
        invalid.body = ['must be a valid JSON document'];
      } else if (isCode(code) && graphqlOnlyCodes.has(code)) {
        (invalid.request ??= []).push(message);
      } else if (isCode(code)) {
        return appErrorResponse(new AppError(code, message, details));
      }
    }
    if (Object.keys(invalid).length) {
      return appErrorResponse(validationError(invalid));
    }
    logger.error({ errors: errors.map((e) => (e instanceof Error ? { message: e.message, stack: e.stack } : e)) }, 'unexpected REST error');
    return appErrorResponse(new AppError('internal_error', 'Unexpected error'));
  };
