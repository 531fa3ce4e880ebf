// The public HTTP face: one Yoga serving the GraphQL schema at /graphql and, through SOFA,
// the REST v1 routes at /v1. Everything a request must pass before it runs lives in the
// gate below (onRequest, ahead of SOFA, because SOFA executes a prebuilt document and
// validation-phase plugins never see REST): body limits, the API key, the rate limit, the
// route and its scope, REST argument checks, and the Idempotency-Key claim. So a request
// without a key is 401 and one without the scope 403, whatever its body.
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { useDisableIntrospection } from '@graphql-yoga/plugin-disable-introspection';
import { useSofa } from '@graphql-yoga/plugin-sofa';
import { createYoga, type Plugin } from 'graphql-yoga';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import { isDatabaseUnavailable } from '../db/errors.js';
import { type Principal, authenticate } from '../domain/access/api-keys.js';
import { AppError, validationError } from '../domain/shared/errors.js';
import { type ScopeGrant, allows } from '../domain/access/scopes.js';
import type { Context } from '../schema/builder.js';
import { schema } from '../schema/index.js';
import { appErrorResponse, maskError, restErrorHandler, toGraphQLError } from './errors.js';
import { completeOpenApi } from './openapi.js';
import { IDEMPOTENCY_HEADER, claim, fingerprint, settle, validateKey } from './idempotency.js';
import { type Logger, useRequestLogging, yogaLogger } from './logging.js';
import type { RateLimiter } from './rate-limit.js';
import { checkRestArguments } from './rest-args.js';
import { routeMatcher, sofaRoutes } from './routes.js';

type SofaErrorHandler = NonNullable<Parameters<typeof useSofa>[0]['errorHandler']>;

export const REST_BASE = '/v1';
export const GRAPHQL_PATH = '/graphql';
export const OPENAPI_PATH = `${REST_BASE}/openapi.json`;

export interface ServerOptions {
  db: Db;
  config: Config;
  logger: Logger;
  rateLimiter: RateLimiter;
}

/** What the gate learnt about a request, for the context and for onResponse. */
interface Admitted {
  principal: Principal;
  rateHeaders?: Record<string, string>;
  idempotencyKey?: string;
}

const JSON_TYPE = /^application\/(.+\+)?json\b/i;

/** Reads the whole body, refusing more than `limit` bytes without buffering them. */
async function readBody(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > limit) throw tooLarge(limit);
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      void reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const tooLarge = (limit: number) => new AppError('payload_too_large', `The request body exceeds ${limit} bytes`);

