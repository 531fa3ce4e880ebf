// Where a read's database CPU goes, request by request: the service in this process on a loaded
// database (a Citus coordinator or one PostgreSQL), REST reads fired at it, and from /proc the
// CPU of the database's backends per node (the scheduler's run time: a statement is well under a
// tick), the connections each node opened and closed meanwhile, and every statement the service
// sent to each node (ports as scripts/citus.sh makes the clusters). `--statements` then runs
// each statement of one request alone, many times on a connection of its own to the node that
// got it (its session settings as the service's pool has them), for its own CPU and, on Citus,
// the plan Citus made of it. Not part of the service.
//
//   tsx bench/citus-reads.ts load <url>             migrations, distribute, the quick data set
//   tsx bench/citus-reads.ts run <url> [options]    the measurement
//     --ops balance,transactions_p1,customers (or transactions_deep, customer, rewards, estimate, credit)
//     --requests 400  --concurrency 1,16
//     --statements (each statement alone)  --calls 2000 (its runs)
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createPrisma } from '../src/db/client.js';
import { createApp } from '../src/http/app.js';
import { parseSettings } from './config.js';
import { counts, createTenant, databaseName, loadDataSet, type Tenant, withClient } from './data.js';
import { deepPageOf, type Operation, operations } from './operations.js';

/** The quick data set, as the benchmark's `--quick` loads it. */
const size = parseSettings(['--quick']).full;

/**
 * The requests measured (`__CUST__`: a random customer's number): the benchmark's REST reads
 * (bench/operations.ts), one customer, and a credit of 1 point (a write: the ledger function
 * delegated to the worker).
 */
const READS: Record<string, Operation['rest']> = {
  ...Object.fromEntries(
    operations(deepPageOf(size.heavyRows))
      .filter((o) => o.kind === 'read' && !o.document && !o.calls)
      .map((o) => [o.name, o.rest]),
  ),
  customer: { method: 'GET', path: '/v1/customers/c__CUST__' },
  credit: {
    method: 'POST',
    path: '/v1/customers/transactions?customer_id=c__CUST__',
    body: { points: 1, description: 'citus-reads credit' },
  },
};

const tenantFile = (url: string) => path.join(os.tmpdir(), `citus-reads-${new URL(url).port}-${databaseName(url)}.json`);

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}

async function load(url: string) {
  const started = performance.now();
  const tenant = await createTenant(url);
  await withClient(url, async (client) => {
    await loadDataSet(client, tenant.merchantId, size);
    console.log(await counts(client, tenant.merchantId));
  });
  writeFileSync(tenantFile(url), JSON.stringify({ ...tenant, customers: size.customers }));
  console.log(`loaded in ${((performance.now() - started) / 1000).toFixed(1)} s; tenant in ${tenantFile(url)}`);
}

/** A statement as the service sent it, and the node it went to. */
interface Sent {
  port: number;
  text: string;
  name?: string;
  values: unknown[];
  options?: string;
}

/** Records what every pg client of this process sends while `recording` is set. */
let recording: Sent[] | null = null;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, config: unknown, values?: unknown, cb?: unknown) {
  if (recording && config && typeof config === 'object' && 'text' in config) {
    const c = config as pg.QueryConfig;
    const params = (this as unknown as { connectionParameters: { port: number; options?: string } }).connectionParameters;
    recording.push({ port: params.port, text: c.text, name: c.name, values: c.values ?? [], options: params.options });
  } else if (recording && typeof config === 'string') {
    const params = (this as unknown as { connectionParameters: { port: number; options?: string } }).connectionParameters;
    recording.push({ port: params.port, text: config, values: Array.isArray(values) ? values : [], options: params.options });
  }
  return (query as (...a: unknown[]) => unknown).call(this, config, values, cb);
} as typeof pg.Client.prototype.query;

const cluster = (port: number) => (port === 5432 ? '15/main' : `15/citus${port - 5440}`);

/** The backends of `database` by pid, with their cluster (from the process title, as bench/cpu.ts reads it). */
function backends(database: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const m = /^postgres: ([^:\s]+): \S+ (\S+) /.exec(readFileSync(`/proc/${entry}/cmdline`, 'utf8'));
      if (m && m[2] === database) out.set(Number(entry), m[1]!);
    } catch {}
  }
  return out;
}

/** CPU time a process has run, in ms (the scheduler's own count in ns: ticks are too coarse for one statement). */
function cpuMs(pid: number): number | null {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return null;
  }
}

/** Starts counting the CPU of `database`'s backends per cluster; backends opened meanwhile count whole, closed ones are lost. */
function countCpu(database: string) {
  const before = new Map([...backends(database).keys()].map((pid) => [pid, cpuMs(pid) ?? 0]));
  return () => {
    const used: Record<string, number> = {};
    const now = backends(database);
    for (const [pid, name] of now) used[name] = (used[name] ?? 0) + ((cpuMs(pid) ?? 0) - (before.get(pid) ?? 0));
    return {
      used,
      opened: [...now.keys()].filter((p) => !before.has(p)).length,
      closed: [...before.keys()].filter((p) => !now.has(p)).length,
    };
  };
}

