// `npm run bench`: the service side by side with two baselines, in one run on one machine.
// Phases: load 1/10 of the data into PostgreSQL and time each operation at concurrency 1
// (service and raw pg), grow the data 10× and run every operation against every server at
// each concurrency, then the embedded database with the small data set, then a CPU profile
// of the operation furthest from the ceiling, then the <loyalty-panel>'s first render in
// Chromium (bench/panel.ts; `--panel-only` runs that row alone, without PostgreSQL). Prints
// tables and writes bench/results/*.json.
import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { GraphQLSchema } from 'graphql';
import { createPrisma } from '../src/db/client.js';
import { mintCustomerSession } from '../src/domain/access/customer-sessions.js';
import { benchDir, parseSettings, resultsDir, type Settings, usage } from './config.js';
import { backgroundBackends, type CpuUsed, checkpointsBegun, cpuByPlace, startCpuCount } from './cpu.js';
import {
  analyze,
  checkpointAll,
  clusterUnavailable,
  counts,
  createTenant,
  databaseName,
  loadCustomers,
  loadDataSet,
  prepareCitus,
  prepareEmbedded,
  preparePostgres,
  recount,
  type ShardLayout,
  shardLayout,
  type TableSize,
  type Tenant,
  tableSizes,
  vacuumWritten,
  withClient,
  withoutTriggers,
  workerUrls,
} from './data.js';
import type { LoadJob, LoadResult } from './load.js';
import {
  deepPageOf,
  graphqlDocument,
  graphqlRequest,
  type Operation,
  operations,
  type RequestSpec,
  restRequest,
  SHOPPER,
  writeBefore,
} from './operations.js';
import { type PanelResult, panelRow, panelTable } from './panel.js';
import { checkPanels, type PanelCheck, seedPanelCustomers } from './panel-check.js';
import { type ProfileSummary, printProfile, summariseProfile } from './profile.js';
import {
  citusCpuTable,
  citusFailures,
  citusRows,
  citusTable,
  embeddedTable,
  find,
  growthRows,
  growthTable,
  type Measurement,
  medianRow,
  operationTables,
  type Phase,
  type Protocol,
  panelCheckTable,
  startupTable,
  storageTable,
  summaryOf,
  targetChecks,
  targetTable,
  type Unavailable,
} from './report.js';
import {
  allocationCounter,
  loggedSince,
  logOffset,
  type RunningServer,
  type ServerKind,
  type StartOptions,
  sampleRss,
  startServer,
} from './servers.js';
import { fill } from './templates.js';

if (process.argv.includes('--help')) {
  console.log(usage);
  process.exit(0);
}

const settings: Settings = parseSettings();
/** The database servers whose backends a row's CPU counts (each has its own pg_stat_activity). */
const cpuServers = [settings.adminUrl, ...(settings.citus ? [settings.citus.adminUrl] : [])];
const t0 = performance.now();
const loadAtStart = os.loadavg().map((l) => Math.round(l * 100) / 100);
const log = (msg: string) => console.log(`[${((performance.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${msg}`);

// ---- the panel row alone: a browser and the embedded database, no PostgreSQL ----

if (settings.panel.only) {
  log(`panel only: ${os.cpus().length} CPUs, load average ${loadAtStart.join(' ')}`);
  const only = await panelRow({ ...settings.panel, log });
  console.log(panelTable(only));
  mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `panel-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify({ when: new Date().toISOString(), cpus: os.cpus().length, panel: only }, null, 2)}\n`);
  log(`results: ${path.relative(process.cwd(), file)}`);
  process.exit(0);
}

// ---- the load worker (a separate process) ----

class LoadWorker {
  private child: ChildProcess;
  private ready: Promise<void>;
  constructor() {
    this.child = fork(path.join(benchDir, 'load.ts'), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.ready = new Promise((resolve) => this.child.once('message', () => resolve()));
  }
  /** Runs `job`; `onWindow` hears when its measured window opens and closes. */
  async run(job: LoadJob, onWindow?: (edge: 'open' | 'close') => void): Promise<LoadResult> {
    await this.ready;
    return new Promise((resolve, reject) => {
      const heard = (msg: { window?: 'open' | 'close'; ok?: boolean; result?: LoadResult; error?: string }) => {
        if (msg.window) return onWindow?.(msg.window);
        this.child.off('message', heard);
        if (msg.ok) resolve(msg.result!);
        else reject(new Error(msg.error));
      };
      this.child.on('message', heard);
      this.child.send(job);
    });
  }
  close() {
    this.child.kill();
  }
}

// ---- state ----

const measurements: Measurement[] = [];
const unavailable: Unavailable[] = [];
const startup: Record<string, number> = {};
const shapeWarnings: string[] = [];
const incidents: string[] = [];
const restShapes = new Map<string, unknown>();
const profiles: (ProfileSummary & { server: ServerKind; op: string; protocol: Protocol; connections: number; rps: number })[] = [];

const deepPage = deepPageOf(settings.full.heavyRows);
const ops: Operation[] = operations(deepPage).filter((o) => !settings.ops || settings.ops.includes(o.name));
// GraphQL requests select what the REST twin answers (the REST schema's fields), not the graph's
// links as well: the same work in both protocols, as in the baselines
const { restSchema: schema } = (await import('../src/graphql/public.js')) as { restSchema: GraphQLSchema };
const worker = new LoadWorker();

// ---- helpers ----

/** Keys (and non-null value types) of a JSON answer, to check the baselines answer the same shape. */
function shape(v: unknown): unknown {
  if (Array.isArray(v)) return v.length ? [shape(v[0])] : [];
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, shape((v as any)[k])]),
    );
  return v === null ? null : typeof v;
}

