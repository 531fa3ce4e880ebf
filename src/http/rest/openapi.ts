// SOFA generates the OpenAPI document from the schema (its paths, operations, parameters and
// bodies); this completes it from the same schema with what SOFA leaves out: nullability
// (OpenAPI 3.1's `null`) and presence (GraphQL answers every selected field), enums and
// objects by reference, each argument's rule (src/graphql/rules.ts), a summary and an
// operationId for every operation, the bearer scheme, each route's scope, the error envelope
// and its statuses, the headers, which POST arguments go in the query string, and the
// webhooks the service sends (OpenAPI 3.1's `webhooks`, from the event types' own table).
import {
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isIntrospectionType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { adminAppOnlyCodes, type ErrorCode, errorStatus, graphqlOnlyCodes } from '../../domain/shared/errors.js';
import { NO_NUL } from '../../domain/shared/fields.js';
import { type EventTypeName, eventBodyJsonSchema, eventTypes } from '../../domain/webhooks/event-types.js';
import { SIGNATURE_HEADER } from '../../domain/webhooks/signature.js';
import type { RuleSchema } from '../../graphql/rules.js';
import { IDEMPOTENCY_KEY_PATTERN } from '../idempotency-store.js';
import { requestState } from '../request-state.js';
import { type MatchedRoute, routeMatcher } from './routes.js';

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document, walked by its paths and operations
type Json = Record<string, any>;
type Route = MatchedRoute['route'];

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

// ---- GraphQL types as JSON Schema ----

const primitives: Record<string, Json> = {
  Int: { type: 'integer', format: 'int32' },
  Float: { type: 'number', format: 'double' },
  String: { type: 'string' },
  ID: { type: 'string' },
  Boolean: { type: 'boolean' },
};

/** Each scalar's JSON Schema: GraphQL's own, or the `jsonSchema` a custom scalar declares (src/graphql/scalars.ts). */
function scalarJsonSchemas(schema: GraphQLSchema): Record<string, Json> {
  return Object.fromEntries(
    Object.values(schema.getTypeMap())
      .filter(isScalarType)
      .map((s) => [s.name, primitives[s.name] ?? (s.extensions.jsonSchema as Json | undefined) ?? {}]),
  );
}

const ruleOf = (field: { extensions?: { jsonSchema?: unknown } | null }) => field.extensions?.jsonSchema as RuleSchema | undefined;

/** A value that may also be null (a schema allowing anything already does). */
function orNull(schema: Json): Json {
  if (schema.$ref) return { anyOf: [schema, { type: 'null' }] };
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  return schema;
}

/** The schema of a value of `type` when it is not null, with the rule of the field that holds it. */
function valueSchema(scalars: Record<string, Json>, type: GraphQLInputType | GraphQLOutputType, rule?: RuleSchema): Json {
  const inner = getNullableType(type);
  let schema: Json;
  if (isListType(inner)) schema = { type: 'array', items: typeSchema(scalars, inner.ofType) };
  else if (isScalarType(inner)) schema = { ...scalars[inner.name] };
  else schema = ref(inner.name);
  if (!rule) return schema;
  // a rule on a list's items adds to what GraphQL says of them
  return { ...schema, ...rule, ...(rule.items ? { items: { ...schema.items, ...(rule.items as Json) } } : {}) };
}

/** The schema of `type`, null included unless it is non-null. */
function typeSchema(scalars: Record<string, Json>, type: GraphQLInputType | GraphQLOutputType, rule?: RuleSchema): Json {
  const schema = valueSchema(scalars, type, rule);
  return isNonNullType(type) ? schema : orNull(schema);
}

const described = (schema: Json, description?: string | null) => (description ? { ...schema, description } : schema);

/** A component for every named type: objects (every field present, null where nullable), inputs (with their rules), enums. */
function componentSchema(scalars: Record<string, Json>, type: GraphQLNamedType): Json | undefined {
  const description = type.description ? { description: type.description } : {};
  if (isEnumType(type)) return { title: type.name, type: 'string', enum: type.getValues().map((v) => v.name), ...description };
  if (isObjectType(type)) {
    const fields = Object.values(type.getFields());
    return {
      type: 'object',
      // GraphQL answers every field it selects, null or not; REST selects them all
      required: fields.map((f) => f.name),
      properties: Object.fromEntries(fields.map((f) => [f.name, described(typeSchema(scalars, f.type), f.description)])),
      ...description,
    };
  }
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields());
    const required = fields.filter((f) => isNonNullType(f.type) && f.defaultValue === undefined).map((f) => f.name);
    return {
      type: 'object',
      ...(required.length > 0 && { required }),
      properties: Object.fromEntries(
        fields.map((f) => [f.name, described(withoutNul(typeSchema(scalars, f.type, ruleOf(f))), f.description)]),
      ),
      // GraphQL refuses a field the input type does not have
      additionalProperties: false,
      ...description,
    };
  }
  return undefined;
}

