// The scalars: ISO 8601 timestamps and calendar dates in both faces, read by the one strict
// reader (domain/shared/dates.ts), and JSON: the admin face's nested configuration inputs
// (reward_rule, earning_rule, conditions), validated by the shared zod shapes, which report
// every failing field in `details`, and an event's `data`.
import { GraphQLError, Kind, print, type ValueNode, valueFromASTUntyped } from 'graphql';
import { readDate, readDateTime } from '../domain/shared/dates.js';
import { AppError } from '../domain/shared/errors.js';
import { builder } from './builder.js';

/** A reader's value, or its problem as a GraphQL error. */
function read(reader: (text: unknown) => Date | { problem: string }, value: unknown): Date {
  const date = reader(value);
  if (date instanceof Date) return date;
  throw new GraphQLError(date.problem);
}

/**
 * A string in the document a reader refuses: 422 validation_error as the same value in a
 * variable is (plugins/literal-values.ts names the argument that holds it), not a document
 * that does not validate. One parameter only: a literal never holds a variable here, and
 * graphql-jit logs a warning for every scalar whose parseLiteral takes the variables.
 */
function literal(name: string, reader: (text: unknown) => Date | { problem: string }) {
  return (node: ValueNode): Date => {
    // not a string at all: the document's type error, as `per_page: "x"` is
    if (node.kind !== Kind.STRING) throw new GraphQLError(`${name} cannot represent a non string value: ${print(node)}`, { nodes: node });
    const value = reader(node.value);
    if (value instanceof Date) return value;
    const { extensions } = new AppError('validation_error', value.problem);
    // its own status whatever the Accept (Yoga answers a validation error it marks `spec` with 200 to application/json)
    throw new GraphQLError(value.problem, { nodes: node, extensions: { ...extensions, http: { ...extensions.http, spec: false } } });
  };
}

// Each scalar carries its JSON Schema (`extensions.jsonSchema`): the OpenAPI document types
// REST fields and parameters of the scalar with it (src/http/rest/openapi.ts).
builder.scalarType('DateTime', {
  subGraphs: ['public', 'admin'],
  extensions: { jsonSchema: { type: 'string', format: 'date-time' } },
  description:
    'A date and time, RFC 3339 (ISO 8601): YYYY-MM-DDThh:mm:ss, optional fractional seconds (read to the millisecond), then Z ' +
    'or an offset ±hh:mm, e.g. 2026-11-21T08:30:00Z or 2026-11-21T09:30:00.5+01:00 (T and Z may be lower case). No other ISO 8601 ' +
    'form: no date alone, no time without its offset. The date must be a day of the calendar and the time one of the day ' +
    '(2026-02-30, 24:00:00 and :60 seconds are refused with validation_error), the instant between years 0001 and 9999. ' +
    'Answers are UTC with milliseconds, e.g. 2026-11-21T08:30:00.000Z',
  // REST (SOFA) reads a query-string argument through serialize: a string is checked as parseValue checks it
  serialize: (value) => (typeof value === 'string' ? read(readDateTime, value) : value).toISOString(),
  parseValue: (value) => read(readDateTime, value),
  parseLiteral: literal('DateTime', readDateTime),
});

builder.scalarType('Date', {
  subGraphs: ['public', 'admin'],
  extensions: { jsonSchema: { type: 'string', format: 'date' } },
  description:
    'A calendar date, YYYY-MM-DD, from 0001-01-01 to 9999-12-31: a day of the calendar (2026-02-30 is refused with validation_error)',
  serialize: (value) => (typeof value === 'string' ? read(readDate, value) : value).toISOString().slice(0, 10),
  parseValue: (value) => read(readDate, value),
  parseLiteral: literal('Date', readDate),
});

builder.scalarType('JSON', {
  subGraphs: ['public', 'admin'],
  description: 'A JSON value; as an input, its shape is validated by the field that takes it',
  extensions: { jsonSchema: {} },
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (node: ValueNode, variables) => {
    if (node.kind === Kind.VARIABLE) return variables?.[node.name.value];
    return valueFromASTUntyped(node, variables);
  },
});
