// Rate limits per API key and per merchant, and per customer session (fixed windows), in memory by default and in
// Redis when REDIS_URL is set, so several instances share one budget. Every limited
// answer carries the IETF httpapi draft headers: RateLimit-Policy and RateLimit, and a
// refused one 429 rate_limited with Retry-After. While Redis is unreachable (redis.ts), each
// limiter counts in this process's memory with the same points and window: a request is never
// refused, nor made to wait, because Redis is away.
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { createLogger, type Logger } from '../observability/logger.js';
import { openRedis, type RedisLink } from './redis.js';

/** Where the counters live: an app's shared Redis connection, or a REDIS_URL to open one of its own. */
interface Store {
  /** The app's connection (the app closes it). */
  redis?: RedisLink;
  /** Without `redis`: open a connection of this limiter's own (closed with it). */
  redisUrl?: string;
  /** Where an own connection logs Redis going away and coming back. */
  logger?: Logger;
}

export interface RateLimitOptions extends Store {
  perKey: number;
  perMerchant: number;
  /** Per customer session (a shopper's browser); none: not limited. */
  perSession?: number;
  /** Per client address and shop, for publishable storefront keys; none: not limited. */
  perGuest?: number;
  windowSeconds: number;
}

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
  retryAfter?: number;
  /** The tightest budget after this request (none: nothing limits the credential). */
  budget?: RateBudget;
}

