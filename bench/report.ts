// Tables of the benchmark: per operation the service (REST and GraphQL) against the two
// baselines, with the ratios the issue's targets are stated in.

import { BACKGROUND_KEY } from './cpu.js';
import type { Operation } from './operations.js';

export type Protocol = 'rest' | 'graphql';
/** `citus`: servers on the Citus coordinator; `citus-single`: the same servers on single-node PostgreSQL, measured beside them. */
export type Phase = 'full' | 'small' | 'embedded' | 'profile' | 'citus' | 'citus-single';

export interface Measurement {
  phase: Phase;
  server: string;
  protocol: Protocol;
  op: string;
  connections: number;
  rps: number;
  mean_ms: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  non2xx: number;
  errors: number;
  status_codes: Record<string, number>;
  peak_rss_mb: number;
  /**
   * KB the server's JavaScript heap allocated per request, warm-up included (the sum of V8's
   * `allocated=` over the collections of the window, bench/servers.ts allocationCounter).
   */
  alloc_kb_per_request?: number;
  /**
   * CPU milliseconds per request over the measured window: `app` the server under test, the
   * benchmark database's backends per PostgreSQL cluster (every row on PostgreSQL; bench/cpu.ts),
   * and apart from them the service's background connections (`service background`: its jobs,
   * outbox dispatcher and notification feed, which run whichever server is measured).
   */
  cpu_ms_per_request?: Record<string, number>;
  /** Checkpoints the single node began during the measured window (none: absent). */
  checkpoints?: number;
  /** The last error the server logged during a row with failures (non-2xx answers or errors). */
  logged_error?: string;
  /**
   * How many runs the row had (--repeat; see medianRow for how they make one row), and the spread
   * of their requests/s: each run's, in the order measured, the lowest and the highest.
   */
  runs?: number;
  rps_runs?: number[];
  rps_min?: number;
  rps_max?: number;
  /** Each run's p99 (ms), in the order measured. */
  p99_runs_ms?: number[];
}