// ---- answers ----

const errorResponses: Record<string, { description: string; codes: ErrorCode[] }> = {
  '401': { description: 'No key, or a malformed, unknown or revoked key', codes: ['invalid_token'] },
  '403': { description: 'The key lacks the required scope', codes: ['insufficient_scope'] },
  '404': { description: 'Unknown record (or another merchant’s)', codes: ['not_found'] },
  '409': {
    description: 'A request with this Idempotency-Key is still running, or the change conflicts with another; retry',
    codes: ['idempotency_in_progress', 'conflict'],
  },
  '413': { description: 'The body is larger than the service accepts', codes: ['payload_too_large'] },
  '415': { description: 'The body is not JSON (Content-Type must be application/json)', codes: ['unsupported_media_type'] },
  '422': {
    description: 'Invalid parameters or body (`details` names each failing field); or a business rule refused the request',
    codes: ['validation_error', 'adjustment_failed', 'insufficient_points', 'reward_unavailable', 'idempotency_key_reused'],
  },
  '429': { description: 'Rate limit exceeded; retry after Retry-After seconds', codes: ['rate_limited'] },
  '503': { description: 'The database is unavailable or moved the data meanwhile; nothing changed, retry', codes: ['service_unavailable'] },
};

const header = (description: string, schema: Json = { type: 'string' }) => ({ description, schema });
/** Response headers; X-Request-Id is on every answer. */
const headers = {
  'X-Request-Id': {
    ...header('The request’s id (the caller’s X-Request-Id when it is 1 to 200 visible characters), as logged'),
    required: true,
  },
  'RateLimit-Policy': header('The rate limits that apply to the key (IETF httpapi RateLimit draft); absent when no limit is set'),
  RateLimit: header('The tightest remaining budget and its reset in seconds (IETF httpapi RateLimit draft); absent when no limit is set'),
  // only a refusal over a rate limit carries it, and always
  'Retry-After': { ...header('Seconds to wait before retrying', { type: 'string', pattern: '^[0-9]+$' }), required: true },
  'Idempotent-Replayed': header('`true` when this is the stored answer of an earlier request with the same Idempotency-Key', {
    type: 'string',
    enum: ['true'],
  }),
};
type HeaderName = keyof typeof headers;
const headerRefs = (names: HeaderName[]) => Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));
/** Headers every answer may carry. */
const everyAnswer: HeaderName[] = ['X-Request-Id', 'RateLimit-Policy', 'RateLimit'];

/** The statuses a route can answer besides success: lookups can miss, writes can conflict and carry bodies. */
function errorStatusesOf(route: Route): string[] {
  const statuses = ['401', '403', '422', '429', '503'];
  const looksUp = route.path.includes(':') || route.graphqlField.args.some((a) => ['customer_id', 'email', 'reward_id'].includes(a.name));
  if (looksUp) statuses.push('404');
  if (route.method === 'POST') statuses.push('413', '415');
  if (route.field.startsWith('Mutation.')) statuses.push('409');
  return statuses.sort();
}

// ---- operations ----

/** The field's description in the REST document: without its own `REST: …` pointer. */
const restDescription = (field: GraphQLField<unknown, unknown>) => (field.description ?? '').replace(/\s*REST: .*$/s, '');
/** The first sentence, as the operation's summary. */
const summaryOf = (description: string) => description.split(/\.(\s|$)/)[0]!;

/**
 * An input string never holds NUL, which PostgreSQL text cannot store (plugins/body.ts refuses
 * it anywhere): a pattern says so where the rule has none (the rules' own patterns exclude it).
 */