/** A limit's budget in the current window, as the RateLimit header states it. */
export interface RateBudget {
  policy: string;
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/** What a request is counted as: a merchant's credential (its key and its merchant), a shopper's session, or a guest's address. */
export type CredentialKind = 'key' | 'session' | 'guest';

interface Limit {
  name: 'key' | 'merchant' | 'session' | 'guest';
  quota: number;
  limiter: RateLimiterAbstract;
}

type LimiterOptions = ConstructorParameters<typeof RateLimiterMemory>[0];

/** The store's Redis connection when `used`, and whether closing the limiter closes it. */
function storeOf(store: Store, used: boolean): { link?: RedisLink; owned: boolean } {
  if (!used) return { owned: false };
  if (store.redis) return { link: store.redis, owned: false };
  if (!store.redisUrl) return { owned: false };
  return { link: openRedis(store.redisUrl, store.logger ?? createLogger('warn')), owned: true };
}

/**
 * A limiter on Redis whose insurance is the same limiter in memory: rate-limiter-flexible
 * consults it whenever a Redis command fails, times out or is refused because the connection is
 * not ready (rejectIfRedisNotReady), so the limit still applies, per process.
 */
function limiterOn(link: RedisLink | undefined, opts: LimiterOptions): RateLimiterAbstract {
  if (!link) return new RateLimiterMemory(opts);
  return new RateLimiterRedis({
    ...opts,
    storeClient: link.client,
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory(opts),
  });
}

export function createRateLimiter(opts: RateLimitOptions) {
  const anyLimit = opts.perKey > 0 || opts.perMerchant > 0 || (opts.perSession ?? 0) > 0 || (opts.perGuest ?? 0) > 0;
  const { link, owned } = storeOf(opts, anyLimit);

  const make = (name: Limit['name'], quota: number): Limit | null => {
    if (quota <= 0) return null;
    const limiter = limiterOn(link, { points: quota, duration: opts.windowSeconds, keyPrefix: `loyalty:rl:${name}` });
    return { name, quota, limiter };
  };
  const present = (...list: (Limit | null)[]) => list.filter((l): l is Limit => l !== null);
  // a session or a guest counts against its own budget only: shoppers and visitors must not spend
  // the merchant's backend budget
  const byKind: Record<CredentialKind, Limit[]> = {
    key: present(make('key', opts.perKey), make('merchant', opts.perMerchant)),
    session: present(make('session', opts.perSession ?? 0)),
    guest: present(make('guest', opts.perGuest ?? 0)),
  };
  const policyOf = (limits: Limit[]) => limits.map((l) => `"${l.name}";q=${l.quota};w=${opts.windowSeconds}`).join(', ');
  const policies = { key: policyOf(byKind.key), session: policyOf(byKind.session), guest: policyOf(byKind.guest) };

  return {
    enabled: anyLimit,
    /** Counts one request of `credential` (an API key's or session's id) and its merchant. */
    async consume(credential: string, merchantId: string, kind: CredentialKind = 'key'): Promise<RateDecision> {
      const limits = byKind[kind];
      if (limits.length === 0) return { allowed: true, headers: {} };
      if (link?.connecting) await link.connecting;
      const policy = policies[kind];
      const results = await Promise.all(
        limits.map(async (l) => {
          try {
            return { limit: l, res: await l.limiter.consume(l.name === 'merchant' ? merchantId : credential), ok: true };
          } catch (res) {
            if (res instanceof RateLimiterRes) return { limit: l, res, ok: false };
            throw res;
          }
        }),
      );
      // report the tightest remaining budget
      const tightest = results.reduce((a, b) => (b.res.remainingPoints < a.res.remainingPoints ? b : a));
      const reset = Math.ceil(tightest.res.msBeforeNext / 1000);
      const budget = {
        policy: tightest.limit.name,
        limit: tightest.limit.quota,
        remaining: Math.max(0, tightest.res.remainingPoints),
        resetSeconds: reset,
      };
      const headers = {
        'RateLimit-Policy': policy,
        RateLimit: `"${budget.policy}";r=${budget.remaining};t=${reset}`,
      };
      const refused = results.filter((r) => !r.ok);
      if (refused.length === 0) return { allowed: true, headers, budget };
      const retryAfter = Math.max(...refused.map((r) => Math.ceil(r.res.msBeforeNext / 1000)), 1);
      return { allowed: false, retryAfter, budget, headers: { ...headers, 'Retry-After': String(retryAfter) } };
    },
    async close() {
      if (owned) await link?.close();
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

export interface LockoutOptions extends Store {
  /** Failures per client within the window that lock it out until the window has passed; 0: no lockout. */
  maxFailures: number;
  windowSeconds: number;
}

/**
 * Failed attempts (failed admin sign-ins) counted per key: each attempt names the keys it counts
 * against (its client address, the token it tried), and after `maxFailures` within the window on
 * any of them the attempt is locked out until that key's window has passed, whatever it sends.
 */
export function createLockout(opts: LockoutOptions) {
  const { link, owned } = storeOf(opts, opts.maxFailures > 0);
  const limiter =
    opts.maxFailures > 0
      ? limiterOn(link, {
          points: opts.maxFailures,
          duration: opts.windowSeconds,
          blockDuration: opts.windowSeconds,
          keyPrefix: 'loyalty:lockout',
        })
      : undefined;
  const waitOf = (state: RateLimiterRes | null) =>
    state && state.consumedPoints >= opts.maxFailures ? Math.max(1, Math.ceil(state.msBeforeNext / 1000)) : 0;
  return {
    /** Seconds the longest-locked of `keys` must still wait, or 0. */
    async lockedFor(keys: string[]): Promise<number> {
      if (!limiter) return 0;
      if (link?.connecting) await link.connecting;
      const states = await Promise.all(keys.map((key) => limiter.get(key)));
      return Math.max(0, ...states.map(waitOf));
    },
    /** Counts a failure against each of `keys`; the keys this failure locked out. */
    async failed(keys: string[]): Promise<string[]> {
      if (!limiter) return [];
      const locked = await Promise.all(
        keys.map(async (key) => {
          const res = await limiter.consume(key).catch((refused: unknown) => {
            if (refused instanceof RateLimiterRes) return refused;
            throw refused;
          });
          return res.consumedPoints === opts.maxFailures ? key : undefined;
        }),
      );
      return locked.filter((key): key is string => key !== undefined);
    },
    async close() {
      if (owned) await link?.close();
    },
  };
}

export type Lockout = ReturnType<typeof createLockout>;