function median(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * One row from its runs: each figure the median of the runs' (the mean of the middle two for an
 * even count), not the figures of one median run. The runs' p99 and peak RSS move on their own
 * (a burst of the machine in one run sets that run's p99 whatever its requests/s), so the run
 * with the median requests/s would carry one draw of them; the median of each steadies every
 * figure a target judges. `max_ms` is the highest of the runs', the answer and checkpoint counts
 * their sums.
 */
export function medianRow(runs: Measurement[]): Measurement {
  const first = runs[0]!;
  const of = (pick: (m: Measurement) => number | undefined) => {
    const xs = runs.map(pick).filter((v): v is number => v !== undefined);
    return xs.length ? median(xs) : undefined;
  };
  const r = (n: number, places: number) => Math.round(n * 10 ** places) / 10 ** places;
  const statusCodes: Record<string, number> = {};
  for (const m of runs) for (const [code, n] of Object.entries(m.status_codes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  const alloc = of((m) => m.alloc_kb_per_request);
  const cpuKeys = [...new Set(runs.flatMap((m) => Object.keys(m.cpu_ms_per_request ?? {})))];
  const logged = runs.map((m) => m.logged_error).filter(Boolean);
  const checkpoints = runs.reduce((n, m) => n + (m.checkpoints ?? 0), 0);
  const rps = runs.map((m) => r(m.rps, 1));
  return {
    phase: first.phase,
    server: first.server,
    protocol: first.protocol,
    op: first.op,
    connections: first.connections,
    rps: median(runs.map((m) => m.rps)),
    mean_ms: r(median(runs.map((m) => m.mean_ms)), 2),
    p50_ms: r(median(runs.map((m) => m.p50_ms)), 2),
    p99_ms: r(median(runs.map((m) => m.p99_ms)), 2),
    max_ms: Math.max(...runs.map((m) => m.max_ms)),
    non2xx: runs.reduce((n, m) => n + m.non2xx, 0),
    errors: runs.reduce((n, m) => n + m.errors, 0),
    status_codes: statusCodes,
    peak_rss_mb: Math.round(median(runs.map((m) => m.peak_rss_mb))),
    ...(alloc !== undefined ? { alloc_kb_per_request: r(alloc, 1) } : {}),
    ...(cpuKeys.length
      ? { cpu_ms_per_request: Object.fromEntries(cpuKeys.map((k) => [k, r(of((m) => m.cpu_ms_per_request?.[k])!, 3)])) }
      : {}),
    ...(logged.length ? { logged_error: logged.at(-1) } : {}),
    ...(checkpoints ? { checkpoints } : {}),
    runs: runs.length,
    rps_runs: rps,
    rps_min: Math.min(...rps),
    rps_max: Math.max(...rps),
    p99_runs_ms: runs.map((m) => m.p99_ms),
  };
}

export interface Unavailable {
  phase: Phase;
  server: string;
  protocol: Protocol;
  op: string;
  reason: string;
}

const f0 = (n: number) => (Number.isFinite(n) ? Math.round(n).toString() : '-');
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 2 : 1) : '-');
const ratio = (a: number | undefined, b: number | undefined) => (a && b ? a / b : NaN);
const x = (n: number) => (Number.isFinite(n) ? `${n.toFixed(2)}×` : 'n/a');
const f2 = (n: number | undefined) => (n !== undefined && Number.isFinite(n) ? n.toFixed(2) : '-');
/** CPU ms a request of a row: the server's (`app`), or its database backends' together (`db`). */
const cpuOf = (m: Measurement, who: 'app' | 'db') => {
  const used = m.cpu_ms_per_request;
  if (!used) return undefined;
  return who === 'app'
    ? used.app
    : Object.entries(used).reduce((sum, [k, ms]) => (k === 'app' || k === BACKGROUND_KEY ? sum : sum + ms), 0);
};
const pad = (s: string, n: number) => s.padEnd(n);
const lpad = (s: string, n: number) => s.padStart(n);

/** A row's runs and the range of their requests/s (`1` alone for a single run). */
const spread = (m: Measurement) =>
  m.runs && m.runs > 1 ? `${m.runs}: ${f0(m.rps_min ?? NaN)}–${f0(m.rps_max ?? NaN)}` : String(m.runs ?? 1);

const label = (m: { server: string; protocol: Protocol }) =>
  m.server === 'service' ? `service ${m.protocol === 'rest' ? 'REST' : 'GraphQL'}` : m.server;

export function find(ms: Measurement[], q: Partial<Measurement>) {
  return ms.find((m) => Object.entries(q).every(([k, v]) => (m as any)[k] === v));
}

export interface TargetCheck {
  op: string;
  protocol: Protocol;
  connections: number;
  vs_fastify_rps: number;
  vs_raw_rps: number;
  p99_vs_fastify: number;
  p99_vs_raw: number;
  rss_vs_fastify: number;
  /** Baselines whose panel differs from the service's (panel check): no ratio judged against them. */
  not_comparable?: string[];
  /** The targets it misses (empty: all met). */
  missed: string[];
  pass: boolean;
}

/**
 * The targets: on every operation, both protocols, every concurrency of the run. The panel's
 * rows (one GraphQL request doing a storefront's seven reads) have their own throughput
 * ratios; p99 against Fastify + Prisma is shown, not judged.
 */
export const TARGETS = {
  vsFastifyRps: 1.5,
  vsRawRps: 0.8,
  panelVsFastifyRps: 2.0,
  panelVsRawRps: 0.7,
  /** The panel answered from the service's cache (operations `panel_cached`, `panel_session_cached`). */
  cachedPanelVsRawRps: 1.5,
  p99VsRaw: 1.5,
  rssVsFastify: 1.0,
  startupMs: 800,
};

/** Operations measured against the hand-written panels' throughput targets (the cached ones against their own). */
export const PANEL_OPS = new Set(['panel', 'panel_session', 'panel_cached', 'panel_session_cached']);
const CACHED_PANEL_OPS = new Set(['panel_cached', 'panel_session_cached']);

/**
 * A baseline's row of `op`, unless it is a panel row of a baseline whose panel differs from the
 * service's (`notComparable`): then there is nothing to compare with.
 */
function baselineRow(ms: Measurement[], server: string, op: Operation, conc: number, notComparable: ReadonlySet<string>) {
  if (op.document && notComparable.has(server)) return undefined;
  return find(ms, { phase: 'full', server, op: op.name, connections: conc });
}

export function targetChecks(
  ms: Measurement[],
  ops: Operation[],
  concurrency: number[],
  notComparable: ReadonlySet<string> = new Set(),
): TargetCheck[] {
  const out: TargetCheck[] = [];
  // the panel of REST calls has no baseline: it is compared with the GraphQL panel (operationTables)
  for (const op of ops.filter((o) => !o.calls)) {
    const panel = PANEL_OPS.has(op.name);
    const minVsFastify = panel ? TARGETS.panelVsFastifyRps : TARGETS.vsFastifyRps;
    const minVsRaw = CACHED_PANEL_OPS.has(op.name) ? TARGETS.cachedPanelVsRawRps : panel ? TARGETS.panelVsRawRps : TARGETS.vsRawRps;
    const unjudged = op.document ? ['fastify-prisma', 'raw-pg'].filter((k) => notComparable.has(k)) : [];
    for (const conc of concurrency) {
      const fastify = baselineRow(ms, 'fastify-prisma', op, conc, notComparable);
      const raw = baselineRow(ms, 'raw-pg', op, conc, notComparable);
      for (const protocol of ['rest', 'graphql'] as const) {
        const s = find(ms, { phase: 'full', server: 'service', protocol, op: op.name, connections: conc });
        if (!s) continue;
        const c = {
          op: op.name,
          protocol,
          connections: conc,
          vs_fastify_rps: ratio(s.rps, fastify?.rps),
          vs_raw_rps: ratio(s.rps, raw?.rps),
          p99_vs_fastify: ratio(s.p99_ms, fastify?.p99_ms),
          p99_vs_raw: ratio(s.p99_ms, raw?.p99_ms),
          rss_vs_fastify: ratio(s.peak_rss_mb, fastify?.peak_rss_mb),
        };
        // a ratio without its baseline row (NaN) is a miss: a target nobody measured is not met;
        // against a baseline whose panel is not the service's, nothing is judged
        const fz = !unjudged.includes('fastify-prisma');
        const rw = !unjudged.includes('raw-pg');
        const missed = [
          ...(!fz || c.vs_fastify_rps >= minVsFastify ? [] : ['req/s vs fastify']),
          ...(!rw || c.vs_raw_rps >= minVsRaw ? [] : ['req/s vs raw']),
          ...(!rw || c.p99_vs_raw <= TARGETS.p99VsRaw ? [] : ['p99 vs raw']),
          ...(!fz || c.rss_vs_fastify <= TARGETS.rssVsFastify ? [] : ['RSS']),
        ];
        const pass = missed.length === 0 && unjudged.length < 2;
        out.push({ ...c, ...(unjudged.length ? { not_comparable: unjudged } : {}), missed, pass });
      }
    }
  }
  return out;
}

export function operationTables(
  ms: Measurement[],
  ops: Operation[],
  concurrency: number[],
  unavailable: Unavailable[],
  notComparable: ReadonlySet<string> = new Set(),
) {
  const lines: string[] = [];
  const order = [
    { server: 'service', protocol: 'rest' as const },
    { server: 'service', protocol: 'graphql' as const },
    { server: 'fastify-prisma', protocol: 'rest' as const },
    { server: 'raw-pg', protocol: 'rest' as const },
  ];
  const rounds = Math.max(...ms.filter((m) => m.phase === 'full').map((m) => m.runs ?? 1));
  if (rounds > 1)
    lines.push('', `(each row: the median of its ${rounds} runs, one a round; "runs: min–max" their lowest and highest req/s)`);
  for (const op of ops) {
    lines.push('', `== ${op.title} ==`);
    lines.push(
      `  ${pad('server', 16)} ${lpad('conc', 4)} ${lpad('req/s', 8)} ${lpad('runs: min–max', 15)} ${lpad('p50 ms', 8)} ${lpad('p99 ms', 8)} ${lpad('RSS MB', 7)} ${lpad('KB/req', 7)} ${lpad('CPU app', 8)} ${lpad('CPU db', 7)} ${lpad('non-2xx', 8)}`,
    );
    for (const who of order) {
      for (const c of concurrency) {
        const m = find(ms, { phase: 'full', ...who, op: op.name, connections: c });
        if (!m) continue;
        lines.push(
          `  ${pad(label(m), 16)} ${lpad(String(c), 4)} ${lpad(f0(m.rps), 8)} ${lpad(spread(m), 15)} ${lpad(f1(m.p50_ms), 8)} ${lpad(f1(m.p99_ms), 8)} ${lpad(f0(m.peak_rss_mb), 7)} ${lpad(f1(m.alloc_kb_per_request ?? NaN), 7)} ${lpad(f2(cpuOf(m, 'app')), 8)} ${lpad(f2(cpuOf(m, 'db')), 7)} ${lpad(String(m.non2xx), 8)}`,
        );
      }
    }
    for (const u of unavailable.filter((u) => u.op === op.name && u.phase === 'full')) {
      lines.push(`  ${pad(label(u), 16)} unavailable: ${u.reason}`);
    }
    if (op.document) {
      for (const server of ['fastify-prisma', 'raw-pg'].filter((k) => notComparable.has(k))) {
        lines.push(`  ${pad(server, 16)} NOT COMPARABLE: its panel differs from the service's (panel check); no ratio`);
      }
    }
    if (op.calls) {
      // the same panel as one GraphQL document, over the same random customers
      for (const c of concurrency) {
        const s = find(ms, { phase: 'full', server: 'service', protocol: 'rest', op: op.name, connections: c });
        const doc = find(ms, { phase: 'full', server: 'service', protocol: 'graphql', op: 'panel', connections: c });
        if (!s) continue;
        lines.push(
          `  ${pad(label(s), 16)} c=${String(c).padEnd(3)} panels/s vs the GraphQL panel (panel) ${lpad(x(ratio(s.rps, doc?.rps)), 6)};` +
            ` p50 ${lpad(x(ratio(s.p50_ms, doc?.p50_ms)), 6)}, p99 ${lpad(x(ratio(s.p99_ms, doc?.p99_ms)), 6)}`,
        );
      }
      continue;
    }
    for (const protocol of ['rest', 'graphql'] as const) {
      for (const c of concurrency) {
        const s = find(ms, { phase: 'full', server: 'service', protocol, op: op.name, connections: c });
        if (!s) continue;
        const fz = baselineRow(ms, 'fastify-prisma', op, c, notComparable);
        const raw = baselineRow(ms, 'raw-pg', op, c, notComparable);
        lines.push(
          `  ${pad(label(s), 16)} c=${String(c).padEnd(3)} req/s vs fastify+prisma ${lpad(x(ratio(s.rps, fz?.rps)), 6)}, vs raw pg ${lpad(x(ratio(s.rps, raw?.rps)), 6)};` +
            ` p99 vs fastify+prisma ${lpad(x(ratio(s.p99_ms, fz?.p99_ms)), 6)}, vs raw pg ${lpad(x(ratio(s.p99_ms, raw?.p99_ms)), 6)};` +
            ` CPU/request vs raw pg: app ${lpad(x(ratio(cpuOf(s, 'app'), raw && cpuOf(raw, 'app'))), 6)}, db ${lpad(x(ratio(cpuOf(s, 'db'), raw && cpuOf(raw, 'db'))), 6)}`,
        );
      }
    }
  }
  return lines.join('\n');
}

export function targetTable(checks: TargetCheck[], startup: Record<string, number>, rounds = 1) {
  const t = TARGETS;
  const lines = [
    '',
    `== Targets${rounds > 1 ? `, judged on each row's median of ${rounds} runs` : ''}: req/s ≥ ${t.vsRawRps}× raw pg and ≥ ${t.vsFastifyRps}× fastify+prisma (the panel ≥ ${t.panelVsRawRps}× and ≥ ${t.panelVsFastifyRps}×);` +
      ` p99 ≤ ${t.p99VsRaw}× raw pg's; peak RSS ≤ ${t.rssVsFastify}× fastify+prisma's; start-up ≤ ${t.startupMs} ms on PostgreSQL ==`,
    `  ${pad('operation', 20)} ${pad('protocol', 8)} ${lpad('conc', 4)} ${lpad('vs fastify', 10)} ${lpad('vs raw', 8)} ${lpad('p99/fastify', 11)} ${lpad('p99/raw', 8)} ${lpad('RSS/fastify', 11)}  result`,
  ];
  // a panel row whose two baselines both answered another panel is judged on nothing
  const unjudged = (c: TargetCheck) => (c.not_comparable?.length ?? 0) === 2;
  for (const c of checks) {
    const result = unjudged(c) ? 'NOT JUDGED' : c.pass ? 'met' : `MISSED: ${c.missed.join(', ')}`;
    lines.push(
      `  ${pad(c.op, 20)} ${pad(c.protocol, 8)} ${lpad(String(c.connections), 4)} ${lpad(x(c.vs_fastify_rps), 10)} ${lpad(x(c.vs_raw_rps), 8)} ${lpad(x(c.p99_vs_fastify), 11)} ${lpad(x(c.p99_vs_raw), 8)} ${lpad(x(c.rss_vs_fastify), 11)}  ${result}` +
        `${c.not_comparable ? ` (not judged against ${c.not_comparable.join(', ')}: panel differs)` : ''}`,
    );
  }
  const judged = checks.filter((c) => !unjudged(c));
  const met = judged.filter((c) => c.pass).length;
  const skipped = checks.length - judged.length;
  lines.push(
    `  ${met} of ${judged.length} met${skipped ? ` (${skipped} not judged: their baselines' panels differ from the service's)` : ''}`,
  );
  const service = startup['service (PostgreSQL)'];
  if (service !== undefined) lines.push(`  start-up on PostgreSQL: ${f0(service)} ms, ${service <= t.startupMs ? 'met' : 'MISSED'}`);
  return lines.join('\n');
}

export interface GrowthRow {
  op: string;
  server: string;
  small_ms: number;
  full_ms: number;
  growth: number;
}

export function growthRows(ms: Measurement[], ops: Operation[]): GrowthRow[] {
  const rows: GrowthRow[] = [];
  for (const op of ops) {
    for (const server of ['service', 'raw-pg']) {
      const small = find(ms, { phase: 'small', server, protocol: 'rest', op: op.name, connections: 1 });
      const full = find(ms, { phase: 'full', server, protocol: 'rest', op: op.name, connections: 1 });
      if (small && full)
        rows.push({ op: op.name, server, small_ms: small.mean_ms, full_ms: full.mean_ms, growth: full.mean_ms / small.mean_ms });
    }
  }
  return rows;
}

export function growthTable(rows: GrowthRow[], small: string, full: string) {
  const lines = ['', `== Time per request (mean, concurrency 1, REST) as the data grows 10× (${small} → ${full}) ==`];
  lines.push(`  ${pad('operation', 20)} ${pad('server', 16)} ${lpad('small ms', 9)} ${lpad('full ms', 9)} ${lpad('growth', 8)}`);
  for (const r of rows) {
    lines.push(`  ${pad(r.op, 20)} ${pad(r.server, 16)} ${lpad(f1(r.small_ms), 9)} ${lpad(f1(r.full_ms), 9)} ${lpad(x(r.growth), 8)}`);
  }
  return lines.join('\n');
}

export function embeddedTable(ms: Measurement[], ops: Operation[], concurrency: number[], unavailable: Unavailable[]) {
  const lines = ['', '== Embedded database (PGlite, small data set), service REST =='];
  lines.push(
    `  ${pad('operation', 20)} ${lpad('conc', 4)} ${lpad('req/s', 8)} ${lpad('p50 ms', 8)} ${lpad('p99 ms', 8)} ${lpad('RSS MB', 7)} ${lpad('vs PostgreSQL same size (mean)', 31)}`,
  );
  for (const op of ops) {
    for (const c of concurrency) {
      const m = find(ms, { phase: 'embedded', op: op.name, connections: c });
      if (!m) continue;
      const pgSmall = find(ms, { phase: 'small', server: 'service', protocol: 'rest', op: op.name, connections: c });
      lines.push(
        `  ${pad(op.name, 20)} ${lpad(String(c), 4)} ${lpad(f0(m.rps), 8)} ${lpad(f1(m.p50_ms), 8)} ${lpad(f1(m.p99_ms), 8)} ${lpad(f0(m.peak_rss_mb), 7)} ${lpad(pgSmall ? `${x(m.mean_ms / pgSmall.mean_ms)} the time` : '-', 31)}`,
      );
    }
    for (const u of unavailable.filter((u) => u.op === op.name && u.phase === 'embedded'))
      lines.push(`  ${pad(op.name, 20)} unavailable: ${u.reason}`);
  }
  return lines.join('\n');
}

/** The start-of-run check that the hand-written panels answer what the service answers. */
export function panelCheckTable(
  check: {
    customers: string[];
    results: { server: string; customer: string; credential: string; ok: boolean; difference?: string }[];
  } | null,
) {
  if (!check) return '';
  const lines = ['', `== Panel check: the service's LoyaltyPanel against each hand-written panel (${check.customers.join(', ')}) ==`];
  for (const r of check.results) {
    lines.push(`  ${pad(r.server, 16)} ${pad(r.customer, 8)} ${pad(r.credential, 8)} ${r.ok ? 'equal' : `DIFFERS: ${r.difference}`}`);
  }
  return lines.join('\n');
}

export function startupTable(startup: Record<string, number>) {
  const lines = ['', '== Start-up: process spawn to first 200 on GET /v1/rewards =='];
  for (const [k, v] of Object.entries(startup)) lines.push(`  ${pad(k, 34)} ${lpad(f0(v), 7)} ms`);
  return lines.join('\n');
}

/** The small machine-readable summary of a full run (bench/results/summary.json, committed). */
export function summaryOf(
  result: {
    when: string;
    machine: unknown;
    rows: unknown;
    startup_ms: Record<string, number>;
    measurements: Measurement[];
    targets: TargetCheck[];
  },
  source: string,
) {
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    when: result.when,
    source,
    machine: result.machine,
    rows: result.rows,
    startup_ms: result.startup_ms,
    targets: result.targets.map((c) => ({
      ...c,
      vs_fastify_rps: round(c.vs_fastify_rps),
      vs_raw_rps: round(c.vs_raw_rps),
      p99_vs_fastify: round(c.p99_vs_fastify),
      p99_vs_raw: round(c.p99_vs_raw),
      rss_vs_fastify: round(c.rss_vs_fastify),
    })),
    measurements: result.measurements
      .filter((m) => m.phase === 'full')
      .map((m) => ({
        op: m.op,
        server: m.server,
        protocol: m.protocol,
        connections: m.connections,
        rps: Math.round(m.rps),
        ...(m.rps_runs && m.rps_runs.length > 1 ? { rps_runs: m.rps_runs.map(Math.round) } : {}),
        p99_ms: m.p99_ms,
        ...(m.p99_runs_ms && m.p99_runs_ms.length > 1 ? { p99_runs_ms: m.p99_runs_ms } : {}),
        peak_rss_mb: m.peak_rss_mb,
        ...(m.alloc_kb_per_request !== undefined ? { alloc_kb_per_request: m.alloc_kb_per_request } : {}),
      })),
  };
}

