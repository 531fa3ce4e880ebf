// SOFA generates the OpenAPI document from the schema; this completes it with what the
// schema cannot say: the bearer scheme, each route's scope, the error envelope and its
// statuses, the Idempotency-Key header, which POST arguments go in the query string, and the
// webhooks the service sends (OpenAPI 3.1's `webhooks`, from the event types' own table).
import type { GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { adminAppOnlyCodes, type ErrorCode, errorStatus, graphqlOnlyCodes } from '../../domain/shared/errors.js';
import { type EventTypeName, eventBodyJsonSchema, eventTypes } from '../../domain/webhooks/event-types.js';
import { SIGNATURE_HEADER } from '../../domain/webhooks/signature.js';
import { requestState } from '../request-state.js';
import { routeMatcher } from './routes.js';

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document, walked by its paths and operations
type Json = Record<string, any>;

const errorResponses: Record<string, { description: string; codes: (keyof typeof errorStatus)[] }> = {
  '401': { description: 'No key, or a malformed, unknown or revoked key', codes: ['invalid_token'] },
  '403': { description: 'The key lacks the required scope', codes: ['insufficient_scope'] },
  '404': { description: 'Unknown record (or another merchant’s)', codes: ['not_found'] },
  '422': {
    description: 'Invalid parameters or body; or a business rule refused the request',
    codes: ['validation_error', 'adjustment_failed', 'insufficient_points', 'reward_unavailable', 'idempotency_key_reused'],
  },
  '429': { description: 'Rate limit exceeded; see Retry-After', codes: ['rate_limited'] },
};

function completeOpenApi(doc: Json, schema: GraphQLSchema, basePath: string): Json {
  const match = routeMatcher(schema, basePath);
  doc.info.description =
    'REST v1 of the loyalty points service, derived from its public GraphQL schema. ' +
    'Every request needs `Authorization: Bearer <API key>`; errors answer `{ error: { code, message, details? } }`.';
  doc.components ??= {};
  doc.components.securitySchemes = {
    apiKey: { type: 'http', scheme: 'bearer', description: 'A REST API key (lpk_…) created in the loyalty app' },
  };
  doc.security = [{ apiKey: [] }];
  // SOFA names a DateTime parameter by a $ref to the scalar, which it never writes
  doc.components.schemas.DateTime ??= {
    type: 'string',
    format: 'date-time',
    description: 'An ISO 8601 timestamp, e.g. 2026-11-21T08:30:00.000Z',
  };
  doc.components.schemas.Error = {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: {
            type: 'string',
            enum: (Object.keys(errorStatus) as ErrorCode[]).filter((c) => !adminAppOnlyCodes.has(c) && !graphqlOnlyCodes.has(c)),
          },
          message: { type: 'string' },
          details: {
            type: 'object',
            description: 'Validation errors: field name → messages',
            additionalProperties: { type: 'array', items: { type: 'string' } },
          },
        },
      },
    },
  };
  doc.components.responses = Object.fromEntries(
    Object.entries(errorResponses).map(([status, r]) => [
      `Error${status}`,
      {
        description: `${r.description} (codes: ${r.codes.join(', ')})`,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    ]),
  );

  for (const [path, operations] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(operations)) {
      const found = match(method.toUpperCase(), `${basePath}${path.replace(/\{(\w+)\}/g, 'x')}`);
      if (found.kind !== 'ok') continue;
      const { route } = found;
      op.tags = [path.split('/')[1]];
      op['x-required-scope'] = route.scope;
      op.description = `${op.description ? `${op.description}\n\n` : ''}Required scope: \`${route.scope}\`.`;
      if (route.query) moveBodyArguments(op, route.query);
      if (route.field.startsWith('Mutation.')) {
        op.parameters = [
          ...(op.parameters ?? []),
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description: 'Retry safely: the same key and request within 24 h replays the first response',
            schema: { type: 'string', maxLength: 255 },
          },
        ];
      }
      for (const status of Object.keys(errorResponses)) {
        op.responses[status] = { $ref: `#/components/responses/Error${status}` };
      }
    }
  }
  doc.openapi = '3.1.0';
  doc.webhooks = webhooksSection();
  return doc;
}

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

/** POST: only the route's `query` arguments stay query parameters; the others are body fields. */
function moveBodyArguments(op: Json, queryArgs: string[]) {
  op.parameters = (op.parameters ?? []).filter((p: Json) => p.in !== 'query' || queryArgs.includes(p.name));
  const body = op.requestBody?.content?.['application/json']?.schema;
  if (!body?.properties) return;
  for (const name of queryArgs) delete body.properties[name];
  body.required = (body.required ?? []).filter((n: string) => !queryArgs.includes(n));
  if (body.required.length === 0) delete body.required;
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