function shapeDiff(a: unknown, b: unknown, at = ''): string[] {
  if (a === null || b === null) return [];
  if (Array.isArray(a) && Array.isArray(b)) return a.length && b.length ? shapeDiff(a[0], b[0], `${at}[]`) : [];
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) =>
      !(k in a)
        ? [`${at}.${k} only in baseline`]
        : !(k in b)
          ? [`${at}.${k} missing in baseline`]
          : shapeDiff((a as any)[k], (b as any)[k], `${at}.${k}`),
    );
  }
  return a === b ? [] : [`${at}: ${String(a)} vs ${String(b)}`];
}

/**
 * The last error a server logged since `offset` (its log's size before the failing request),
 * so the reason given is that request's: the service's JSON line at level error (with the
 * database's message), or the baselines' `console.error` of a pg error (`error: <message>`).
 * The service's log is written asynchronously: read it after a moment.
 */
async function lastLoggedError(logFile: string, offset: number): Promise<string | null> {
  await new Promise((r) => setTimeout(r, 300));
  const lines = loggedSince(logFile, offset).trim().split('\n').reverse();
  const clean = (m: string) => m.replace(/\s+/g, ' ').trim();
  for (const line of lines) {
    const plain = /^(?:error|\w*Error): (.+)$/.exec(line);
    if (plain) return clean(plain[1]!);
    let entry: any;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (!(entry?.level >= 50)) continue;
    const error = entry.err ?? entry.errors?.[0] ?? entry.error;
    const message: unknown = error?.message ?? entry.msg;
    // the functions that sent the statement (the stack's first frames past the SQL helper)
    const frames = [...String(error?.stack ?? '').matchAll(/at (?:async )?([\w.]+) \(/g)]
      .map((m) => m[1]!)
      .filter((name) => !['rowsOf', 'process.processTicksAndRejections'].includes(name))
      .slice(0, 2);
    if (typeof message !== 'string') return JSON.stringify(entry).slice(0, 400);
    return `${clean(message)}${frames.length ? ` (in ${frames.join(' ← ')})` : ''}`;
  }
  return null;
}

/** One request as the load will send it: is the operation there and answering 2xx? */
async function probe(server: RunningServer, req: RequestSpec, protocol: Protocol, customers: number) {
  try {
    const res = await fetch(server.url + fill(req.path, customers), {
      method: req.method,
      headers: req.headers,
      ...(req.body ? { body: fill(req.body, customers) } : {}),
    });
    const text = await res.text();
    let body: any = null;
    try {
      body = JSON.parse(text);
    } catch {}
    if (res.status >= 300) return { ok: false as const, reason: `HTTP ${res.status} ${text.slice(0, 160)}` };
    if (protocol === 'graphql' && (body?.errors || !body?.data)) {
      return { ok: false as const, reason: `GraphQL errors: ${JSON.stringify(body?.errors ?? body).slice(0, 160)}` };
    }
    return { ok: true as const, body };
  } catch (err) {
    return { ok: false as const, reason: (err as Error).message };
  }
}

/** Every call of a panel answers (the first failure otherwise); the body is the first call's. */
async function probeAll(server: RunningServer, load: Load, protocol: Protocol, customers: number) {
  const calls = Array.isArray(load) ? load : 'read' in load ? [load.read] : [load];
  const customer = String(2 + Math.floor(Math.random() * (customers - 1)));
  const answers = await Promise.all(
    calls.map((req) => probe(server, { ...req, path: req.path.replaceAll('__CUST__', customer) }, protocol, customers)),
  );
  return answers.find((a) => !a.ok) ?? answers[0]!;
}

async function measure(
  phase: Phase,
  server: RunningServer,
  op: Operation,
  protocol: Protocol,
  req: Load,
  connections: number,
  duration: number,
  customers: number,
  /** Count the CPU of the server and of this database's backends (bench/cpu.ts). */
  cpuDatabase?: string,
  /** This run's round and the rounds of its row (--repeat), for the log. */
  round?: [number, number],
): Promise<Measurement & { window: [number, number]; requests: number }> {
  const stop = sampleRss(server);
  const allocated = allocationCounter(server);
  // CPU over the measured window alone, as req/s and latency are: the warm-up opens the pools'
  // connections, and a new backend's first statements (a Citus worker's metadata, plans) are not
  // what a request costs a server that is running
  let cpu: (() => CpuUsed) | null = null;
  let counted: CpuUsed | undefined;
  // checkpoints the single node began in the window (their reads start at its edges)
  const checkpoints: Promise<number | null>[] = [];
  const logged = logOffset(server);
  const r = await worker.run({ url: server.url, connections, warmup: settings.warmup, duration, ...sent(req), customers }, (edge) => {
    if (!cpuDatabase) return;
    if (edge === 'open') cpu = startCpuCount(server.pid, cpuDatabase);
    else counted = cpu?.();
    checkpoints.push(checkpointsBegun(settings.adminUrl));
  });
  const [before, after] = await Promise.all(checkpoints);
  // the service's background connections, set apart from whichever row ran (bench/cpu.ts)
  const used = counted && cpuByPlace(counted, await backgroundBackends(cpuServers));
  const allocatedBytes = allocated();
  const peak = stop();
  const m: Measurement = {
    phase,
    server: server.kind,
    protocol,
    op: op.name,
    connections,
    rps: r.rps,
    mean_ms: r.latency.mean,
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    max_ms: r.latency.max,
    non2xx: r.non2xx,
    errors: r.errors,
    status_codes: r.statusCodes,
    peak_rss_mb: Math.round(peak),
    ...(r.allRequests ? { alloc_kb_per_request: Math.round(allocatedBytes / r.allRequests / 102.4) / 10 } : {}),
    ...(before != null && after != null && after > before ? { checkpoints: after - before } : {}),
    ...(used && r.requests
      ? {
          cpu_ms_per_request: Object.fromEntries(Object.entries(used).map(([k, ms]) => [k, Math.round((ms / r.requests) * 1000) / 1000])),
        }
      : {}),
  };
  // a row with failures says why, from what the server logged during it
  const error = r.non2xx || r.errors ? await lastLoggedError(server.logFile, logged) : null;
  if (error) m.logged_error = error.slice(0, 600);
  const of = round && round[1] > 1 ? ` (round ${round[0]}/${round[1]})` : '';
  log(
    `  ${phase} ${server.kind} ${protocol} ${op.name} c=${connections}${of}: ${r.rps.toFixed(0)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms` +
      `${m.alloc_kb_per_request !== undefined ? `, ${m.alloc_kb_per_request} KB allocated/request` : ''}` +
      `${
        m.cpu_ms_per_request
          ? `, CPU ms/request ${Object.entries(m.cpu_ms_per_request)
              .map(([k, v]) => `${k} ${v}`)
              .join(', ')}`
          : ''
      }` +
      `${m.checkpoints ? `, checkpoints ${m.checkpoints}` : ''}` +
      `${r.non2xx ? `, non-2xx ${r.non2xx} ${JSON.stringify(r.statusCodes)}` : ''}${r.errors ? `, errors ${r.errors}` : ''}` +
      `${error ? `; logged: ${m.logged_error}` : ''}`,
  );
  return Object.assign(m, { window: [r.measuredFromUs, r.measuredToUs] as [number, number], requests: r.requests });
}

/** The shopper's customer session (operations with `credential: 'session'`), minted once the data is loaded. */
let shopperSession: string | null = null;

/** What a row sends: one request (autocannon), or a panel of calls sent together (bench/load.ts's panel driver). */
/** A request, a panel of calls sent together, or a read sent after a write (operations.ts `afterWrite`). */
type Load = RequestSpec | RequestSpec[] | { before: RequestSpec; read: RequestSpec };
const sent = (load: Load) =>
  Array.isArray(load)
    ? { request: load[0]!, panel: load }
    : 'read' in load
      ? { request: load.read, before: load.before }
      : { request: load };

function requestsFor(kind: ServerKind, op: Operation, key: string): [Protocol, Load | string][] {
  if (op.calls) {
    if (kind !== 'service') return [['rest', 'the panel of REST calls is measured on the service only']];
    return [['rest', op.calls.map((path) => restRequest({ ...op, rest: { method: 'GET', path } }, key))]];
  }
  if (op.document) {
    const credential = op.credential === 'session' ? shopperSession : key;
    if (!credential) return [[kind === 'service' ? 'graphql' : 'rest', 'no shopper session was minted']];
    // the baselines' hand-written panel; the service's GraphQL document
    const [protocol, read] =
      kind !== 'service'
        ? (['rest', restRequest(op, credential)] as const)
        : (['graphql', graphqlRequest(op.document, op, credential)] as const);
    return [[protocol, op.afterWrite ? { before: writeBefore(op, key), read } : read]];
  }
  const out: [Protocol, Load | string][] = [['rest', restRequest(op, key)]];
  if (kind === 'service') {
    const doc = graphqlDocument(schema, op);
    out.push(['graphql', doc ? graphqlRequest(doc, op, key) : `the schema has no field ${op.graphql.field}`]);
  }
  return out;
}

/**
 * Runs every operation against every started server, interleaved (for each operation and
 * concurrency, one server after the other) so that drifting background load on the machine
 * hits all of them alike and the ratios stay fair. A warm-up pass comes first: every server
 * answers every operation it will be measured on for the warm-up time, unmeasured, so that no
 * row measures a process still compiling its hot paths or opening its pool (otherwise the
 * first operation after a start carried that for whichever server it was).
 *
 * With `rounds` > 1 the whole matrix is measured that many times, round after round, so that a
 * row's runs lie minutes apart and what drifts in between hits every server alike; each round
 * starts each operation and concurrency one server (or protocol) further on, so whatever the
 * first row after a change of operation or concurrency carries falls on each in turn. Every run keeps its
 * own warm-up on its connections (a server idle during the other servers' rows has let its pool
 * connections go, and 64 new connections are accepted one per turn of its event loop), so each
 * round measures the same thing. A row records the median of its runs (report.ts medianRow).
 */
async function runMatrix(
  phase: Phase,
  servers: Slot[],
  opts: {
    protocols: Protocol[];
    concurrency: number[];
    duration: number;
    customers: number;
    rounds: number;
    /** Before each write row: a CHECKPOINT, so every server's writes start from the same WAL state. */
    beforeWrite?: () => Promise<void>;
    /** Before each row: the written tables vacuumed (vacuumWritten). */
    beforeRow?: () => Promise<void>;
  },
) {
  // writes last, so reads see the loaded data (the warm-up's writes only add a few rows to
  // random customers, never to the deep-page customer c1)
  const plan: { op: Operation; targets: Target[] }[] = [];
  for (const op of [...ops].sort((a, b) => Number(a.kind === 'write') - Number(b.kind === 'write'))) {
    plan.push({ op, targets: await targetsFor(phase, op, servers, opts) });
  }
  // a row only the service answers (the panel of REST calls: 384 connections) runs after every
  // compared row, warm-up included: a process's peak RSS stays where its heaviest load set it,
  // and the service's would otherwise carry a load the baselines never had
  const alone = (p: { targets: Target[] }) => p.targets.every((t) => t.slot.server.kind === 'service') && p.targets.length > 0;
  const compared = await measurePlan(
    phase,
    plan.filter((p) => !alone(p)),
    opts,
  );
  const serviceOnly = await measurePlan(phase, plan.filter(alone), opts);
  for (const row of [...compared.values(), ...serviceOnly.values()]) measurements.push(medianRow(row));
}

/** The warm-up pass over `plan`'s targets, then its rows, round after round: each row's runs. */
async function measurePlan(
  phase: Phase,
  plan: { op: Operation; targets: Target[] }[],
  opts: Parameters<typeof runMatrix>[2],
): Promise<Map<string, Measurement[]>> {
  const runs = new Map<string, Measurement[]>();
  if (plan.length === 0) return runs;
  const warmupConnections = Math.max(...opts.concurrency);
  for (const { targets } of plan) {
    for (const t of targets) {
      await ensureAlive(t.slot);
      await worker.run({
        url: t.slot.server.url,
        connections: warmupConnections,
        warmup: 0,
        duration: settings.warmup,
        ...sent(t.req),
        customers: opts.customers,
      });
    }
  }
  const targetCount = plan.reduce((n, p) => n + p.targets.length, 0);
  const rows = targetCount * opts.concurrency.length;
  log(
    `  ${phase}: warm-up pass done (${targetCount} targets, ${settings.warmup} s each at c=${warmupConnections}); now ${rows} rows` +
      ` × ${opts.rounds} round${opts.rounds > 1 ? 's' : ''} of ${settings.warmup} + ${opts.duration} s, ~${Math.ceil((rows * opts.rounds * (settings.warmup + opts.duration)) / 60)} min`,
  );
  for (let round = 1; round <= opts.rounds; round++) {
    for (const { op, targets } of plan) {
      for (const c of opts.concurrency) {
        const turn = (round - 1) % Math.max(1, targets.length);
        for (const t of [...targets.slice(turn), ...targets.slice(0, turn)]) {
          const rowPhase = t.slot.phase ?? phase;
          // every row on a PostgreSQL server counts the CPU of the server and of its database's backends
          const { url } = t.slot.spec.database as { url?: string };
          const cpuOf = url ? databaseName(url) : undefined;
          let m: Measurement;
          for (let attempt = 1; ; attempt++) {
            await ensureAlive(t.slot);
            await opts.beforeRow?.();
            if (op.kind === 'write') await opts.beforeWrite?.();
            m = await measure(rowPhase, t.slot.server, op, t.protocol, t.req, c, opts.duration, opts.customers, cpuOf, [
              round,
              opts.rounds,
            ]);
            // died during the run: measure again
            if (t.slot.server.alive() || attempt === 2) break;
          }
          const key = `${t.slot.spec.label} ${t.protocol} ${op.name} ${c}`;
          runs.set(key, [...(runs.get(key) ?? []), m]);
        }
      }
    }
  }
  return runs;
}

interface Target {
  slot: Slot;
  protocol: Protocol;
  req: Load;
}

/** The servers and protocols that answer `op` (each probed once; its REST shape compared with the service's). */
async function targetsFor(
  matrixPhase: Phase,
  op: Operation,
  servers: Slot[],
  opts: { protocols: Protocol[]; customers: number },
): Promise<Target[]> {
  const targets: Target[] = [];
  for (const slot of servers) {
    await ensureAlive(slot);
    const phase = slot.phase ?? matrixPhase;
    for (const [protocol, req] of requestsFor(slot.server.kind, op, slot.spec.key)) {
      if (!opts.protocols.includes(protocol)) continue;
      if (typeof req === 'string') {
        unavailable.push({ phase, server: slot.server.kind, protocol, op: op.name, reason: req });
        continue;
      }
      const logged = logOffset(slot.server);
      const p = await probeAll(slot.server, req, protocol, opts.customers);
      if (!p.ok) {
        const error = await lastLoggedError(slot.server.logFile, logged);
        const reason = error ? `${p.reason}; logged: ${error.slice(0, 600)}` : p.reason;
        log(`  ${phase} ${slot.server.kind} ${protocol} ${op.name}: unavailable (${reason})`);
        unavailable.push({ phase, server: slot.server.kind, protocol, op: op.name, reason });
        continue;
      }
      if (protocol === 'rest' && op.kind === 'read') {
        if (slot.server.kind === 'service') restShapes.set(op.name, shape(p.body));
        else if (restShapes.has(op.name)) {
          const diff = shapeDiff(restShapes.get(op.name), shape(p.body));
          if (diff.length) shapeWarnings.push(`${phase} ${slot.server.kind} ${op.name}: ${diff.slice(0, 5).join('; ')}`);
        }
      }
      targets.push({ slot, protocol, req });
    }
  }
  return targets;
}

interface Slot {
  spec: StartOptions;
  server: RunningServer;
  /** The phase its rows are recorded under, when not the matrix's (one matrix, two databases). */
  phase?: Phase;
}

/** Restarts a server that exited under us (something else on the machine may kill it). */
async function ensureAlive(slot: Slot) {
  if (slot.server.alive()) return;
  const msg = `${slot.spec.label} exited unexpectedly (${slot.server.exitCode()}); restarted`;
  log(`  ${msg}`);
  incidents.push(msg);
  slot.server = await startServer(slot.spec);
}

/** Starts the servers one after the other (so start-up times are not contended), runs `fn`, stops them. */
async function withServers<T>(specs: (StartOptions & { phase?: Phase })[], fn: (s: Slot[]) => Promise<T>): Promise<T> {
  const slots: Slot[] = [];
  try {
    for (const { phase, ...spec } of specs) {
      const server = await startServer({ ...spec, serviceEnv: settings.serviceEnv });
      slots.push({ spec: { ...spec, serviceEnv: settings.serviceEnv }, server, phase });
      startup[spec.label] = server.startupMs;
      log(`started ${spec.label} (pid ${server.pid}) in ${server.startupMs.toFixed(0)} ms`);
    }
    return await fn(slots);
  } finally {
    for (const slot of slots) await slot.server.stop();
  }
}

// ---- the Citus phase ----

const citus: {
  skipped?: string;
  database?: string;
  rows?: unknown;
  sizes?: TableSize[];
  single_node_sizes?: TableSize[];
  layout?: ShardLayout;
  /** PostgreSQL cluster names (cluster_name, as in process titles) of the nodes, for the CPU columns. */
  clusters?: { single: string; coordinator: string };
} = {};

/**
 * The same data in a Citus database (distributed by the service's own migration step), then
 * the service and raw `pg` against the coordinator, interleaved with the same two servers on
 * the single-node database loaded before: the four are measured one after the other for each
 * operation and concurrency, so the ratios compare the same minutes of this shared machine.
 */
/** A session for the shopper, as a storefront's backend mints one (create_customer_session). */
async function mintShopperSession(url: string, merchantId: string) {
  const db = createPrisma(url, 1);
  try {
    const limits = { defaultTtl: 24 * 3600, maxTtl: 24 * 3600 };
    return (await mintCustomerSession(db, merchantId, { customer_id: SHOPPER }, limits)).token;
  } finally {
    await db.$disconnect();
  }
}

async function citusPhase(singleUrl: string, singleTenant: Tenant) {
  const cluster = settings.citus!;
  const why = await clusterUnavailable(cluster);
  if (why) {
    citus.skipped = why;
    log(`Citus phase SKIPPED: the cluster does not answer (${why}); start it with scripts/citus.sh start`);
    return;
  }
  const t = performance.now();
  const url = await prepareCitus(cluster);
  citus.database = url.replace(/\/\/[^@]*@/, '//');
  const tenant = await createTenant(url);
  await withClient(url, async (client) => {
    await loadDataSet(client, tenant.merchantId, full);
    rowCounts.citus = citus.rows = await counts(client, tenant.merchantId);
    citus.sizes = await tableSizes(client, true);
    citus.layout = await shardLayout(client, tenant.merchantId);
  });
  loadTimes.citus = performance.now() - t;
  log(
    `Citus ${citus.database}: loaded ${JSON.stringify(citus.rows)} in ${(loadTimes.citus / 1000).toFixed(1)} s; merchant on ${citus.layout?.merchant_node}`,
  );
  // the single-node database after the writes of the main phase: fresh statistics, as the Citus one has
  await withClient(singleUrl, async (client) => {
    await analyze(client);
    citus.single_node_sizes = await tableSizes(client, false);
  });
  const clusterName = (u: string) => withClient(u, async (c) => (await c.query('SHOW cluster_name')).rows[0].cluster_name as string);
  citus.clusters = { single: await clusterName(singleUrl), coordinator: await clusterName(url) };
  const checkpoint = () => checkpointAll([singleUrl, url, ...workerUrls(cluster)]);
  const on = (database: string, key: string, phase: Phase, where: string) =>
    (['service', 'raw-pg'] as const).map((kind) => ({ kind, key, database: { url: database }, label: `${kind} (${where})`, phase }));
  await withServers(
    [...on(singleUrl, singleTenant.key, 'citus-single', 'PostgreSQL, beside Citus'), ...on(url, tenant.key, 'citus', 'Citus')],
    (servers) =>
      runMatrix('citus', servers, {
        protocols: ['rest'],
        concurrency: settings.concurrency,
        duration: settings.duration,
        customers: full.customers,
        rounds: settings.repeat,
        beforeWrite: checkpoint,
        beforeRow: () => vacuumWritten([singleUrl, url]),
      }),
  );
}

// ---- the run ----

const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const loadTimes: Record<string, number> = {};
const rowCounts: Record<string, unknown> = {};
const { full, small } = settings;
let panel: PanelResult | null = null;
let panelCheck: PanelCheck | null = null;
const sizeLabel = (n: number) => (n >= 1000 ? `${n / 1000}k` : String(n));

try {
  log(
    `${settings.quick ? 'QUICK' : 'FULL'} run: ${full.customers} customers / ${full.transactions} transactions; ${os.cpus().length} CPUs, load average ${loadAtStart.join(' ')}`,
  );
  const url = await preparePostgres(settings.adminUrl, settings.databaseUrl);
  log(`database ${url.replace(/\/\/[^@]*@/, '//')}`);
  const tenant = await createTenant(url);
  // after a checkpoint starts, the first change to each page writes the whole page to the WAL:
  // without this, whichever server wrote first after one paid for the others
  const checkpoint = () => withClient(url, async (client) => void (await client.query('CHECKPOINT')));

  const firstTo = settings.skipGrowth ? full.customers : small.customers;
  let t = performance.now();
  await withClient(url, async (client) => {
    await loadDataSet(client, tenant.merchantId, full, firstTo);
    rowCounts.first = await counts(client, tenant.merchantId);
  });
  loadTimes.postgres_first = performance.now() - t;
  log(`loaded ${JSON.stringify(rowCounts.first)} in ${(loadTimes.postgres_first / 1000).toFixed(1)} s`);

  if (!settings.skipGrowth) {
    await withServers(
      (['service', 'raw-pg'] as const).map((kind) => ({ kind, key: tenant.key, database: { url }, label: `${kind} (PostgreSQL, small)` })),
      (servers) =>
        runMatrix('small', servers, {
          protocols: ['rest'],
          concurrency: [1],
          duration: settings.shortDuration,
          customers: small.customers,
          // one run a row: concurrency 1 moves little, and the growth table is not judged
          rounds: 1,
          beforeWrite: checkpoint,
          beforeRow: () => vacuumWritten([url]),
        }),
    );
    t = performance.now();
    await withClient(url, async (client) => {
      await withoutTriggers(client, async () => {
        await loadCustomers(client, tenant.merchantId, full, small.customers + 1, full.customers);
        await recount(client);
      });
      await analyze(client);
      rowCounts.full = await counts(client, tenant.merchantId);
    });
    loadTimes.postgres_grow = performance.now() - t;
    log(`grew to ${JSON.stringify(rowCounts.full)} in ${(loadTimes.postgres_grow / 1000).toFixed(1)} s`);
  }

  if (ops.some((o) => o.credential === 'session')) shopperSession = await mintShopperSession(url, tenant.merchantId);
  await withServers(
    (['service', 'fastify-prisma', 'raw-pg'] as const).map((kind) => ({
      kind,
      key: tenant.key,
      database: { url },
      label: `${kind} (PostgreSQL)`,
    })),
    async (servers) => {
      if (ops.some((o) => o.document)) {
        const [service, ...baselines] = servers.map((s) => ({ kind: s.server.kind, url: s.server.url }));
        // the shopper, the deep-history customer and the last one: a credit and a held code each first
        const customers = [SHOPPER, 'c1', `c${full.customers}`];
        await seedPanelCustomers(service!.url, tenant.key, customers);
        panelCheck = await checkPanels({
          service: service!.url,
          baselines,
          key: tenant.key,
          session: shopperSession,
          shopper: SHOPPER,
          customers,
          log,
        });
      }
      await runMatrix('full', servers, {
        protocols: ['rest', 'graphql'],
        concurrency: settings.concurrency,
        duration: settings.duration,
        customers: full.customers,
        rounds: settings.repeat,
        beforeWrite: checkpoint,
        beforeRow: () => vacuumWritten([url]),
      });
    },
  );

  if (!settings.skipEmbedded) {
    t = performance.now();
    const embedded = await prepareEmbedded(small);
    loadTimes.embedded = performance.now() - t;
    log(`embedded database loaded (${small.customers} customers) in ${(loadTimes.embedded / 1000).toFixed(1)} s`);
    try {
      await withServers(
        [{ kind: 'service', key: embedded.tenant.key, database: { dataDir: embedded.dataDir }, label: 'service (embedded PGlite)' }],
        (s) =>
          runMatrix('embedded', s, {
            protocols: ['rest'],
            concurrency: settings.concurrency,
            duration: settings.shortDuration,
            customers: small.customers,
            // one server, not judged: one run a row
            rounds: 1,
          }),
      );
    } finally {
      embedded.remove();
    }
  }

  if (settings.profile) {
    const top = Math.max(...settings.concurrency);
    // the read furthest from the ceiling (lowest service/raw throughput), unless named
    const candidates = ops
      .filter((o) => o.kind === 'read' && !o.calls)
      .map((o) => {
        const protocol = o.document ? 'graphql' : 'rest';
        const s = find(measurements, { phase: 'full', server: 'service', protocol, op: o.name, connections: top });
        const raw = find(measurements, { phase: 'full', server: 'raw-pg', op: o.name, connections: top });
        return { op: o, r: s && raw ? s.rps / raw.rps : Infinity };
      })
      .sort((a, b) => a.r - b.r);
    const named = ops.find((o) => o.name === settings.profileOp);
    const op = named ?? (Number.isFinite(candidates[0]?.r) ? candidates[0]!.op : undefined);
    if (op) {
      // the service and the Fastify + Prisma baseline, same operation, same load
      for (const kind of ['service', 'fastify-prisma'] as const) {
        const dir = mkdtempSync(path.join(os.tmpdir(), `loyalty-bench-profile-${kind}-`));
        let run: { window: [number, number]; requests: number; rps: number } | undefined;
        let protocol: Protocol = 'rest';
        await withServers(
          [{ kind, key: tenant.key, database: { url }, label: `${kind} (PostgreSQL, --cpu-prof)`, cpuProfDir: dir }],
          async ([slot]) => {
            const doc = kind === 'service' && settings.profileGraphql && !op.document ? graphqlDocument(schema, op) : undefined;
            // the panel: the service's document and the baseline's hand-written panel
            const [p, request] = doc ? (['graphql', graphqlRequest(doc, op, tenant.key)] as const) : requestsFor(kind, op, tenant.key)[0]!;
            if (typeof request === 'string') return log(`profile of ${op.name} on ${kind}: ${request}`);
            protocol = p;
            run = await measure('profile', slot!.server, op, protocol, request, top, settings.duration, full.customers);
          },
        );
        // the main thread's profile (tsx's loader thread writes one too)
        const file = readdirSync(dir).find((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f));
        if (file && run) {
          const summary = summariseProfile(path.join(dir, file), run.window[0], run.window[1], run.requests);
          profiles.push({ ...summary, server: kind, op: op.name, protocol, connections: top, rps: run.rps });
        } else log(`no .cpuprofile written in ${dir}`);
      }
    }
  }

  if (settings.citus) await citusPhase(url, tenant);

  // last: a browser beside the servers would take their CPU
  if (!settings.panel.skip) panel = await panelRow({ ...settings.panel, log });
} finally {
  worker.close();
}

// ---- report ----

// a baseline whose panel differs from the service's is no yardstick for the panel rows
// (set inside the full phase's callback, which TypeScript's narrowing does not see)
const notComparable = new Set<string>((panelCheck as PanelCheck | null)?.mismatched ?? []);
const checks = targetChecks(measurements, ops, settings.concurrency, notComparable);
const growth = growthRows(measurements, ops);
const out = [
  panelCheckTable(panelCheck),
  operationTables(measurements, ops, settings.concurrency, unavailable, notComparable),
  targetTable(checks, startup, settings.repeat),
  growthTable(growth, `${sizeLabel(small.customers)} customers`, `${sizeLabel(full.customers)} customers`),
  settings.skipEmbedded ? '' : embeddedTable(measurements, ops, settings.concurrency, unavailable),
  startupTable(startup),
  settings.panel.skip ? '' : panelTable(panel),
  shapeWarnings.length ? `\n== Response shape differences (service vs baseline) ==\n  ${shapeWarnings.join('\n  ')}` : '',
  settings.citus ? citusTable(measurements, ops, settings.concurrency, unavailable, citus.skipped) : '',
  settings.citus && citus.clusters ? citusCpuTable(measurements, ops, settings.concurrency, citus.clusters) : '',
  settings.citus ? storageTable(citus.single_node_sizes, citus.sizes, citus.layout) : '',
  ...profiles.map((p) =>
    printProfile(
      p,
      `${p.server} ${p.protocol === 'graphql' ? 'GraphQL' : 'REST'} ${p.op}, concurrency ${p.connections}, ${Math.round(p.rps)} req/s`,
    ),
  ),
  incidents.length ? `\n== Incidents ==\n  ${incidents.join('\n  ')}` : '',
].join('\n');
console.log(out);

mkdirSync(resultsDir, { recursive: true });
const result = {
  when: new Date().toISOString(),
  mode: settings.quick ? 'quick' : 'full',
  machine: {
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model,
    memory_gb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    // the machine is shared: its load when the run began and ended (1, 5, 15 min)
    load_average: { start: loadAtStart, end: os.loadavg().map((l) => Math.round(l * 100) / 100) },
  },
  settings: { ...settings, databaseUrl: settings.databaseUrl ? '(given)' : null, adminUrl: undefined },
  rows: rowCounts,
  load_seconds: Object.fromEntries(Object.entries(loadTimes).map(([k, v]) => [k, Math.round(v / 100) / 10])),
  startup_ms: Object.fromEntries(Object.entries(startup).map(([k, v]) => [k, Math.round(v)])),
  measurements,
  unavailable,
  targets: checks,
  growth,
  shape_warnings: shapeWarnings,
  incidents,
  profiles,
  panel_check: panelCheck,
  panel,
  citus: settings.citus
    ? {
        ...citus,
        comparison: citusRows(measurements, ops, settings.concurrency),
        failures: citusFailures(measurements, unavailable),
      }
    : null,
  total_seconds: Math.round((performance.now() - t0) / 1000),
};
const file = path.join(resultsDir, `bench-${settings.quick ? 'quick-' : ''}${stamp}.json`);
writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
writeFileSync(path.join(resultsDir, 'latest.json'), `${JSON.stringify(result, null, 2)}\n`);
log(`results: ${path.relative(process.cwd(), file)} (and bench/results/latest.json); ${result.total_seconds} s in all`);
// only a full run of every row replaces it: a run of some operations would stand for the whole
const everyRow = !settings.ops && settings.concurrency.join() === '1,64';
if (!settings.quick && !everyRow) log('not every row: bench/results/summary.json left as it was');
if (!settings.quick && everyRow) {
  // the last full run, small and committed (bench/results/summary.json is not git-ignored)
  const summary = summaryOf(result, path.basename(file));
  writeFileSync(path.join(resultsDir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  log('summary of this full run: bench/results/summary.json (commit it)');
}
process.exit(0);
