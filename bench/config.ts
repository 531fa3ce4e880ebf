// Benchmark settings: data sizes, run lengths and command-line flags. Not part of the service.
import path from 'node:path';

export const repoRoot = path.resolve(import.meta.dirname, '..');
export const benchDir = import.meta.dirname;
export const resultsDir = path.join(benchDir, 'results');

export interface Size {
  customers: number;
  transactions: number;
  /** Rows of the one customer (platform id `c1`) whose history is paged deep. */
  heavyRows: number;
  rewards: number;
  earningRules: number;
  tiers: number;
}

export interface Settings {
  quick: boolean;
  full: Size;
  /** 1/10 of `full`: the first PostgreSQL phase (growth) and the embedded database. */
  small: Size;
  /** Seconds of warm-up (discarded) and of measurement per run. */
  warmup: number;
  duration: number;
  /** Shorter runs for the growth and embedded phases (latency at concurrency 1 is stable fast). */
  shortDuration: number;
  /**
   * Rounds of the main (and Citus) phase: every row is measured this many times, a round of the
   * whole matrix after another, and reported as the median of its runs.
   */
  repeat: number;
  concurrency: number[];
  ops: string[] | null;
  skipEmbedded: boolean;
  skipGrowth: boolean;
  profile: boolean;
  profileOp: string | null;
  /** Profile the service over GraphQL (POST /graphql) instead of REST; the baseline stays REST. */
  profileGraphql: boolean;
  /** The <loyalty-panel>'s first render in Chromium (bench/panel.ts): measured runs per view, and whether to run nothing else. */
  panel: { skip: boolean; only: boolean; runs: number; warmup: number };
  serviceEnv: Record<string, string>;
  databaseUrl: string | null;
  adminUrl: string;
  /** Also load the data into a Citus database and measure service and raw `pg` there (null: no). */
  citus: { adminUrl: string; workers: { host: string; port: number }[] } | null;
}

const sizeOf = (customers: number, transactions: number): Size => ({
  customers,
  transactions,
  heavyRows: 5_000,
  rewards: 200,
  earningRules: 50,
  tiers: 5,
});

function flagValue(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  if (i >= 0) return argv[i + 1];
  const eq = argv.find((a) => a.startsWith(`${name}=`));
  return eq?.slice(name.length + 1);
}

function rounds(n: number) {
  if (!Number.isInteger(n) || n < 1) throw new Error(`--repeat takes a whole number of runs, 1 or more (got ${n})`);
  return n;
}

export function parseSettings(argv = process.argv.slice(2)): Settings {
  const quick = argv.includes('--quick');
  const full = quick ? sizeOf(10_000, 100_000) : sizeOf(100_000, 1_000_000);
  const small = sizeOf(full.customers / 10, full.transactions / 10);
  const num = (name: string, fallback: number) => {
    const v = flagValue(argv, name);
    return v === undefined ? fallback : Number(v);
  };
  const list = (name: string) =>
    flagValue(argv, name)
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean) ?? null;
  return {
    quick,
    full,
    small,
    // 2 s in both modes: the first row at a new concurrency carried a transient of more than 1 s
    // for whichever server came first
    warmup: num('--warmup', 2),
    // a 5 s row at 64 moves by ±25% between quiet runs: the full run measures three of them a
    // row (15 s against the 7 s it had in one run; three 7 s runs would take it past 35 minutes)
    duration: num('--duration', 5),
    repeat: rounds(num('--repeat', quick ? 1 : 3)),
    shortDuration: num('--short-duration', quick ? 3 : 4),
    concurrency: list('--concurrency')?.map(Number) ?? [1, 64],
    ops: list('--ops'),
    skipEmbedded: argv.includes('--skip-embedded'),
    skipGrowth: argv.includes('--skip-growth'),
    profile: !argv.includes('--no-profile'),
    profileOp: flagValue(argv, '--profile-op') ?? null,
    profileGraphql: argv.includes('--profile-graphql'),
    panel: {
      skip: argv.includes('--skip-panel'),
      only: argv.includes('--panel-only'),
      runs: num('--panel-runs', quick ? 15 : 30),
      warmup: 2,
    },
    serviceEnv: Object.fromEntries((list('--service-env') ?? []).map((kv) => [kv.split('=')[0]!, kv.split('=').slice(1).join('=')])),
    databaseUrl: process.env.BENCH_DATABASE_URL || null,
    adminUrl: process.env.BENCH_ADMIN_URL || 'postgresql://postgres@127.0.0.1:5432/postgres',
    citus: argv.includes('--citus')
      ? {
          // scripts/citus.sh's cluster: coordinator 5441, workers 5442 and 5443
          adminUrl: process.env.BENCH_CITUS_URL || 'postgresql://postgres@127.0.0.1:5441/postgres',
          workers: (process.env.BENCH_CITUS_WORKERS || '127.0.0.1:5442,127.0.0.1:5443').split(',').map((hp) => {
            const [host, port] = hp.trim().split(':');
            return { host: host!, port: Number(port ?? 5432) };
          }),
        }
      : null,
  };
}

export const usage = `npm run bench [-- options]
  --quick               10k customers / 100k transactions, one run a row
  --ops a,b             only these operations (rewards, balance, transactions_p1, transactions_deep,
                        customers, estimate, panel, panel_session, panel_cached, panel_session_cached,
                        panel_rest, create_transaction)
  --concurrency 1,64    connection counts
  --duration N          measured seconds per run (default 5); --warmup N (default 2), each run's own
  --repeat N            runs of each row of the main (and Citus) phase, as N rounds of the whole
                        matrix; a row reports their median and spread (default 3; quick 1)
  --skip-growth         no small-size PostgreSQL phase
  --skip-embedded       no embedded-database (PGlite) phase
  --no-profile          no CPU profile of the slowest operation
  --profile-op NAME     profile this operation (REST, concurrency 64) instead of the slowest
  --profile-graphql     profile the service's GraphQL twin of it (the baseline stays REST)
  --panel-only          only the <loyalty-panel> row: its first render in Chromium, guest and signed
                        in, on the embedded database (no PostgreSQL needed)
  --panel-runs N        measured page loads per panel view (default 30; quick 15)
  --skip-panel          no <loyalty-panel> row
  --service-env K=V,..  extra environment for the service (e.g. LOG_LEVEL=warn), for experiments
  --citus               also on a Citus cluster: the same data in database loyalty_bench there
                        (recreated on every node), service and raw pg on the coordinator beside
                        the same two on single-node PostgreSQL, every operation over REST; skipped
                        with a message when the cluster does not answer
env: BENCH_DATABASE_URL (default: database loyalty_bench on the local server, recreated each run)
     BENCH_CITUS_URL (default postgresql://postgres@127.0.0.1:5441/postgres: the coordinator),
     BENCH_CITUS_WORKERS (default 127.0.0.1:5442,127.0.0.1:5443: as the coordinator reaches them)`;
