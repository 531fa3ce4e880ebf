// Prometheus metrics of the process, in one registry (served at GET /metrics behind
// METRICS_TOKEN): requests by face, route or operation, status and duration; database pool
// connections; whether Redis answers; rate-limit refusals; idempotent replays; ledger credits and
// debits. Counts per merchant are business data, so nothing here is labelled by merchant.
import type pg from 'pg';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'loyalty_' });

export const requests = new Counter({
  name: 'loyalty_http_requests_total',
  help: "Requests answered, by face (a public request's kind: rest, graphql, document; or admin), route or operation, method and status",
  labelNames: ['face', 'route', 'method', 'status'] as const,
  registers: [registry],
});

export const requestDuration = new Histogram({
  name: 'loyalty_http_request_duration_seconds',
  help: 'Time from receiving a request to answering it',
  labelNames: ['face', 'route', 'method'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

export const rateLimited = new Counter({
  name: 'loyalty_rate_limited_total',
  help: 'Requests refused with 429 rate_limited, by face',
  labelNames: ['face'] as const,
  registers: [registry],
});

export const idempotencyKeyRows = new Gauge({
  name: 'loyalty_idempotency_keys',
  help: 'Stored Idempotency-Key answers, counted after each hourly purge of expired keys',
  registers: [registry],
});

export const idempotentReplays = new Counter({
  name: 'loyalty_idempotent_replays_total',
  help: 'Requests answered by replaying the first answer of their Idempotency-Key',
  registers: [registry],
});

const ledgerEntries = new Counter({
  name: 'loyalty_ledger_entries_total',
  help: 'Points transactions written, by type (credit, debit)',
  labelNames: ['type'] as const,
  registers: [registry],
});

const ledgerPoints = new Counter({
  name: 'loyalty_ledger_points_total',
  help: 'Points moved by the ledger, by type (credit, debit)',
  labelNames: ['type'] as const,
  registers: [registry],
});

const pools = new Set<pg.Pool>();

/** Reports this pool's connections until it ends. */
export function watchPool(pool: pg.Pool) {
  pools.add(pool);
}

new Gauge({
  name: 'loyalty_db_pool_connections',
  help: 'Database connections of the process, by state: in_use, idle, waiting (requests queued for one)',
  labelNames: ['state'] as const,
  registers: [registry],
  collect() {
    let total = 0;
    let idle = 0;
    let waiting = 0;
    for (const pool of pools) {
      if (pool.ended) {
        pools.delete(pool);
        continue;
      }
      total += pool.totalCount;
      idle += pool.idleCount;
      waiting += pool.waitingCount;
    }
    this.set({ state: 'in_use' }, total - idle);
    this.set({ state: 'idle' }, idle);
    this.set({ state: 'waiting' }, waiting);
  },
});

/**
 * A gauge of whether every link of one kind is up (1) or not (0), present while at least one is
 * watched: the returned function watches a link until the function it returns is called.
 */
function upGauge(name: string, help: string) {
  const links = new Set<{ readonly up: boolean }>();
  const gauge = new Gauge({
    name,
    help,
    registers: [],
    collect() {
      this.set([...links].every((link) => link.up) ? 1 : 0);
    },
  });
  return (link: { readonly up: boolean }): (() => void) => {
    if (links.size === 0) registry.registerMetric(gauge);
    links.add(link);
    return () => {
      if (links.delete(link) && links.size === 0) registry.removeSingleMetric(name);
    };
  };
}

/** 1 while Redis answers, 0 while the limiters count in memory; absent without REDIS_URL. */
export const watchRedis = upGauge(
  'loyalty_redis_up',
  'Whether Redis (REDIS_URL: the rate-limit and admin lockout counters shared by instances) answers: 1 yes, 0 no (each process counts alone meanwhile)',
);

/** 1 while the database's notifications arrive, 0 while the caches they keep fresh are off. */
export const watchNotifications = upGauge(
  'loyalty_notifications_up',
  'Whether the database notifications that keep the API key, storefront and ended-session caches fresh arrive: 1 yes, 0 no (each request reads the database meanwhile)',
);

/** Records one ledger row. */
export function countLedgerEntry(points: number) {
  const type = points < 0 ? 'debit' : 'credit';
  ledgerEntries.inc({ type });
  ledgerPoints.inc({ type }, Math.abs(points));
}

export const webhookDeliveries = new Counter({
  name: 'loyalty_webhook_deliveries_total',
  help: 'Webhook delivery attempts, by outcome: succeeded, retry (failed, tried again later), rescheduled (failed, tried again when the receiver’s Retry-After says), failed (given up), skipped',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

/** Job counts by queue and state, from the job queue of this process (when it runs workers). */
type JobCounts = () => Promise<{ queue: string; state: string; count: number }[]>;
let jobCounts: JobCounts | undefined;

export function watchJobs(counts: JobCounts | undefined) {
  jobCounts = counts;
}

new Gauge({
  name: 'loyalty_jobs',
  help: 'Jobs in the queue by queue and state: created and retry (waiting), active, failed (kept until archived)',
  labelNames: ['queue', 'state'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    if (!jobCounts) return;
    try {
      for (const { queue, state, count } of await jobCounts()) this.set({ queue, state }, count);
    } catch {
      // the queue is stopping or the database is away: no figures rather than a failed scrape
    }
  },
});