export interface CitusRow {
  op: string;
  server: string;
  connections: number;
  single: { rps: number; p50_ms: number; p99_ms: number } | null;
  citus: { rps: number; p50_ms: number; p99_ms: number; non2xx: number } | null;
  /** Citus / single node: below 1 for req/s and above 1 for latency is what the coordinator hop costs. */
  rps_ratio: number | null;
  p50_ratio: number | null;
  p99_ratio: number | null;
}

/** The REST rows of the Citus phase in pairs: each server on single-node PostgreSQL and on Citus. */
function* citusPairs(ms: Measurement[], ops: Operation[], concurrency: number[]) {
  for (const op of ops) {
    for (const server of ['service', 'raw-pg']) {
      for (const c of concurrency) {
        const single = find(ms, { phase: 'citus-single', server, protocol: 'rest', op: op.name, connections: c });
        const citus = find(ms, { phase: 'citus', server, protocol: 'rest', op: op.name, connections: c });
        if (single || citus) yield { op: op.name, server, connections: c, single, citus };
      }
    }
  }
}

/** Per operation, server and concurrency: single-node PostgreSQL against Citus (REST, the same minutes). */
export function citusRows(ms: Measurement[], ops: Operation[], concurrency: number[]): CitusRow[] {
  const r2 = (n: number) => (Number.isFinite(n) ? Math.round(n * 100) / 100 : null);
  return [...citusPairs(ms, ops, concurrency)].map(({ op, server, connections, single, citus }) => ({
    op,
    server,
    connections,
    single: single ? { rps: Math.round(single.rps), p50_ms: single.p50_ms, p99_ms: single.p99_ms } : null,
    citus: citus ? { rps: Math.round(citus.rps), p50_ms: citus.p50_ms, p99_ms: citus.p99_ms, non2xx: citus.non2xx } : null,
    rps_ratio: r2(ratio(citus?.rps, single?.rps)),
    p50_ratio: r2(ratio(citus?.p50_ms, single?.p50_ms)),
    p99_ratio: r2(ratio(citus?.p99_ms, single?.p99_ms)),
  }));
}

