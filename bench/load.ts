// The load generator: a separate process (forked by run.ts) that runs autocannon for each job
// it is sent: a warm-up whose figures are dropped, then the measured run. A job of a panel of
// parallel calls runs the panel driver instead (autocannon sends one request per connection
// at a time), and a job of reads each after a write the driver after writes.
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
   * result counts panels (latency: a panel's first call sent to its last answer; `non2xx`: the
   * panels with a call not answered 2xx; `statusCodes` and `errors`: their calls).
   */
  panel?: RequestSpec[];
  /**
   * Sent before each `request` on the same connection, for the same customer (`__CUST__` drawn
   * once for both) and not counted: the driver after writes (`connections` clients, one request
   * at a time each) then counts the reads alone.
   */
  before?: RequestSpec;
}

export interface LoadResult {
  requests: number;
  /** Responses of the whole job, warm-up included (panels: every panel answered, the last ones after the window too). */
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

/** Tells the benchmark when the measured window opens and closes: it counts CPU over the window alone (bench/cpu.ts). */
const signal = (window: 'open' | 'close') => process.send!({ window });

/**
 * Signals the window [from, to] (µs, nowUs's clock) at its edges; the function returned, called
 * when the job's answers are in, closes an open window still open then (before the result is sent).
 */
function signalWindow(from: number, to: number) {
  let open = false;
  const opening = setTimeout(
    () => {
      open = true;
      signal('open');
    },
    Math.max(0, (from - nowUs()) / 1000),
  );
  const close = () => {
    clearTimeout(opening);
    clearTimeout(closing);
    if (open) signal('close');
    open = false;
  };
  const closing = setTimeout(close, Math.max(0, (to - nowUs()) / 1000));
  return close;
}

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

/** What a driver counts over its measured window [from, to] (µs). */
interface Tally {
  from: number;
  to: number;
  /** Answers counted: requests, or panels. */
  counted: number;
  /** Times (ms) of the counted answers that were 2xx (a panel: every call of it). */
  latencies: number[];
  /** Answers of the whole job, warm-up and the last ones after the window included. */
  all: number;
  statusCodes: Record<string, number>;
  errors: number;
  timeouts: number;
}

const tally = (from: number): Tally => ({ from, to: from, counted: 0, latencies: [], all: 0, statusCodes: {}, errors: 0, timeouts: 0 });

function failedCall(t: Tally, message: string) {
  t.errors += 1;
  if (/timed out/.test(message)) t.timeouts += 1;
}

/** The figures of a driver's run: rate over the window, percentiles of its 2xx answers. */
function summarise(t: Tally): LoadResult {
  const sorted = Float64Array.from(t.latencies).sort();
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return {
    requests: t.counted,
    allRequests: t.all,
    rps: t.counted / ((t.to - t.from) / 1e6),
    latency: {
      mean: round(t.latencies.reduce((a, b) => a + b, 0) / (t.latencies.length || 1)),
      p50: round(percentile(sorted, 0.5)),
      p90: round(percentile(sorted, 0.9)),
      p99: round(percentile(sorted, 0.99)),
      max: round(sorted.at(-1) ?? 0),
    },
    non2xx: t.counted - t.latencies.length,
    errors: t.errors,
    timeouts: t.timeouts,
    statusCodes: t.statusCodes,
    measuredFromUs: t.from,
    measuredToUs: t.to,
  };
}

/**
 * One autocannon job of warm-up + measured seconds on the same connections: only requests sent
 * after the warm-up count. (A warm-up of its own would close its connections, and the measured
 * run would open new ones: a server busy with the others accepts one connection per turn of its
 * event loop (libuv), so at concurrency 64 the first ~35 requests of every row waited 150-450 ms
 * for their connection, and set the p99.)
 */
async function run(job: LoadJob): Promise<LoadResult> {
  const t = tally(nowUs() + job.warmup * 1e6);
  const closeWindow = signalWindow(t.from, t.from + job.duration * 1e6);
  const instance = autocannon(options(job, job.warmup + job.duration));
  // each response's time (ms, from process.hrtime), as autocannon's histogram records them
  instance.on('response', (_client, status, _bytes, ms) => {
    t.all += 1;
    if (nowUs() - ms * 1000 < t.from) return;
    t.counted += 1;
    t.statusCodes[status] = (t.statusCodes[status] ?? 0) + 1;
    if (status >= 200 && status < 300) t.latencies.push(ms);
  });
  instance.on('reqError', (err) => {
    if (nowUs() >= t.from) failedCall(t, err.message);
  });
  await instance;
  t.to = nowUs();
  closeWindow();
  return summarise(t);
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

/** One round of a client: when its counted part was sent, its calls' answers, and whether it counts as answered 2xx. */
type Round = (agent: http.Agent, customer: string) => Promise<{ sent: number; answers: { status: number; error?: string }[]; ok: boolean }>;

/**
 * The drivers of rounds of several calls: `connections` clients, each with its own keep-alive
 * agent of `sockets` sockets, run one round after another for a random customer each.
 *
 * The measured window opens after the warm-up and not before every client has had its first
 * round answered: that round opens the client's connections, and at concurrency 64 the server
 * accepts them one per turn of its event loop (a panel's 384 took 0.5-2.8 s on a quiet machine;
 * a round started before the window and ending after it would otherwise stand for the whole
 * window). The window then lasts `duration`; a round counts when it ends inside it (with the
 * time from its counted part's sending to its last answer), so the rate is rounds answered per
 * second of window, whatever their length. Rounds still running at its end are awaited, not counted.
 */
async function runRounds(job: LoadJob, sockets: number, round: Round): Promise<LoadResult> {
  const earliest = nowUs() + job.warmup * 1e6;
  // the window, set once every client's first round is answered
  const t = tally(Infinity);
  t.to = Infinity;
  let opened = 0;
  let closeWindow = () => {};
  const client = async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
    let first = true;
    try {
      while (nowUs() < t.to) {
        const customer = String(2 + Math.floor(Math.random() * (job.customers - 1)));
        const { sent, answers, ok } = await round(agent, customer);
        const done = nowUs();
        t.all += 1;
        if (first) {
          first = false;
          if (++opened === job.connections) {
            t.from = Math.max(done, earliest);
            t.to = t.from + job.duration * 1e6;
            closeWindow = signalWindow(t.from, t.to);
          }
        }
        if (done <= t.from || done > t.to) continue;
        t.counted += 1;
        for (const a of answers) {
          if (a.error) failedCall(t, a.error);
          else t.statusCodes[a.status] = (t.statusCodes[a.status] ?? 0) + 1;
        }
        if (ok) t.latencies.push((done - sent) / 1000);
      }
    } finally {
      agent.destroy();
    }
  };
  await Promise.all(Array.from({ length: job.connections }, client));
  closeWindow();
  return summarise(t);
}

const is2xx = (a: { status: number }) => a.status >= 200 && a.status < 300;

/** The panel driver: every call of a panel at once for one customer, on a browser's 6 sockets per host. */
function runPanels(job: LoadJob): Promise<LoadResult> {
  const url = new URL(job.url);
  return runRounds(job, 6, async (agent, customer) => {
    const sent = nowUs();
    const answers = await Promise.all(job.panel!.map((req) => call(agent, url, req, customer)));
    return { sent, answers, ok: answers.every(is2xx) };
  });
}

/** The driver after writes: on one connection, the write for a customer, then the read for it, which alone is timed. */
function runAfterWrites(job: LoadJob): Promise<LoadResult> {
  const url = new URL(job.url);
  return runRounds(job, 1, async (agent, customer) => {
    const wrote = await call(agent, url, job.before!, customer);
    const sent = nowUs();
    const read = await call(agent, url, job.request, customer);
    return { sent, answers: [wrote, read], ok: is2xx(read) };
  });
}

process.on('message', (job: LoadJob) => {
  (job.panel ? runPanels(job) : job.before ? runAfterWrites(job) : run(job)).then(
    (result) => process.send!({ ok: true, result }),
    (err: Error) => process.send!({ ok: false, error: err.message }),
  );
});
process.send!({ ready: true });
