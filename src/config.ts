// Configuration is read once, from the environment, and validated: a bad value stops
// start-up with a message naming the variable.

import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { LONGEST_CUSTOMER_SESSION_SECONDS } from './domain/access/session-limits.js';
import { webOrigin } from './domain/shared/origins.js';

const portNumber = z.coerce.number().int().min(0).max(65535);
const cron = z.string().regex(/^\S+( \S+){4,5}$/, 'must be a cron expression like "0 3 * * *"');
const booleanFlag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/** Which proxies in front are believed about the client's address (X-Forwarded-For): see http/client-address.ts. */
export type TrustProxy = { hops: number } | { addresses: string[] };
/** Express's names for address ranges, usable in TRUST_PROXY. */
const TRUST_PROXY_RANGES = new Map([
  ['loopback', ['127.0.0.1/8', '::1/128']],
  ['linklocal', ['169.254.0.0/16', 'fe80::/10']],
  ['uniquelocal', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7']],
]);
const isAddressOrRange = (entry: string) => {
  const [address = '', bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (!family || rest.length) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
};
const trustProxy = z
  .string()
  .default('')
  .transform((value, ctx): TrustProxy => {
    const v = value.trim();
    if (v === '' || v === 'false') return { hops: 0 };
    if (/^\d+$/.test(v)) return { hops: Number(v) };
    if (v === 'true') {
      ctx.addIssue({
        code: 'custom',
        message:
          'true would believe any X-Forwarded-For, which every client can write: give the number of proxies in front (e.g. 1) or their addresses',
      });
      return z.NEVER;
    }
    const entries = v
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean);
    const bad = entries.filter((e) => !TRUST_PROXY_RANGES.has(e) && !isAddressOrRange(e));
    if (bad.length) {
      ctx.addIssue({
        code: 'custom',
        message: `must be a number of proxies, or addresses and CIDR ranges (or loopback, linklocal, uniquelocal), comma-separated; not ${bad.join(', ')}`,
      });
      return z.NEVER;
    }
    return { addresses: entries.flatMap((e) => TRUST_PROXY_RANGES.get(e) ?? [e]) };
  });

const schema = z.object({
  PORT: portNumber.default(4000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  DATA_DIR: z.string().min(1).default('.data'),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(500).default(10),
  /** Hot reads as named prepared statements; false behind a pooler that cannot keep them. */
  DB_PREPARED_STATEMENTS: booleanFlag.default(true),
  /** The hot reads of one turn of the event loop share connections, pipelined. */
  DB_PIPELINE: booleanFlag.default(true),
  /** On a Citus coordinator: each merchant's public requests run on the worker that holds it (docs/scaling-out.md). */
  CITUS_WORKER_ENTRY: booleanFlag.default(true),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// URL')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  /** Requests per window per API key, and per merchant across its keys; 0 turns a limit off. */
  RATE_LIMIT_PER_KEY: z.coerce.number().int().min(0).default(1200),
  RATE_LIMIT_PER_MERCHANT: z.coerce.number().int().min(0).default(6000),
  /** Requests per window per customer session (a shopper's browser); 0 turns it off. */
  RATE_LIMIT_PER_SESSION: z.coerce.number().int().min(0).default(300),
  /** Requests per window per client address and shop with a publishable storefront key; 0 turns it off. */
  RATE_LIMIT_PER_GUEST: z.coerce.number().int().min(0).default(300),
  /** Customer session tokens: the lifetime when the mint names none, and the longest it may ask for. */
  CUSTOMER_SESSION_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3600),
  CUSTOMER_SESSION_MAX_TTL_SECONDS: z.coerce.number().int().min(60).max(LONGEST_CUSTOMER_SESSION_SECONDS).default(86_400),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  /** Failed admin sign-ins from one client address, or with one token prefix, that lock it out for the lockout window (0: no lockout). */
  ADMIN_LOGIN_MAX_FAILURES: z.coerce.number().int().min(0).default(10),
  ADMIN_LOGIN_LOCKOUT_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
  /** Admin app sessions end after this long without a request, and this long after sign-in. */
  ADMIN_SESSION_IDLE_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(7 * 86_400)
    .default(8 * 3600),
  ADMIN_SESSION_MAX_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(30 * 86_400)
    .default(24 * 3600),
  /** The proxies in front, believed about the client's address: a count, or addresses/CIDRs; none by default. */
  TRUST_PROXY: trustProxy,
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  /** The bytes of storefront answers each process keeps to serve again (http/plugins/response-cache.ts); 0: none. */
  RESPONSE_CACHE_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(32 * 1_048_576),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).default(30_000),
  /** Origins (scheme://host[:port], comma-separated; domain/shared/origins.ts) whose pages may call /graphql and /v1 from a browser; none by default. */
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
    )
    .pipe(z.array(webOrigin)),
  /** GET /metrics (Prometheus) answers only `Authorization: Bearer <METRICS_TOKEN>`; unset: no /metrics. */
  METRICS_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  /** Run the job workers (webhook delivery, daily expiry) in the server process; `loyalty worker` runs only them. */
  WORKERS: booleanFlag.default(true),
  /** How often an idle worker asks the queue for jobs. */
  JOBS_POLL_SECONDS: z.coerce.number().min(0.5).max(60).default(2),
  /** Cron (UTC) of the daily points expiry and its `points.expiring` reminders. */
  EXPIRY_CRON: cron.default('0 3 * * *'),
  /** Cron (UTC) of the calendar rules (birthdays, anniversaries): hourly, so each zone's day is paid early in it. */
  CALENDAR_CRON: cron.default('5 * * * *'),
  /** Cron (UTC) of the approval of pending order points past their return window: hourly, so they are credited within the hour it ends. */
  PENDING_POINTS_CRON: cron.default('5 * * * *'),
  /** `points.expiring` is sent this many days before a balance expires (0: no reminder). */
  POINTS_EXPIRING_DAYS: z.coerce.number().int().min(0).max(365).default(7),
  /** Webhook URLs may be http and resolve to loopback/private addresses (tests, local development only). */
  WEBHOOK_ALLOW_PRIVATE_URLS: booleanFlag.default(false),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** A failed delivery is retried after about this long, then twice as long each time (with jitter)... */
  WEBHOOK_RETRY_DELAY_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  /** ...until this long after its first attempt; an endpoint failing this long is disabled. */
  WEBHOOK_RETRY_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(30 * 86_400)
    .default(3 * 86_400),
  /** Dispatched events (and their deliveries) are kept this long, then forgotten; the events feed promises at least 30 days. */
  WEBHOOK_EVENT_RETENTION_DAYS: z.coerce.number().int().min(30).max(3650).default(30),
  /** How often the dispatcher turns new events into deliveries. */
  WEBHOOK_DISPATCH_INTERVAL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  /** Default: on, except in production. */
  GRAPHQL_INTROSPECTION: booleanFlag.optional(),
  GRAPHIQL: booleanFlag.optional(),
});

export type Config = Omit<z.infer<typeof schema>, 'GRAPHQL_INTROSPECTION' | 'GRAPHIQL'> & {
  GRAPHQL_INTROSPECTION: boolean;
  GRAPHIQL: boolean;
};

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const production = parsed.data.NODE_ENV === 'production';
  return {
    ...parsed.data,
    DATA_DIR: path.resolve(parsed.data.DATA_DIR),
    GRAPHQL_INTROSPECTION: parsed.data.GRAPHQL_INTROSPECTION ?? !production,
    GRAPHIQL: parsed.data.GRAPHIQL ?? !production,
  };
}
