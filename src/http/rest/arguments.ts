// REST arguments checked before SOFA runs: SOFA coerces query-string and body values with
// each scalar's serialize and reports a failure without naming the argument, so we coerce
// first and answer 422 validation_error with the failing field names. Body values are held
// to their JSON type (a number is not a string), as GraphQL variables are.
import {
  GraphQLBoolean,
  type GraphQLField,
  type GraphQLScalarType,
  getNamedType,
  getNullableType,
  isListType,
  isNonNullType,
  isScalarType,
} from 'graphql';
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
    const raw = arg.name in pathParams ? pathParams[arg.name] : query[arg.name] || body[arg.name];
    if (raw === undefined || raw === null) {
      if (isNonNullType(arg.type)) (details[arg.name] ??= []).push('is required');
      continue;
    }
    const type = getNamedType(arg.type);
    if (!isScalarType(type)) continue; // enums and inputs: GraphQL names the variable itself
    // a list argument: repeated (`types=a&types=b`, `types[]=a`) or a JSON array; SOFA reads one value as a list of one
    const values = isListType(getNullableType(arg.type)) && Array.isArray(raw) ? raw : [raw];
    for (const value of values) {
      const problem = valueProblem(type, value, fromText);
      if (problem) {
        (details[arg.name] ??= []).push(problem);
        break;
      }
    }
  }
  return Object.keys(details).length ? details : null;
}

/** Why one value of a scalar argument is refused, or null. */
function valueProblem(type: GraphQLScalarType, value: unknown, fromText: boolean): string | null {
  if (value === null || typeof value === 'object') return 'must be a single value';
  // SOFA reads any text but "true" as false: anything else is a mistake, not a false
  if (type === GraphQLBoolean && fromText) return value === 'true' || value === 'false' ? null : 'must be true or false';
  try {
    // text (path, query) is read as SOFA reads it; JSON values must have the right JSON type
    if (fromText) type.serialize(value);
    else type.parseValue(value);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}
