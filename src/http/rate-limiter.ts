// Rate limits per API key and per merchant, and per customer session (fixed windows), in memory by default and in
// Redis when REDIS_URL is set, so several instances share one budget. Every limited
// answer carries the IETF httpapi draft headers: RateLimit-Policy and RateLimit, and a
// refused one 429 rate_limited with Retry-After.
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

export interface RateLimitOptions {
  perKey: number;
  perMerchant: number;
  /** Per customer session (a shopper's browser); none: not limited. */
  perSession?: number;
  windowSeconds: number;
  redisUrl?: string;
}

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
  retryAfter?: number;
}

/** What a request is counted as: a merchant's credential (its key and its merchant), or a shopper's session. */
export type CredentialKind = 'key' | 'session';

interface Limit {
  name: 'key' | 'merchant' | 'session';
  quota: number;
  limiter: RateLimiterAbstract;
}

function connectRedis(url: string | undefined) {
  const redis = url ? new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 2000 }) : undefined;
  redis?.on('error', () => {}); // reported through the limiters' insurance fallback
  return redis;
}

export function createRateLimiter(opts: RateLimitOptions) {
  const anyLimit = opts.perKey > 0 || opts.perMerchant > 0 || (opts.perSession ?? 0) > 0;
  const redis = anyLimit ? connectRedis(opts.redisUrl) : undefined;

  const make = (name: Limit['name'], quota: number): Limit | null => {
    if (quota <= 0) return null;
    const base = { points: quota, duration: opts.windowSeconds, keyPrefix: `loyalty:rl:${name}` };
    // when Redis is unreachable, fall back to this process's memory rather than failing requests
    const limiter = redis
      ? new RateLimiterRedis({ ...base, storeClient: redis, insuranceLimiter: new RateLimiterMemory(base) })
      : new RateLimiterMemory(base);
    return { name, quota, limiter };
  };
  const present = (...list: (Limit | null)[]) => list.filter((l): l is Limit => l !== null);
  // a session counts against its own budget only: shoppers must not spend the merchant's backend budget
  const byKind: Record<CredentialKind, Limit[]> = {
    key: present(make('key', opts.perKey), make('merchant', opts.perMerchant)),
    session: present(make('session', opts.perSession ?? 0)),
  };
  const policyOf = (limits: Limit[]) => limits.map((l) => `"${l.name}";q=${l.quota};w=${opts.windowSeconds}`).join(', ');
  const policies = { key: policyOf(byKind.key), session: policyOf(byKind.session) };

  return {
    enabled: anyLimit,
    /** Counts one request of `credential` (an API key's or session's id) and its merchant. */
    async consume(credential: string, merchantId: string, kind: CredentialKind = 'key'): Promise<RateDecision> {
      const limits = byKind[kind];
      if (limits.length === 0) return { allowed: true, headers: {} };
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
      const headers = {
        'RateLimit-Policy': policy,
        RateLimit: `"${tightest.limit.name}";r=${Math.max(0, tightest.res.remainingPoints)};t=${reset}`,
      };
      const refused = results.filter((r) => !r.ok);
      if (refused.length === 0) return { allowed: true, headers };
      const retryAfter = Math.max(...refused.map((r) => Math.ceil(r.res.msBeforeNext / 1000)), 1);
      return { allowed: false, retryAfter, headers: { ...headers, 'Retry-After': String(retryAfter) } };
    },
    async close() {
      redis?.disconnect();
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

export interface LockoutOptions {
  /** Failures per client within the window that lock it out until the window has passed; 0: no lockout. */
  maxFailures: number;
  windowSeconds: number;
  redisUrl?: string;
}

/**
 * Failed attempts counted per client (failed admin sign-ins): after `maxFailures` within the
 * window, the client is locked out until the window has passed, whatever it sends.
 */
export function createLockout(opts: LockoutOptions) {
  const redis = opts.maxFailures > 0 ? connectRedis(opts.redisUrl) : undefined;
  const base = { points: opts.maxFailures, duration: opts.windowSeconds, blockDuration: opts.windowSeconds, keyPrefix: 'loyalty:lockout' };
  const limiter =
    opts.maxFailures <= 0
      ? undefined
      : redis
        ? new RateLimiterRedis({ ...base, storeClient: redis, insuranceLimiter: new RateLimiterMemory(base) })
        : new RateLimiterMemory(base);
  return {
    /** Seconds the client must still wait, or 0. */
    async lockedFor(client: string): Promise<number> {
      const state = await limiter?.get(client);
      return state && state.consumedPoints >= opts.maxFailures ? Math.max(1, Math.ceil(state.msBeforeNext / 1000)) : 0;
    },
    async failed(client: string) {
      await limiter?.consume(client).catch((res: unknown) => {
        if (!(res instanceof RateLimiterRes)) throw res;
      });
    },
    async close() {
      redis?.disconnect();
    },
  };
}

export type Lockout = ReturnType<typeof createLockout>;
