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

process.on('message', (job: LoadJob) => {
  run(job).then(
    (result) => process.send!({ ok: true, result }),
    (err: Error) => process.send!({ ok: false, error: err.message }),
  );
});
process.send!({ ready: true });