function withoutNul(schema: Json): Json {
  const types = [schema.type].flat();
  if (types.includes('string') && !schema.enum && !schema.format && !schema.pattern) return { ...schema, pattern: NO_NUL };
  if (types.includes('array') && schema.items) return { ...schema, items: withoutNul(schema.items) };
  return schema;
}

/** A parameter's or body property's schema for argument `arg`, with its rule. */
function argumentSchema(scalars: Record<string, Json>, arg: GraphQLArgument, inText: boolean): Json {
  const rule = ruleOf(arg);
  if (!inText) return withoutNul(typeSchema(scalars, arg.type, rule));
  // text (a path or query parameter) cannot be null, and an empty one is refused
  const schema = withoutNul(valueSchema(scalars, arg.type, rule));
  return schema.type === 'string' && schema.minLength === undefined ? { ...schema, minLength: 1 } : schema;
}

function completeOperation(op: Json, route: Route, scalars: Record<string, Json>) {
  const field = route.graphqlField;
  const mutation = route.field.startsWith('Mutation.');
  const description = restDescription(field);
  op.summary = summaryOf(description);
  // SOFA names queries `<field>_query` and leaves mutations unnamed
  op.operationId ??= `${field.name}_mutation`;
  op.tags = [route.path.split('/')[1]];
  op['x-required-scope'] = route.scope;
  op.description = `${description}\n\nRequired scope: \`${route.scope}\`.`;

  const bodyArgs = route.method === 'POST' ? field.args.filter((a) => !route.query?.includes(a.name)) : [];
  op.parameters = field.args
    .filter((a) => !bodyArgs.includes(a))
    .map((arg) => {
      const inPath = route.path.includes(`:${arg.name}`);
      return {
        name: arg.name,
        in: inPath ? 'path' : 'query',
        required: inPath || isNonNullType(arg.type),
        ...(arg.description && { description: arg.description }),
        schema: argumentSchema(scalars, arg, true),
        // a list is `types=a&types=b`
        ...(isListType(getNullableType(arg.type)) && { style: 'form', explode: true }),
      };
    });
  if (mutation) {
    op.parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'Retry safely: the same key and request within 24 h replays the first answer (Idempotent-Replayed: true)',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY_PATTERN },
    });
  }
  delete op.requestBody;
  if (bodyArgs.length > 0) {
    const required = bodyArgs.filter((a) => isNonNullType(a.type)).map((a) => a.name);
    op.requestBody = {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            ...(required.length > 0 && { required }),
            properties: Object.fromEntries(bodyArgs.map((a) => [a.name, described(argumentSchema(scalars, a, false), a.description)])),
          },
        },
      },
    };
  }

  op.responses = {
    [mutation ? '201' : '200']: {
      description: op.summary,
      headers: headerRefs(mutation ? [...everyAnswer, 'Idempotent-Replayed'] : everyAnswer),
      content: { 'application/json': { schema: ref(getNullableType(field.type).toString()) } },
    },
    ...Object.fromEntries(errorStatusesOf(route).map((s) => [s, { $ref: `#/components/responses/Error${s}` }])),
  };
}

/** Components no operation or webhook reaches (the GraphQL root types, the graph's own types): dropped. */
function dropUnreached(doc: Json) {
  const reached = new Set<string>();
  const visit = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key !== '$ref' || typeof value !== 'string') visit(value);
        else if (value.startsWith('#/components/schemas/')) {
          const name = value.slice('#/components/schemas/'.length);
          if (!reached.has(name)) {
            reached.add(name);
            visit(doc.components.schemas[name]);
          }
        }
      }
    }
  };
  visit(doc.paths);
  visit(doc.webhooks);
  visit(doc.components.responses);
  for (const name of Object.keys(doc.components.schemas)) if (!reached.has(name)) delete doc.components.schemas[name];
}