/** What failed on Citus: operations no server could be measured on, and rows with non-2xx answers. */
export function citusFailures(ms: Measurement[], unavailable: Unavailable[]) {
  return [
    ...unavailable.filter((u) => u.phase === 'citus').map((u) => ({ op: u.op, server: u.server, error: u.reason })),
    ...ms
      .filter((m) => m.phase === 'citus' && m.non2xx > 0)
      .map((m) => ({
        op: m.op,
        server: m.server,
        error: `c=${m.connections}: ${m.non2xx} non-2xx answers ${JSON.stringify(m.status_codes)}`,
      })),
  ];
}

export function citusTable(ms: Measurement[], ops: Operation[], concurrency: number[], unavailable: Unavailable[], skipped?: string) {
  const lines = ['', '== Citus (coordinator + workers) vs single-node PostgreSQL, REST, measured side by side =='];
  if (skipped) return [...lines, `  SKIPPED: the cluster does not answer (${skipped})`].join('\n');
  lines.push(
    `  ${pad('operation', 20)} ${pad('server', 8)} ${lpad('conc', 4)} ${lpad('PG req/s', 9)} ${lpad('Citus', 7)} ${lpad('ratio', 7)}` +
      ` ${lpad('PG p50', 7)} ${lpad('Citus', 7)} ${lpad('ratio', 7)} ${lpad('PG p99', 7)} ${lpad('Citus', 7)} ${lpad('ratio', 7)}`,
  );
  for (const r of citusRows(ms, ops, concurrency)) {
    const s = r.single;
    const c = r.citus;
    const rx = (n: number | null) => (n === null ? 'n/a' : `${n.toFixed(2)}×`);
    lines.push(
      `  ${pad(r.op, 20)} ${pad(r.server, 8)} ${lpad(String(r.connections), 4)} ${lpad(s ? f0(s.rps) : '-', 9)} ${lpad(c ? f0(c.rps) : 'FAILED', 7)} ${lpad(rx(r.rps_ratio), 7)}` +
        ` ${lpad(s ? f1(s.p50_ms) : '-', 7)} ${lpad(c ? f1(c.p50_ms) : '-', 7)} ${lpad(rx(r.p50_ratio), 7)}` +
        ` ${lpad(s ? f1(s.p99_ms) : '-', 7)} ${lpad(c ? f1(c.p99_ms) : '-', 7)} ${lpad(rx(r.p99_ratio), 7)}`,
    );
  }
  const failures = citusFailures(ms, unavailable);
  if (failures.length) {
    lines.push('  Failed on Citus:');
    for (const f of failures) lines.push(`    ${f.op} (${f.server}): ${f.error}`);
  }
  const other = unavailable.filter((u) => u.phase === 'citus-single');
  for (const u of other) lines.push(`  unavailable on single-node PostgreSQL: ${u.op} (${u.server}): ${u.reason}`);
  return lines.join('\n');
}

