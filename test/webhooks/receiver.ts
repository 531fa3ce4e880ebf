// A webhook receiver on 127.0.0.1 (node:http), and the job workers over a test app's database
// with short timings, for the webhook tests.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startJobs } from '../../src/jobs/queue.js';
import { createLogger } from '../../src/observability/logger.js';
import { type TestApp, testConfig } from '../harness.js';
import { QUEUE_ENV } from '../processes.js';

export interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json: { id: string; type: string; created_at: string; merchant_id: string; data: any };
}

/** An answer: a status, or a status with headers (e.g. Retry-After). */
export type Answer = number | { status: number; headers: Record<string, string> };

/**
 * Answers 200 unless `answer` says otherwise; `received` keeps the requests it accepted (2xx),
 * `requests` every request with when it arrived.
 */
export async function startReceiver() {
  const received: Received[] = [];
  const requests: (Received & { at: Date; status: number })[] = [];
  const state = { answer: (_r: Received): Answer => 200 };
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const r: Received = { path: req.url ?? '/', headers: req.headers, body, json: JSON.parse(body) };
      const answer = state.answer(r);
      const { status, headers } = typeof answer === 'number' ? { status: answer, headers: {} } : answer;
      requests.push({ ...r, at: new Date(), status });
      if (status >= 200 && status < 300) received.push(r);
      res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(status < 300 ? 'ok' : 'receiver is down');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    received,
    requests,
    state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Short timings: retries after ~1 s, doubling; a 3 s window; dispatch every 100 ms. The post's
 * timeout stays the default: a busy machine can take seconds to answer on loopback, and a
 * timed-out post the receiver did get would count as one more attempt.
 */
export const jobsConfig = (overrides: Record<string, string> = {}) =>
  testConfig({
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    JOBS_POLL_SECONDS: '0.5',
    ...QUEUE_ENV,
    WEBHOOK_RETRY_WINDOW_SECONDS: '3',
    WEBHOOK_DISPATCH_INTERVAL_MS: '100',
    ...overrides,
  });

export function workers(app: TestApp, overrides?: Record<string, string>) {
  return startJobs({
    db: app.db,
    databaseUrl: app.url,
    config: jobsConfig(overrides),
    logger: createLogger('silent'),
    maintenanceSeconds: 1,
  });
}

/** Polls `check` until it holds (or fails with its last error after `ms`). */
export async function eventually<T>(check: () => Promise<T> | T, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
