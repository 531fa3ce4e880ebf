// The scalars: ISO 8601 timestamps and calendar dates in both faces, and JSON: the admin
// face's nested configuration inputs (reward_rule, earning_rule, conditions), validated by the
// shared zod shapes, which report every failing field in `details`, and an event's `data`.
import { GraphQLError, Kind, type ValueNode, valueFromASTUntyped } from 'graphql';
import { builder } from './builder.js';

// Each scalar carries its JSON Schema (`extensions.jsonSchema`): the OpenAPI document types
// REST fields and parameters of the scalar with it (src/http/rest/openapi.ts).
builder.scalarType('DateTime', {
  subGraphs: ['public', 'admin'],
  description: 'An ISO 8601 UTC timestamp, e.g. 2026-11-21T08:30:00.000Z',
  extensions: { jsonSchema: { type: 'string', format: 'date-time' } },
  // REST (SOFA) reads a query-string argument through serialize: a string is checked as parseValue checks it
  serialize: (value) => (typeof value === 'string' ? parseDateTime(value) : value).toISOString(),
  parseValue: parseDateTime,
});

function parseDateTime(value: unknown): Date {
  const date = new Date(String(value));
  if (typeof value !== 'string' || Number.isNaN(date.getTime())) {
    throw new GraphQLError('DateTime must be an ISO 8601 string');
  }
  return date;
}

builder.scalarType('Date', {
  subGraphs: ['public', 'admin'],
  description: 'A calendar date, YYYY-MM-DD',
  extensions: { jsonSchema: { type: 'string', format: 'date' } },
  serialize: (value) => value.toISOString().slice(0, 10),
  parseValue: (value) => {
    if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value))) {
      throw new GraphQLError('Date must be YYYY-MM-DD');
    }
    return new Date(`${value}T00:00:00.000Z`);
  },
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
