// Where the service's time goes: reads a V8 .cpuprofile (node --cpu-prof) and attributes the
// self time of the samples taken during the load run to layers (HTTP, SOFA, GraphQL
// execution, scope checks, Prisma, the pg driver, ...).
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

// first match wins; paths are matched on the frame's URL
const layers: [string, (f: CallFrame) => boolean][] = [
  ['idle (waiting for I/O: SQL round trips, sockets)', (f) => f.functionName === '(idle)'],
  ['garbage collection', (f) => f.functionName === '(garbage collector)'],
  ['V8/native (program)', (f) => f.functionName === '(program)' || f.functionName === '(root)'],
  ['Prisma query compiler (wasm)', (f) => f.url.startsWith('wasm://') || /query_compiler|query-compiler/.test(f.url)],
  ['Prisma client runtime', (f) => /@prisma\/client|generated\/prisma|@prisma\/client-runtime/.test(f.url)],
  ['Prisma pg adapter', (f) => /@prisma\/adapter-pg|@prisma\/driver-adapter-utils/.test(f.url)],
  ['pg driver (protocol, parsing rows)', (f) => /node_modules\/(pg|pg-protocol|pg-types|pg-pool|postgres-\w+)\//.test(f.url)],
  ['SOFA (REST → GraphQL)', (f) => /sofa-api|plugin-sofa|\/fets\//.test(f.url)],
  ['scope checks (Pothos scope-auth)', (f) => /plugin-scope-auth/.test(f.url) || /src\/domain\/access\/scopes/.test(f.url)],
  ['Pothos (other plugins, resolver wrappers)', (f) => /@pothos\//.test(f.url)],
  ['GraphQL Armor (limits)', (f) => /graphql-armor/.test(f.url)],
  ['GraphQL execution (graphql-js, @graphql-tools/executor)', (f) => /node_modules\/(graphql|@graphql-tools\/executor)\//.test(f.url)],
  [
    'Yoga / envelop / whatwg-node (HTTP ⇄ fetch)',
    (f) => /graphql-yoga|@envelop|@whatwg-node|@graphql-tools|urlpattern|@repeaterjs/.test(f.url),
  ],
  [
    'Fastify (router, hooks, validation, serialization)',
    (f) => /node_modules\/(fastify|@fastify|avvio|find-my-way|fast-json-stringify|ajv|fast-uri|light-my-request)\//.test(f.url),
  ],
  ['baseline code (bench/)', (f) => /\/bench\//.test(f.url) && !/node_modules/.test(f.url)],
  ['rate limiter', (f) => /rate-limiter-flexible|src\/http\/rate-limit/.test(f.url)],
  ['logging (pino)', (f) => /node_modules\/(pino|sonic-boom|fast-redact|thread-stream)/.test(f.url) || /src\/http\/logging/.test(f.url)],
  ['zod validation', (f) => /node_modules\/zod\//.test(f.url)],
  ['service code (src/)', (f) => /\/src\//.test(f.url) && !/node_modules/.test(f.url)],
  [
    'Node HTTP / net / streams',
    (f) =>
      /^node:(_?http|net|stream|internal\/(http|streams|stream_base|net|timers|js_stream))/.test(f.url) ||
      /^node:internal\/(http|streams)/.test(f.url),
  ],
  ['Node crypto', (f) => /^node:(crypto|internal\/crypto)/.test(f.url)],
  ['module loading (start-up)', (f) => /^node:internal\/(modules|deps\/cjs-module-lexer)/.test(f.url)],
  ['Node core (other)', (f) => f.url.startsWith('node:')],
  ['tsx loader', (f) => /node_modules\/(tsx|esbuild|get-tsconfig)/.test(f.url)],
  ['other dependencies', (f) => /node_modules/.test(f.url)],
  ['other', () => true],
];

const inclusiveLayers = [
  'Prisma',
  'pg driver',
  'SOFA',
  'GraphQL execution',
  'Yoga',
  'scope checks',
  'Pothos',
  'service code',
  'zod',
  'logging',
  'rate limiter',
  'Fastify',
  'baseline code',
];

export interface ProfileSummary {
  file: string;
  windowMs: number;
  sampledMs: number;
  layers: { layer: string; ms: number; pct: number; usPerRequest?: number }[];
  /** Time with the layer anywhere on the stack (what it calls included). */
  inclusive: { layer: string; ms: number; pct: number; usPerRequest?: number }[];
  top: { fn: string; where: string; layer: string; ms: number; pct: number }[];
  busyPct: number;
  /** Requests answered in the window, and the busy (non-idle) CPU time per request. */
  requests: number | null;
  cpuMsPerRequest: number | null;
}

const special = new Set(['(idle)', '(garbage collector)', '(program)', '(root)']);
const nodeCoreOther = 'Node core (other)';

function frameLayer(f: CallFrame): string {
  return layers.find(([, test]) => test(f))![0];
}

/**
 * The layer a sample's self time belongs to. A native frame (no URL: writev, JSON.parse, ...)
 * and a generic Node core frame (fs, timers, microtask queue) count for the nearest caller
 * that is neither, so e.g. a log line's fs.writeSync counts for logging.
 */
function layerOf(node: ProfileNode, nodes: Map<number, ProfileNode>, parents: Map<number, number>): string {
  let n: ProfileNode | undefined = node;
  let fallback: string | undefined;
  while (n) {
    const f = n.callFrame;
    if (special.has(f.functionName)) return fallback ?? frameLayer(f);
    if (f.url) {
      const layer = frameLayer(f);
      if (layer !== nodeCoreOther) return layer;
      fallback ??= layer;
    }
    const parent = parents.get(n.id);
    n = parent === undefined ? undefined : nodes.get(parent);
  }
  return fallback ?? frameLayer(node.callFrame);
}

function shortUrl(url: string) {
  const i = url.lastIndexOf('node_modules/');
  if (i >= 0) return url.slice(i + 'node_modules/'.length);
  const s = url.indexOf('/src/');
  if (s >= 0) return url.slice(s + 1);
  return url.replace(/^file:\/\//, '');
}

/**
 * Frames of a bundle (the service's dist/server.mjs) named by the file they came from, through
 * the bundle's source map, so that they fall into their layers as unbundled code does.
 */
function unbundle(profile: CpuProfile) {
  const maps = new Map<string, SourceMap | null>();
  const mapOf = (url: string) => {
    if (!maps.has(url)) {
      const file = url.startsWith('file:') ? `${fileURLToPath(url)}.map` : '';
      maps.set(url, file && existsSync(file) ? new SourceMap(JSON.parse(readFileSync(file, 'utf8'))) : null);
    }
    return maps.get(url)!;
  };
  for (const { callFrame: f } of profile.nodes) {
    const map = f.url && mapOf(f.url);
    if (!map || f.lineNumber < 0) continue;
    const entry = map.findEntry(f.lineNumber, f.columnNumber) as { originalSource?: string; originalLine?: number };
    if (!entry.originalSource) continue;
    const source = entry.originalSource.startsWith('file:')
      ? fileURLToPath(entry.originalSource)
      : path.resolve(path.dirname(fileURLToPath(f.url)), entry.originalSource);
    f.url = pathToFileURL(source).href;
    f.lineNumber = entry.originalLine ?? f.lineNumber;
  }
}

/** Self time per layer for the samples between `fromUs` and `toUs` (the whole profile if outside it). */
export function summariseProfile(file: string, fromUs?: number, toUs?: number, requests?: number): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  unbundle(profile);
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parents = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parents.set(c, n.id);
  let t = profile.startTime;
  const inWindow = fromUs !== undefined && toUs !== undefined && fromUs >= profile.startTime && toUs <= profile.endTime + 1e6;
  const lo = inWindow ? fromUs! : profile.startTime;
  const hi = inWindow ? toUs! : profile.endTime;
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (t < lo || t > hi) continue;
    const id = profile.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
  }
  // layers anywhere on each node's stack (memoised from the root down), for inclusive time
  const onStack = new Map<number, Set<string>>();
  const stackOf = (id: number): Set<string> => {
    const known = onStack.get(id);
    if (known) return known;
    const parent = parents.get(id);
    const set = new Set(parent === undefined ? [] : stackOf(parent));
    const f = nodes.get(id)!.callFrame;
    if (f.url) set.add(frameLayer(f));
    onStack.set(id, set);
    return set;
  };
  const inclusive = new Map<string, number>();
  const byLayer = new Map<string, number>();
  const byFn = new Map<string, { fn: string; where: string; layer: string; us: number }>();
  let total = 0;
  for (const [id, us] of selfUs) {
    const node = nodes.get(id)!;
    const f = node.callFrame;
    const layer = layerOf(node, nodes, parents);
    total += us;
    byLayer.set(layer, (byLayer.get(layer) ?? 0) + us);
    for (const l of stackOf(id)) inclusive.set(l, (inclusive.get(l) ?? 0) + us);
    const where = f.url ? `${shortUrl(f.url)}:${f.lineNumber + 1}` : '';
    const k = `${f.functionName}@${where}`;
    const e = byFn.get(k) ?? { fn: f.functionName || '(anonymous)', where, layer, us: 0 };
    e.us += us;
    byFn.set(k, e);
  }
  const pct = (us: number) => Math.round((1000 * us) / Math.max(total, 1)) / 10;
  const idle = [...byLayer].filter(([l]) => l.startsWith('idle')).reduce((s, [, us]) => s + us, 0);
  return {
    file,
    windowMs: Math.round((hi - lo) / 1000),
    sampledMs: Math.round(total / 1000),
    busyPct: pct(total - idle),
    requests: requests ?? null,
    cpuMsPerRequest: requests ? Math.round(((total - idle) / 1000 / requests) * 1000) / 1000 : null,
    layers: [...byLayer]
      .sort((a, b) => b[1] - a[1])
      .map(([layer, us]) => ({
        layer,
        ms: Math.round(us / 1000),
        pct: pct(us),
        ...(requests ? { usPerRequest: Math.round(us / requests) } : {}),
      })),
    inclusive: [...inclusive]
      .filter(([layer]) => inclusiveLayers.some((p) => layer.startsWith(p)))
      .sort((a, b) => b[1] - a[1])
      .map(([layer, us]) => ({
        layer,
        ms: Math.round(us / 1000),
        pct: pct(us),
        ...(requests ? { usPerRequest: Math.round(us / requests) } : {}),
      })),
    top: [...byFn.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, 20)
      .map((e) => ({ fn: e.fn, where: e.where, layer: e.layer, ms: Math.round(e.us / 1000), pct: pct(e.us) })),
  };
}

export function printProfile(p: ProfileSummary, title: string) {
  const perReq = p.cpuMsPerRequest ? `; ${p.requests} requests, ${p.cpuMsPerRequest} ms CPU per request` : '';
  const us = (l: { usPerRequest?: number }) => (l.usPerRequest !== undefined ? `${String(l.usPerRequest).padStart(6)} µs/req` : '');
  const lines = [
    `\nCPU profile: ${title}`,
    `  ${p.sampledMs} ms sampled over a ${p.windowMs} ms window, busy ${p.busyPct}%${perReq} (self time by layer):`,
  ];
  for (const l of p.layers) lines.push(`  ${String(l.pct).padStart(5)}%  ${String(l.ms).padStart(6)} ms ${us(l)}  ${l.layer}`);
  lines.push('  inclusive (the layer anywhere on the stack, what it calls included):');
  for (const l of p.inclusive) lines.push(`  ${String(l.pct).padStart(5)}%  ${String(l.ms).padStart(6)} ms ${us(l)}  ${l.layer}`);
  lines.push('  top functions (self time):');
  for (const f of p.top.slice(0, 12)) lines.push(`  ${String(f.pct).padStart(5)}%  ${f.fn}  ${f.where}  [${f.layer}]`);
  return lines.join('\n');
}

// `npx tsx bench/profile.ts <file.cpuprofile>`: summarise a profile taken by hand
if (process.argv[1]?.endsWith('profile.ts') && process.argv[2]) {
  console.log(printProfile(summariseProfile(process.argv[2]), process.argv[2]));
}
