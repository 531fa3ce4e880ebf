// Opt-in tracing: with OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP/HTTP receiver on
// 127.0.0.1, one request yields an HTTP span, a GraphQL execution span under it, and SQL
// spans (Prisma's) under that, all of one trace. Without the variable, nothing starts.
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTracing, type Tracing } from '../../src/observability/tracing.js';
import { client, newKey, newMerchant, testApp } from '../harness.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: Record<string, unknown> }[];
}

let receiver: Server;
let tracing: Tracing | undefined;
const received: { path: string; spans: OtlpSpan[]; service?: unknown }[] = [];

beforeAll(async () => {
  // a tiny OTLP/HTTP (JSON) trace receiver
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const doc = JSON.parse(body) as {
        resourceSpans: { resource: { attributes: { key: string; value: unknown }[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
      };
      for (const rs of doc.resourceSpans) {
        received.push({
          path: req.url ?? '',
          service: rs.resource.attributes.find((a) => a.key === 'service.name')?.value,
          spans: rs.scopeSpans.flatMap((s) => s.spans),
        });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;
  tracing = await startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_SERVICE_NAME: 'loyalty-test' });
});

afterAll(async () => {
  await tracing?.shutdown();
  await new Promise((resolve) => receiver.close(resolve));
});

describe('tracing', () => {
  it('is off without OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    expect(await startTracing({})).toBeUndefined();
    expect(await startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
  });

  it('loads OpenTelemetry only when started: no source file imports it statically', () => {
    const src = path.resolve(import.meta.dirname, '../../src');
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.startsWith('generated'));
    const statics = files.flatMap((f) =>
      readFileSync(path.join(src, f), 'utf8')
        .split('\n')
        .filter((line) => /^\s*import\s+(?!type\b)[^(]*from\s+'(@opentelemetry\/|@prisma\/instrumentation)/.test(line))
        .map((line) => `${f}: ${line.trim()}`),
    );
    expect(statics).toEqual([]);
  });

  it('exports HTTP, GraphQL and SQL spans of one request, nested, to the OTLP endpoint', async () => {
    expect(tracing).toBeDefined();
    const app = await testApp();
    const merchant = await newMerchant(app, 'traced');
    const api = client(app, await newKey(app, merchant.id));
    const res = await api.gql('query Rewards { rewards { data { id } } }');
    expect(res.status).toBe(200);
    await tracing!.flush();

    expect(received.length).toBeGreaterThan(0);
    expect(received.every((r) => r.path === '/v1/traces')).toBe(true);
    expect(received[0]!.service).toEqual({ stringValue: 'loyalty-test' });
    const spans = received.flatMap((r) => r.spans);
    const execution = spans.find((s) => s.name === 'graphql.execute Rewards');
    expect(execution, spans.map((s) => s.name).join(', ')).toBeDefined();
    const http = spans.find((s) => s.spanId === execution!.parentSpanId)!;
    expect(http).toMatchObject({ name: 'POST', traceId: execution!.traceId });
    expect(http.attributes).toContainEqual({ key: 'url.path', value: { stringValue: '/graphql' } });
    expect(http.attributes).toContainEqual({ key: 'http.response.status_code', value: { intValue: 200 } });
    // the statement's span (sent on the pool: src/db/sql.ts), in the same trace, below the execution
    const sql = spans.filter((s) => s.traceId === execution!.traceId && s.name === 'db.query');
    expect(sql.length, spans.map((s) => s.name).join(', ')).toBeGreaterThan(0);
    expect(sql[0]!.attributes).toContainEqual({ key: 'db.system.name', value: { stringValue: 'postgresql' } });
    const ancestors = (span: OtlpSpan): string[] => {
      const parent = spans.find((s) => s.spanId === span.parentSpanId);
      return parent ? [parent.spanId, ...ancestors(parent)] : [];
    };
    expect(sql.some((s) => ancestors(s).includes(execution!.spanId))).toBe(true);
  });
});