interface SizeRow {
  table: string;
  rows: number;
  bytes: number;
  bytes_per_row: number;
}

/** Rows and bytes (indexes included) per table on both databases, and where the shards are. */
export function storageTable(
  single: SizeRow[] | undefined,
  citus: SizeRow[] | undefined,
  layout: { shard_count: number; nodes: { node: string; placements: number; bytes: number }[]; merchant_node: string } | undefined,
) {
  if (!citus) return '';
  const mb = (b: number) => (b / 2 ** 20).toFixed(1);
  const lines = ['', '== Storage of the benchmark data (total relation size: heap, indexes, TOAST) =='];
  lines.push(
    `  ${pad('table', 20)} ${lpad('rows PG', 9)} ${lpad('MB PG', 8)} ${lpad('B/row PG', 9)} ${lpad('rows Citus', 10)} ${lpad('MB Citus', 9)} ${lpad('B/row Citus', 11)}`,
  );
  for (const c of citus) {
    const s = single?.find((r) => r.table === c.table);
    lines.push(
      `  ${pad(c.table, 20)} ${lpad(s ? String(s.rows) : '-', 9)} ${lpad(s ? mb(s.bytes) : '-', 8)} ${lpad(s ? String(s.bytes_per_row) : '-', 9)}` +
        ` ${lpad(String(c.rows), 10)} ${lpad(mb(c.bytes), 9)} ${lpad(String(c.bytes_per_row), 11)}`,
    );
  }
  if (layout) {
    lines.push(`  Citus: ${layout.shard_count} shards per distributed table; the merchant's shard group is on ${layout.merchant_node}`);
    for (const n of layout.nodes)
      lines.push(`    ${pad(n.node, 18)} ${lpad(String(n.placements), 5)} shard placements, ${lpad(mb(n.bytes), 8)} MB`);
  }
  return lines.join('\n');
}

