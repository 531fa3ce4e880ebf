// REST arguments checked before SOFA runs: SOFA coerces query-string and body values with
// each scalar's serialize and reports a failure without naming the argument, so we coerce
// first and answer 422 validation_error with the failing field names. Body values are held
// to their JSON type (a number is not a string), as GraphQL variables are; an input object
// must be a JSON object (SOFA would parse a string as JSON text, and answer 500 where it is
// none). An empty query value (`?page=`) is refused, never read as absent, and a number in
// the query string is written in decimal digits (`?per_page=0x10` is not 16).
import {
  GraphQLBoolean,
  type GraphQLField,
  GraphQLFloat,
  type GraphQLInputType,
  GraphQLInt,
  type GraphQLScalarType,
  getNamedType,
  getNullableType,
  isInputObjectType,
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
  const problem = (path: string, message: string) => (details[path] ??= []).push(message);
  for (const arg of field.args) {
    if (Object.hasOwn(query, arg.name) && isEmpty(query[arg.name])) {
      problem(arg.name, 'must not be empty');
      continue;
    }
    // the order SOFA reads them in: path, query string, body
    const fromText = arg.name in pathParams || Object.hasOwn(query, arg.name);
    const raw = arg.name in pathParams ? pathParams[arg.name] : fromText ? query[arg.name] : body[arg.name];
    if (raw === undefined || raw === null) {
      if (isNonNullType(arg.type)) problem(arg.name, 'is required');
      continue;
    }
    const type = getNamedType(arg.type);
    if (isInputObjectType(type)) {
      for (const [path, message] of notObjects(arg.type, raw, arg.name)) problem(path, message);
      continue; // their fields: GraphQL names the variable itself
    }
    if (!isScalarType(type)) continue; // enums: GraphQL names the variable itself
    // a list argument: repeated (`types=a&types=b`, `types[]=a`) or a JSON array; SOFA reads one value as a list of one
    const values = isListType(getNullableType(arg.type)) && Array.isArray(raw) ? raw : [raw];
    for (const value of values) {
      const reason = valueProblem(type, value, fromText);
      if (reason) {
        problem(arg.name, reason);
        break;
      }
    }
  }
  return Object.keys(details).length ? details : null;
}

/** `?x=`, `?x`, `?x[]=` and `?x=1&x=`: a query value with nothing in it. */
const isEmpty = (value: unknown): boolean => value === '' || (Array.isArray(value) && value.some(isEmpty));

/**
 * Where `value`, given for an argument of input type `type`, holds something other than a JSON
 * object where an input object goes (`line_items.0`), as GraphQL words it for a variable. A
 * list takes one value as a list of one, as GraphQL and SOFA do; null is left to GraphQL.
 */
function notObjects(type: GraphQLInputType, value: unknown, path: string): [path: string, message: string][] {
  if (value === null) return [];
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    const items = Array.isArray(value) ? value : [value];
    return items.flatMap((item, i) => notObjects(nullable.ofType, item, Array.isArray(value) ? `${path}.${i}` : path));
  }
  if (isInputObjectType(nullable) && (typeof value !== 'object' || Array.isArray(value))) {
    return [[path, `Expected type "${nullable.name}" to be an object.`]];
  }
  return [];
}

const INTEGER_TEXT = /^-?\d+$/;
const NUMBER_TEXT = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** Why one value of a scalar argument is refused, or null. */
function valueProblem(type: GraphQLScalarType, value: unknown, fromText: boolean): string | null {
  if (value === null || typeof value === 'object') return 'must be a single value';
  // SOFA reads any text but "true" as false: anything else is a mistake, not a false
  if (type === GraphQLBoolean && fromText) return value === 'true' || value === 'false' ? null : 'must be true or false';
  // SOFA reads a number's text with Number(), which takes `0x10` (16), `1e1`, ` 10` and `+10`:
  // a number in text is written as in JSON, and an integer in decimal digits
  const grammar = type === GraphQLInt ? INTEGER_TEXT : type === GraphQLFloat ? NUMBER_TEXT : null;
  if (grammar && fromText && !grammar.test(String(value))) {
    return `${type.name} cannot represent ${type === GraphQLInt ? 'non-integer' : 'non numeric'} value: ${JSON.stringify(value)}`;
  }
  try {
    // text (path, query) is read as SOFA reads it; JSON values must have the right JSON type
    if (fromText) type.serialize(value);
    else type.parseValue(value);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}