function useGate(db: Db, config: Config, rateLimiter: RateLimiter, admitted: WeakMap<Request, Admitted>): Plugin {
  const matchRoute = routeMatcher(schema, REST_BASE);
  let openApi: Record<string, unknown> | undefined;
  return {
    async onRequest({ request: received, url, endResponse, setRequest }) {
      let request = received;
      const isRest = url.pathname === REST_BASE || url.pathname.startsWith(`${REST_BASE}/`);
      if (!isRest && url.pathname !== GRAPHQL_PATH) return;
      if (url.pathname === OPENAPI_PATH && request.method === 'GET') return; // public documentation
      try {
        const match = isRest ? matchRoute(request.method, url.pathname) : undefined;
        if (match?.kind === 'not_found') throw new AppError('not_found', `No route ${request.method} ${url.pathname}`);
        if (match?.kind === 'method_not_allowed') {
          const err = new AppError('method_not_allowed', `${request.method} is not allowed on ${url.pathname}`);
          return endResponse(withHeaders(appErrorResponse(err), { Allow: match.allow.join(', ') }));
        }

        const principal = await authenticate(db, request.headers.get('authorization'));
        const entry: Admitted = { principal };
        admitted.set(request, entry);

        if (rateLimiter.enabled) {
          const decision = await rateLimiter.consume(principal.keyId, principal.merchantId);
          entry.rateHeaders = decision.headers;
          if (!decision.allowed) {
            const err = new AppError('rate_limited', `Rate limit exceeded; retry in ${decision.retryAfter} s`);
            return endResponse(isRest ? appErrorResponse(err) : graphqlErrorResponse(err));
          }
        }

        const scope = match?.route.scope as ScopeGrant | undefined;
        if (scope && !allows(principal.scopes, scope)) {
          throw new AppError('insufficient_scope', `This API key lacks the scope ${scope}`);
        }

        const hasBody = request.method === 'POST';
        const contentType = request.headers.get('content-type');
        if (isRest && hasBody && contentType && !JSON_TYPE.test(contentType)) {
          throw new AppError('unsupported_media_type', `Send the body as application/json, not ${contentType}`);
        }
        const body = hasBody ? await readBody(request, config.BODY_LIMIT_BYTES) : '';
        if (hasBody) {
          // the body stream is consumed: hand the rest of the pipeline a request that holds it
          request = new Request(request.url, { method: request.method, headers: request.headers, body });
          setRequest(request);
          admitted.delete(received);
          admitted.set(request, entry);
        }
        // PostgreSQL text cannot hold NUL; refuse it once here rather than in every field
        if (/%00/.test(url.pathname + url.search) || body.includes('\u0000') || /\\u0000/i.test(body)) {
          throw validationError({ request: ['must not contain NUL (U+0000) characters'] });
        }
        if (match?.kind === 'ok') {
          const details = checkRestArguments(match.route.graphqlField, body, url, match.params);
          if (details) throw validationError(details);
        }

        const idempotencyKey = request.headers.get(IDEMPOTENCY_HEADER);
        const isWrite = match?.kind === 'ok' ? match.route.field.startsWith('Mutation.') : hasBody;
        if (idempotencyKey !== null && isWrite) {
          validateKey(idempotencyKey);
          const print = await fingerprint(principal.merchantId, request, url, body);
          const claimed = await claim(db, principal.merchantId, idempotencyKey, print);
          if (claimed.kind === 'replay') return endResponse(claimed.response);
          entry.idempotencyKey = claimed.key;
        }
      } catch (err) {
        const appError = asAppError(err);
        endResponse(isRest ? appErrorResponse(appError) : graphqlErrorResponse(appError));
      }
    },
    async onResponse({ request, response, setResponse }) {
      const entry = admitted.get(request);
      if (!entry) {
        // the OpenAPI document is the one public route: it is never admitted
        if (response.status === 200 && new URL(request.url).pathname === OPENAPI_PATH) {
          openApi ??= completeOpenApi(await response.json(), schema, REST_BASE);
          setResponse(Response.json(openApi));
        }
        return;
      }
      for (const [name, value] of Object.entries(entry.rateHeaders ?? {})) response.headers.set(name, value);
      if (entry.idempotencyKey) await settle(db, entry.idempotencyKey, response).catch(() => {});
    },
  };
}

function asAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isDatabaseUnavailable(err)) return new AppError('service_unavailable', 'The database is unavailable; retry shortly');
  throw err;
}

function withHeaders(response: Response, headers: Record<string, string>) {
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

function graphqlErrorResponse(err: AppError) {
  return Response.json({ errors: [toGraphQLError(err).toJSON()] }, { status: err.status });
}

export function createServer({ db, config, logger, rateLimiter: limiter }: ServerOptions) {
  const admitted = new WeakMap<Request, Admitted>();
  return createYoga<object, Context>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    landingPage: false,
    graphiql: config.GRAPHIQL,
    logging: yogaLogger(logger),
    maskedErrors: { maskError },
    context: ({ request }) => {
      const entry = admitted.get(request);
      if (!entry) throw new AppError('invalid_token', 'The API key is invalid or revoked');
      return { db, principal: entry.principal };
    },
    plugins: [
      useRequestLogging(logger),
      useGate(db, config, limiter, admitted),
      // GraphQL-only limits (REST runs fixed documents): depth, cost, aliases, tokens, no suggestions
      EnvelopArmorPlugin({
        maxDepth: { n: 8 },
        costLimit: { maxCost: 5000 },
        maxAliases: { n: 15 },
        maxTokens: { n: 2000 },
        maxDirectives: { n: 20 },
        blockFieldSuggestion: { enabled: true },
      }),
      ...(config.GRAPHQL_INTROSPECTION ? [] : [useDisableIntrospection()]),
      useSofa({
        basePath: REST_BASE,
        routes: sofaRoutes,
        // fets types its own Response class; ours is the platform's, which it accepts at run time
        errorHandler: restErrorHandler as unknown as SofaErrorHandler,
        openAPI: {
          info: {
            title: 'Loyalty Points Service REST API',
            version: '1.0.0',
            description: 'REST v1, derived from the public GraphQL schema',
          },
        },
      }),
    ],
  });
}
