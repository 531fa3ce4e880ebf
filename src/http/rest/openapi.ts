// SOFA generates the OpenAPI document from the schema; this completes it with what the
// schema cannot say: the bearer scheme, each route's scope, the error envelope and its
// statuses, the Idempotency-Key header, and which POST arguments go in the query string.
import type { GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { adminAppOnlyCodes, errorStatus, graphqlOnlyCodes, type ErrorCode } from '../../domain/shared/errors.js';
import { requestState } from '../request-state.js';
import { routeMatcher } from './routes.js';

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

export function completeOpenApi(doc: Json, schema: GraphQLSchema, basePath: string): Json {
  const match = routeMatcher(schema, basePath);
  doc.info.description =
    'REST v1 of the loyalty points service, derived from its public GraphQL schema. ' +
    'Every request needs `Authorization: Bearer <API key>`; errors answer `{ error: { code, message, details? } }`.';
  doc.components ??= {};
  doc.components.securitySchemes = {
    apiKey: { type: 'http', scheme: 'bearer', description: 'A REST API key (lpk_…) created in the loyalty app' },
  };
  doc.security = [{ apiKey: [] }];
  doc.components.schemas.Error = {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'string', enum: (Object.keys(errorStatus) as ErrorCode[]).filter((c) => !adminAppOnlyCodes.has(c) && !graphqlOnlyCodes.has(c)) },
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
  return doc;
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
      if (requestState(serverContext).face !== 'document' || response.status !== 200) return;
      return response.json().then((document: Json) => {
        completed ??= completeOpenApi(document, schema, basePath);
        // the same for every caller: caches may keep it a while
        setResponse(Response.json(completed, { headers: { 'Cache-Control': 'public, max-age=300' } }));
      });
    },
  };
}
