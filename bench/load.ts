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

async function run(job: LoadJob): Promise<LoadResult> {
  if (job.warmup > 0) await autocannon(options(job, job.warmup));
  const from = nowUs();
  const r = await autocannon(options(job, job.duration));
  const to = nowUs();
  const statusCodes = Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([k, v]) => [k, Number(v.count)]));
  return {
    requests: r.requests.total,
    rps: r.requests.total / r.duration,
    latency: { mean: r.latency.average, p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
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
