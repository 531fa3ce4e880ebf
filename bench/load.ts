// The load generator: a separate process (forked by run.ts) that runs autocannon for each job
// it is sent: a warm-up whose figures are dropped, then the measured run.
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
}

export interface LoadResult {
  requests: number;
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

async function run(job: LoadJob): Promise<LoadResult> {
  if (job.warmup > 0) await autocannon(options(job, job.warmup));
  const from = nowUs();
  const latencies: number[] = [];
  const instance = autocannon(options(job, job.duration));
  // every 2xx response's time (ms, from process.hrtime), as autocannon's histogram records them
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status >= 200 && status < 300) latencies.push(ms);
  });
  const r = await instance;
  const to = nowUs();
  const sorted = Float64Array.from(latencies).sort();
  const round = (ms: number) => Math.round(ms * 100) / 100;
  const statusCodes = Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([k, v]) => [k, Number(v.count)]));
  return {
    requests: r.requests.total,
    rps: r.requests.total / r.duration,
    latency: {
      mean: round(latencies.reduce((a, b) => a + b, 0) / (latencies.length || 1)),
      p50: round(percentile(sorted, 0.5)),
      p90: round(percentile(sorted, 0.9)),
      p99: round(percentile(sorted, 0.99)),
      max: round(sorted.at(-1) ?? 0),
    },
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes,
    measuredFromUs: from,
    measuredToUs: to,
  };
}

process.on('message', (job: LoadJob) => {
  run(job).then(
    (result) => process.send!({ ok: true, result }),
    (err: Error) => process.send!({ ok: false, error: err.message }),
  );
});
process.send!({ ready: true });
