// The load generator: a separate process (forked by run.ts) that runs autocannon for each job
// it is sent: a warm-up whose figures are dropped, then the measured run. A job of a panel of
// parallel calls runs the panel driver instead (autocannon sends one request per connection
// at a time).
import http from 'node:http';
import autocannon from 'autocannon';
import type { RequestSpec } from './operations.js';
import { fill } from './templates.js';

export interface LoadJob {
  url: string;
  connections: number;
  warmup: number;
  duration: number;
  request: RequestSpec;
  /** Customers in the data set, for the `__CUST__` template. */
  customers: number;
  /**
   * A panel of calls sent together, as a browser does: `connections` clients, each sending one
   * panel after another (`__CUST__`: one customer per panel); then `request` is not sent and the
   * result counts panels (latency: a panel's first call sent to its last answer).
   */
  panel?: RequestSpec[];
}

export interface LoadResult {
  requests: number;
  /** Responses of the whole job, warm-up included. */
  allRequests: number;
  rps: number;
  latency: { mean: number; p50: number; p90: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** process.hrtime (µs, the clock of V8 CPU profiles) when the measured run started and ended. */
  measuredFromUs: number;
  measuredToUs: number;
}

const nowUs = () => Number(process.hrtime.bigint() / 1000n);

function options(job: LoadJob, duration: number): autocannon.Options {
  const { method, path, body, headers } = job.request;
  const templated = path.includes('__') || (body ?? '').includes('__');
  const request: autocannon.Request = templated
    ? {
        method,
        path,
        headers,
        setupRequest: (req) => ({ ...req, path: fill(path, job.customers), ...(body ? { body: fill(body, job.customers) } : {}) }),
      }
    : { method, path, headers, ...(body ? { body } : {}) };
  return { url: job.url, connections: job.connections, duration, requests: [request], timeout: 30 };
}

/**
 * The value at rank ⌈q·n⌉ of the sorted latencies (as HdrHistogram reports a percentile), in ms.
 * autocannon's own histogram counts whole milliseconds, too coarse for a request that takes 1 or
 * 2 ms: at concurrency 1 a p99 ratio between two servers moved by 50% with one step.
 */
function percentile(sorted: Float64Array, q: number) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]! : 0;
}

/**
 * One autocannon job of warm-up + measured seconds on the same connections: only requests sent
 * after the warm-up count. (A warm-up of its own would close its connections, and the measured
 * run would open new ones: a server busy with the others accepts one connection per turn of its
 * event loop (libuv), so at concurrency 64 the first ~35 requests of every row waited 150-450 ms
 * for their connection, and set the p99.)
 */
async function run(job: LoadJob): Promise<LoadResult> {
  const started = nowUs();
  const from = started + job.warmup * 1e6;
  const latencies: number[] = [];
  const statusCodes: Record<string, number> = {};
  let errors = 0;
  let timeouts = 0;
  let all = 0;
  const instance = autocannon(options(job, job.warmup + job.duration));
  // each response's time (ms, from process.hrtime), as autocannon's histogram records them
  instance.on('response', (_client, status, _bytes, ms) => {
    all += 1;
    if (nowUs() - ms * 1000 < from) return;
    statusCodes[status] = (statusCodes[status] ?? 0) + 1;
    if (status >= 200 && status < 300) latencies.push(ms);
  });
  instance.on('reqError', (err) => {
    if (nowUs() < from) return;
    errors += 1;
    if (/timed out/.test(err.message)) timeouts += 1;
  });
  await instance;
  const to = nowUs();
  const sorted = Float64Array.from(latencies).sort();
  const round = (ms: number) => Math.round(ms * 100) / 100;
  const requests = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  return {
    requests,
    allRequests: all,
    rps: requests / ((to - from) / 1e6),
    latency: {
      mean: round(latencies.reduce((a, b) => a + b, 0) / (latencies.length || 1)),
      p50: round(percentile(sorted, 0.5)),
      p90: round(percentile(sorted, 0.9)),
      p99: round(percentile(sorted, 0.99)),
      max: round(sorted.at(-1) ?? 0),
    },
    non2xx: requests - latencies.length,
    errors,
    timeouts,
    statusCodes,
    measuredFromUs: from,
    measuredToUs: to,
  };
}

/** One call on a client's agent: its status (0 when it failed: no answer, or timed out). */
function call(agent: http.Agent, url: URL, req: RequestSpec, customer: string): Promise<{ status: number; error?: string }> {
  return new Promise((resolve) => {
    const r = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: req.path.replaceAll('__CUST__', customer),
        headers: req.headers,
        agent,
        timeout: 30_000,
      },
      (res) => {
        res.on('error', (err) => resolve({ status: 0, error: err.message }));
        res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
        res.resume();
      },
    );
    r.on('timeout', () => r.destroy(new Error('timed out')));
    r.on('error', (err) => resolve({ status: 0, error: err.message }));
    r.end(req.body?.replaceAll('__CUST__', customer));
  });
}

/**
 * The panel driver: `connections` clients, each with its own keep-alive agent of 6 sockets per
 * host (a browser's), sends every call of a panel at once for one random customer, waits for
 * all the answers, and starts the next panel. Only panels started after the warm-up count.
 */
async function runPanels(job: LoadJob): Promise<LoadResult> {
  const calls = job.panel!;
  const url = new URL(job.url);
  const started = nowUs();
  const from = started + job.warmup * 1e6;
  const until = from + job.duration * 1e6;
  const latencies: number[] = [];
  const statusCodes: Record<string, number> = {};
  let errors = 0;
  let timeouts = 0;
  let all = 0;
  let failed = 0;
  const client = async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 6 });
    try {
      while (nowUs() < until) {
        const customer = String(2 + Math.floor(Math.random() * (job.customers - 1)));
        const sent = nowUs();
        const answers = await Promise.all(calls.map((req) => call(agent, url, req, customer)));
        const ms = (nowUs() - sent) / 1000;
        all += 1;
        if (sent < from) continue;
        for (const a of answers) {
          if (a.error) {
            errors += 1;
            if (/timed out/.test(a.error)) timeouts += 1;
          } else statusCodes[a.status] = (statusCodes[a.status] ?? 0) + 1;
        }
        if (answers.every((a) => a.status >= 200 && a.status < 300)) latencies.push(ms);
        else failed += 1;
      }
    } finally {
      agent.destroy();
    }
  };
  await Promise.all(Array.from({ length: job.connections }, client));
  const to = nowUs();
  const sorted = Float64Array.from(latencies).sort();
  const round = (ms: number) => Math.round(ms * 100) / 100;
  const panels = latencies.length + failed;
  return {
    requests: panels,
    allRequests: all,
    rps: panels / ((to - from) / 1e6),
    latency: {
      mean: round(latencies.reduce((a, b) => a + b, 0) / (latencies.length || 1)),
      p50: round(percentile(sorted, 0.5)),
      p90: round(percentile(sorted, 0.9)),
      p99: round(percentile(sorted, 0.99)),
      max: round(sorted.at(-1) ?? 0),
    },
    non2xx: failed,
    errors,
    timeouts,
    statusCodes,
    measuredFromUs: from,
    measuredToUs: to,
  };
}

process.on('message', (job: LoadJob) => {
  (job.panel ? runPanels(job) : run(job)).then(
    (result) => process.send!({ ok: true, result }),
    (err: Error) => process.send!({ ok: false, error: err.message }),
  );
});
process.send!({ ready: true });