function completeOpenApi(doc: Json, schema: GraphQLSchema, basePath: string): Json {
  const match = routeMatcher(schema, basePath);
  const scalars = scalarJsonSchemas(schema);
  doc.openapi = '3.1.0';
  doc.info.description =
    'REST v1 of the loyalty points service, derived from its public GraphQL schema. ' +
    'Every request needs `Authorization: Bearer <API key>`; errors answer `{ error: { code, message, details? } }`.';
  doc.info.license = { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' };
  doc.components ??= {};
  doc.components.securitySchemes = {
    apiKey: { type: 'http', scheme: 'bearer', description: 'A REST API key (lpk_…) created in the loyalty app' },
  };
  doc.security = [{ apiKey: [] }];

  const restCodes = (Object.keys(errorStatus) as ErrorCode[]).filter(
    (c) => !adminAppOnlyCodes.has(c) && !graphqlOnlyCodes.has(c) && c !== 'internal_error' && c !== 'method_not_allowed',
  );
  doc.components.schemas = {
    ...Object.fromEntries(
      Object.values(schema.getTypeMap())
        .filter((t) => !isIntrospectionType(t))
        .flatMap((t) => {
          const component = componentSchema(scalars, t);
          return component ? [[t.name, component]] : [];
        }),
    ),
    ErrorCode: { type: 'string', enum: restCodes },
    Error: {
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['code', 'message'],
          properties: {
            code: ref('ErrorCode'),
            message: { type: 'string' },
            details: {
              type: 'object',
              description: 'Validation errors: field name → messages',
              additionalProperties: { type: 'array', items: { type: 'string' } },
            },
          },
        },
      },
    },
  };
  doc.components.headers = headers;
  doc.components.responses = Object.fromEntries(
    Object.entries(errorResponses).map(([status, r]) => [
      `Error${status}`,
      {
        description: `${r.description} (codes: ${r.codes.join(', ')})`,
        headers: headerRefs(status === '429' ? [...everyAnswer, 'Retry-After'] : everyAnswer),
        content: { 'application/json': { schema: ref('Error') } },
      },
    ]),
  );

  for (const [path, operations] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(operations)) {
      const found = match(method.toUpperCase(), `${basePath}${path.replace(/\{(\w+)\}/g, 'x')}`);
      if (found.kind === 'ok') completeOperation(op, found.route, scalars);
    }
  }
  doc.webhooks = webhooksSection();
  dropUnreached(doc);
  return doc;
}

// ---- webhooks ----

const deliveryHeaders = [
  ['webhook-id', 'The event id (Standard Webhooks): the same on every attempt and redelivery; dedupe on it'],
  ['webhook-timestamp', 'Unix seconds of this attempt (Standard Webhooks)'],
  [
    'webhook-signature',
    'Standard Webhooks: `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per signing secret (two, space-separated, during a rotation)',
  ],
  [SIGNATURE_HEADER, '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, one v1 per signing secret'],
  ['Loyalty-Event-Id', 'The event id'],
  ['Loyalty-Event-Type', 'The event type'],
  ['Loyalty-Delivery-Id', 'The delivery (one event to one endpoint)'],
].map(([name, description]) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } }));

/** One POST per event type, its body's schema as the event types' table describes it. */
function webhooksSection(): Json {
  return Object.fromEntries(
    (Object.keys(eventTypes) as EventTypeName[]).map((type) => [
      type,
      {
        post: {
          operationId: `webhook_${type.replace('.', '_')}`,
          summary: type,
          description: `${eventTypes[type].when}. Sent to the merchant's webhook endpoints, signed (see the headers).`,
          parameters: deliveryHeaders,
          requestBody: { required: true, content: { 'application/json': { schema: eventBodyJsonSchema(type) } } },
          responses: {
            '2XX': { description: 'Received: anything else is retried with backoff for 3 days' },
            '410': { description: 'Gone: the endpoint is disabled at once' },
            '429': { description: 'Retried after the answer’s Retry-After (seconds or an HTTP date; at most an hour)' },
          },
        },
      },
    ]),
  );
}

/** Serves SOFA's OpenAPI document completed (computed once, on the first request for it). */
export function useOpenApiDocument(schema: GraphQLSchema, basePath: string): Plugin {
  let completed: Json | undefined;
  return {
    onResponse({ serverContext, response, setResponse }) {
      if (requestState(serverContext).kind !== 'document' || response.status !== 200) return;
      return response.json().then((document: Json) => {
        completed ??= completeOpenApi(document, schema, basePath);
        // the same for every caller: caches may keep it a while
        setResponse(Response.json(completed, { headers: { 'Cache-Control': 'public, max-age=300' } }));
      });
    },
  };
}
