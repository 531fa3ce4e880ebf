// Opt-in tracing with OpenTelemetry: when OTEL_EXPORTER_OTLP_ENDPOINT is set, spans for each
// HTTP request (the app's fetch and Node listener), each GraphQL execution (the envelop plugin
// below, REST included: SOFA executes GraphQL) and each SQL query (Prisma's instrumentation;
// `tracedQuery` for the statements sent on the pool directly, src/db/sql.ts),
// exported over OTLP/HTTP to <endpoint>/v1/traces. The standard OTEL_* variables apply
// (OTEL_SERVICE_NAME, OTEL_EXPORTER_OTLP_HEADERS...). When it is unset nothing of
// OpenTelemetry is loaded: the SDK is imported dynamically, and this file imports only types.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Plugin } from '@envelop/core';
import type { Span, Tracer } from '@opentelemetry/api';
import { getOperationAST } from 'graphql';

type Api = typeof import('@opentelemetry/api');

export interface Tracing {
  /** Exports the spans still buffered. */
  flush(): Promise<void>;
  /** Flushes, then stops tracing. */
  shutdown(): Promise<void>;
}

let active: { api: Api; tracer: Tracer } | undefined;

/** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
function tracesUrl(env: NodeJS.ProcessEnv): string {
  return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || `${env.OTEL_EXPORTER_OTLP_ENDPOINT!.replace(/\/+$/, '')}/v1/traces`;
}

/** Starts tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set (and OTEL_SDK_DISABLED is not true). */
export async function startTracing(env: NodeJS.ProcessEnv = process.env): Promise<Tracing | undefined> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_SDK_DISABLED === 'true') return undefined;
  const [api, node, otlp, resources, prisma] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@prisma/instrumentation'),
  ]);
  const provider = new node.NodeTracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || 'loyalty-points-service' }),
    // headers and timeout come from the OTEL_* variables; the URL as the specification builds it
    spanProcessors: [new node.BatchSpanProcessor(new otlp.OTLPTraceExporter({ url: tracesUrl(env) }))],
  });
  // the global provider, and AsyncLocalStorage for the active span: SQL spans find their request
  provider.register();
  const unregister = prisma.registerInstrumentations({ tracerProvider: provider, instrumentations: [new prisma.PrismaInstrumentation()] });
  active = { api, tracer: provider.getTracer('loyalty-points-service') };
  return {
    flush: () => provider.forceFlush(),
    async shutdown() {
      active = undefined;
      unregister();
      await provider.shutdown();
      api.trace.disable();
      api.context.disable();
    },
  };
}

function httpSpan(method: string, path: string): { api: Api; span: Span } | undefined {
  if (!active) return undefined;
  const { api, tracer } = active;
  const span = tracer.startSpan(method, {
    kind: api.SpanKind.SERVER,
    attributes: { 'http.request.method': method, 'url.path': path },
  });
  return { api, span };
}

function endHttpSpan(api: Api, span: Span, status: number) {
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR });
  span.end();
}

/** Runs one request of the app's fetch inside its HTTP span (or plainly, tracing off). */
export async function tracedFetch(method: string, path: string, run: () => Promise<Response>): Promise<Response> {
  const traced = httpSpan(method, path);
  if (!traced) return run();
  const { api, span } = traced;
  try {
    const response = await api.context.with(api.trace.setSpan(api.context.active(), span), run);
    endHttpSpan(api, span, response.status);
    return response;
  } catch (err) {
    span.recordException(err as Error);
    endHttpSpan(api, span, 500);
    throw err;
  }
}

/** Runs one request of the Node listener inside its HTTP span, ended when the response is. */
export function tracedListener(req: IncomingMessage, res: ServerResponse, run: () => unknown): unknown {
  const traced = httpSpan(req.method ?? 'GET', (req.url ?? '/').split('?')[0]!);
  if (!traced) return run();
  const { api, span } = traced;
  res.once('close', () => endHttpSpan(api, span, res.statusCode));
  return api.context.with(api.trace.setSpan(api.context.active(), span), run);
}

/** Runs one SQL statement sent on the pool inside its span (or plainly, tracing off). */
export function tracedQuery<T>(text: string, run: () => Promise<T>): Promise<T> {
  if (!active) return run();
  const { api, tracer } = active;
  return tracer.startActiveSpan(
    'db.query',
    { kind: api.SpanKind.CLIENT, attributes: { 'db.system.name': 'postgresql', 'db.query.text': text } },
    async (span) => {
      try {
        return await run();
      } catch (err) {
        span.recordException(err as Error);
        span.setStatus({ code: api.SpanStatusCode.ERROR });
        throw err;
      } finally {
        span.end();
      }
    },
  );
}

/** A span around each GraphQL execution (a no-op unless tracing started). */
export function useTracing(): Plugin {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      if (!active) return;
      const { api, tracer } = active;
      const operation = getOperationAST(args.document, args.operationName);
      const name = operation?.name?.value;
      setExecuteFn((execArgs) =>
        tracer.startActiveSpan(
          `graphql.execute${name ? ` ${name}` : ''}`,
          {
            attributes: {
              'graphql.operation.type': operation?.operation ?? 'unknown',
              ...(name ? { 'graphql.operation.name': name } : {}),
            },
          },
          async (span) => {
            try {
              const result = await executeFn(execArgs);
              const errors = (result as { errors?: readonly unknown[] }).errors;
              if (errors?.length) {
                span.setAttribute('graphql.error.count', errors.length);
                span.setStatus({ code: api.SpanStatusCode.ERROR });
              }
              return result;
            } finally {
              span.end();
            }
          },
        ),
      );
    },
  };
}