async function run(url: string) {
  const tenant = JSON.parse(readFileSync(tenantFile(url), 'utf8')) as Tenant & { customers: number };
  const ops = flag('--ops', 'balance,transactions_p1,customers').split(',');
  const requests = Number(flag('--requests', '400'));
  const levels = flag('--concurrency', '1,16').split(',').map(Number);
  const database = databaseName(url);
  const env = {
    ...process.env,
    DATABASE_URL: url,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    RATE_LIMIT_PER_KEY: '0',
    RATE_LIMIT_PER_MERCHANT: '0',
    RATE_LIMIT_PER_SESSION: '0',
    RATE_LIMIT_PER_GUEST: '0',
    REDIS_URL: '',
  };
  const config = loadConfig(env);
  const db = createPrisma(url, config.DB_POOL_MAX, { preparedStatements: config.DB_PREPARED_STATEMENTS, pipelined: config.DB_PIPELINE });
  const app = createApp({ db, databaseUrl: url, config });
  const headers = { authorization: `Bearer ${tenant.key}` };
  const get = async (request: Operation['rest'], customer: number) => {
    const p = request.path.replaceAll('__CUST__', String(customer));
    const res = await app.fetch(
      `http://loyalty.test${p}`,
      request.body
        ? {
            method: request.method,
            headers: { ...headers, 'content-type': 'application/json' },
            body: JSON.stringify(request.body).replaceAll('__CUST__', String(customer)),
          }
        : { method: request.method, headers },
    );
    if (res.status >= 300) throw new Error(`${p}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  const pick = () => 2 + Math.floor(Math.random() * (tenant.customers - 1));
  try {
    for (const op of ops) {
      const request = READS[op];
      if (!request) throw new Error(`no read ${op} (${Object.keys(READS).join(', ')})`);
      // warm: the pools' connections open, caches fill
      for (let i = 0; i < 50; i++) await get(request, pick());
      recording = [];
      await get(request, pick());
      const sent = recording;
      recording = null;
      console.log(`\n## ${op}: ${sent.length} statements sent`);
      const width = process.argv.includes('--full') ? undefined : 220;
      for (const s of sent) {
        console.log(`  ${cluster(s.port)} ${s.name ?? '(unnamed)'} [${s.values.length}] ${s.text.replace(/\s+/g, ' ').slice(0, width)}`);
        if (width === undefined) console.log(`    values: ${JSON.stringify(s.values)}`);
      }
      for (const c of levels) {
        const cpu = countCpu(database);
        const app0 = process.cpuUsage();
        let next = 0;
        const started = performance.now();
        await Promise.all(
          Array.from({ length: c }, async () => {
            while (next++ < requests) await get(request, pick());
          }),
        );
        const wall = performance.now() - started;
        const { used, opened, closed } = cpu();
        const appUs = process.cpuUsage(app0);
        const per = Object.entries(used)
          .sort()
          .map(([k, v]) => `${k} ${(v / requests).toFixed(3)}`)
          .join(' · ');
        console.log(
          `  c=${c}: ${requests} in ${(wall / 1000).toFixed(1)} s (${((requests * 1000) / wall).toFixed(0)}/s); CPU ms a request: app ${((appUs.user + appUs.system) / 1000 / requests).toFixed(3)} · ${per}; backends opened ${opened}, closed ${closed}`,
        );
      }
      if (process.argv.includes('--statements')) await statements(sent, url);
    }
  } finally {
    await app.close();
    await db.$disconnect();
  }
}

/** Each statement alone, `--calls` times on a connection of its own: CPU a call (first call apart) and Citus's plan. */
async function statements(sent: Sent[], url: string) {
  const calls = Number(flag('--calls', '2000'));
  for (const s of sent) {
    if (/^(BEGIN|COMMIT|ROLLBACK)/i.test(s.text)) continue;
    const at = new URL(url);
    at.port = String(s.port);
    const client = new pg.Client({ connectionString: at.toString(), options: s.options });
    const t0 = performance.now();
    await client.connect();
    const [{ pid }] = (await client.query('SELECT pg_backend_pid() AS pid')).rows;
    const name = 'measured';
    await client.query({ name, text: s.text, values: s.values });
    // from the backend's start: the connection, then this statement with Citus's caches empty
    const first = cpuMs(pid)!;
    const firstWall = performance.now() - t0;
    // Citus names its planner path at DEBUG2
    const notices: string[] = [];
    client.on('notice', (n) => notices.push(n.message ?? ''));
    const citus = (await client.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`)).rowCount;
    if (citus) {
      await client.query('SET client_min_messages = debug2');
      await client.query({ name, text: s.text, values: s.values });
      await client.query('SET client_min_messages = notice');
    }
    const c1 = cpuMs(pid)!;
    const w1 = performance.now();
    for (let i = 0; i < calls; i++) await client.query({ name, text: s.text, values: s.values });
    const each = (cpuMs(pid)! - c1) / calls;
    const wall = (performance.now() - w1) / calls;
    await client.end();
    const plan = notices
      .filter((n) => /router|fast-path|pushdown|plan|recursiv|local/i.test(n))
      .map((n) => n.slice(0, 120))
      .join(' | ');
    console.log(
      `    ${cluster(s.port)} ${each.toFixed(3)} ms CPU a call (${wall.toFixed(3)} ms wall; a new connection and its first run ${first.toFixed(1)} ms CPU, ${firstWall.toFixed(1)} ms wall with connect): ${s.text.replace(/\s+/g, ' ').slice(0, 100)}${plan ? `\n      plan: ${plan}` : ''}`,
    );
  }
}

const [command, url] = process.argv.slice(2);
if (!url || (command !== 'load' && command !== 'run')) {
  console.error(
    'usage: tsx bench/citus-reads.ts load|run <database url> [--ops a,b] [--requests n] [--concurrency 1,16] [--statements] [--calls n]',
  );
  process.exit(2);
}
await (command === 'load' ? load(url) : run(url));
