// REST arguments checked before SOFA runs: SOFA coerces query-string and body values with
// each scalar's serialize and reports a failure without naming the argument, so we coerce
// first and answer 422 validation_error with the failing field names. Body values are held
// to their JSON type (a number is not a string), as GraphQL variables are.
import { type GraphQLField, getNamedType, isNonNullType, isScalarType, GraphQLBoolean } from 'graphql';
import { parse as parseQueryString } from 'qs';
import type { ErrorDetails } from '../../domain/shared/errors.js';

/** `text` is the request body (empty for GET); returns the failing fields, or null. */
export function checkRestArguments(
  field: GraphQLField<unknown, unknown>,
  text: string,
  url: URL,
  pathParams: Record<string, string>,
): ErrorDetails | null {
  const details: ErrorDetails = {};
  let body: Record<string, unknown> = {};
  if (text.trim()) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
        return { body: ['must be a JSON object'] };
      }
      body = parsed as Record<string, unknown>;
    } catch {
      return { body: ['must be a valid JSON document'] };
    }
  }
  const query = parseQueryString(url.search.slice(1));
  for (const arg of field.args) {
    // the order SOFA reads them in: path, query string, body
    const fromText = arg.name in pathParams || Boolean(query[arg.name]);
    const raw = arg.name in pathParams ? pathParams[arg.name] : (query[arg.name] || body[arg.name]);
    if (raw === undefined || raw === null) {
      if (isNonNullType(arg.type)) (details[arg.name] ??= []).push('is required');
      continue;
    }
    const type = getNamedType(arg.type);
    if (!isScalarType(type)) continue; // enums and inputs: GraphQL names the variable itself
    if (Array.isArray(raw) || typeof raw === 'object') {
      (details[arg.name] ??= []).push('must be a single value');
      continue;
    }
    if (type === GraphQLBoolean && fromText) continue;
    try {
      // text (path, query) is read as SOFA reads it; JSON values must have the right JSON type
      if (fromText) type.serialize(raw);
      else type.parseValue(raw);
    } catch (err) {
      (details[arg.name] ??= []).push((err as Error).message);
    }
  }
  return Object.keys(details).length ? details : null;
}