/**
 * CPU milliseconds per request by process: the server under test, the single node's backends,
 * the coordinator's and the workers' (every other cluster's backends of the database).
 */
export function citusCpuTable(
  ms: Measurement[],
  ops: Operation[],
  concurrency: number[],
  clusters: { single: string; coordinator: string },
) {
  const lines = ['', '== CPU ms per request (server process; database backends): single node vs Citus coordinator + workers =='];
  lines.push(
    `  ${pad('operation', 20)} ${pad('server', 8)} ${lpad('conc', 4)} ${lpad('PG: app', 8)} ${lpad('PG db', 7)} ${lpad('Citus: app', 10)} ${lpad('coord', 7)} ${lpad('workers', 8)} ${lpad('db total', 9)}`,
  );
  const cpu = (m: Measurement | undefined, pick: (k: string) => boolean) =>
    m?.cpu_ms_per_request
      ? Object.entries(m.cpu_ms_per_request)
          .filter(([k]) => pick(k))
          .reduce((a, [, v]) => a + v, 0)
      : NaN;
  for (const { op, server, connections, single: s, citus: z } of citusPairs(ms, ops, concurrency)) {
    const coord = cpu(z, (k) => k === clusters.coordinator);
    const workers = cpu(z, (k) => k !== 'app' && k !== BACKGROUND_KEY && k !== clusters.coordinator);
    lines.push(
      `  ${pad(op, 20)} ${pad(server, 8)} ${lpad(String(connections), 4)} ${lpad(f1(cpu(s, (k) => k === 'app')), 8)} ${lpad(f1(cpu(s, (k) => k === clusters.single)), 7)}` +
        ` ${lpad(f1(cpu(z, (k) => k === 'app')), 10)} ${lpad(f1(coord), 7)} ${lpad(f1(workers), 8)} ${lpad(f1(coord + workers), 9)}`,
    );
  }
  return lines.join('\n');
}
