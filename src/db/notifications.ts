// A connection of its own that LISTENs on one channel, for caches other processes must be
// able to invalidate (PostgreSQL NOTIFY reaches every instance on the database; the embedded
// server routes it too). `live` is true only while the LISTEN holds: a cache must not serve
// while it is false, since a notification sent meanwhile would be lost. A lost connection is
// retried with backoff.
import pg from 'pg';

/**
 * The channel on which the database announces changes to what authenticates a request: API
 * keys (their hash) and a merchant's storefront settings (migration auth_notifications).
 */
export const AUTH_CHANNEL = 'loyalty_auth';

/** The channel on which a change to a merchant's program (tiers, settings) is announced, by its merchant's id (domain/merchants/program.ts). */
export const PROGRAM_CHANNEL = 'loyalty_program';

export interface NotificationFeed {
  /** True while notifications on the channel are being received. */
  readonly live: boolean;
  close(): Promise<void>;
}

export interface FeedHandlers {
  /** A notification's payload. */
  onMessage(payload: string): void;
  /** The feed went down (or came up): anything learnt before may be stale. */
  onReset(): void;
}

const RETRY_MS = [100, 500, 1000, 2000, 5000];

export function listenTo(url: string, channel: string, handlers: FeedHandlers): NotificationFeed {
  let live = false;
  let closed = false;
  let client: pg.Client | undefined;
  let attempt = 0;
  let timer: NodeJS.Timeout | undefined;

  const down = () => {
    if (live) handlers.onReset();
    live = false;
    client?.removeAllListeners();
    client?.on('error', () => {});
    void client?.end().catch(() => {});
    client = undefined;
    if (!closed) timer = setTimeout(connect, RETRY_MS[Math.min(attempt++, RETRY_MS.length - 1)]).unref();
  };

  const connect = async () => {
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, keepAlive: true });
    client = next;
    const lost = () => client === next && down();
    next.on('error', lost);
    next.on('end', lost);
    next.on('notification', (message) => {
      if (message.channel === channel) handlers.onMessage(message.payload ?? '');
    });
    try {
      await next.connect();
      await next.query(`LISTEN "${channel}"`);
      if (closed || client !== next) return void next.end().catch(() => {});
      attempt = 0;
      live = true;
      handlers.onReset();
    } catch {
      lost();
    }
  };

  void connect();
  return {
    get live() {
      return live;
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      live = false;
      const last = client;
      client = undefined;
      await last?.end().catch(() => {});
    },
  };
}

export interface NotifiedCache<V> {
  /**
   * The cached value for `key` (at once, not a promise: a request's hooks run one after another),
   * or what `load` answers (kept when nothing was forgotten meanwhile).
   */
  get(key: string, load: () => Promise<V>): V | Promise<V>;
  forget(key: string): void;
  /** Forgets every key that passes `test`. */
  forgetWhere(test: (key: string) => boolean): void;
  clear(): void;
}

/**
 * A bounded in-process cache kept honest by a notification feed: nothing is served or kept
 * while `live()` is false, and a value whose load began before its key was forgotten is
 * answered but not kept, so a load racing an invalidation can never undo it. Forgetting one
 * key spoils only the loads of that key: on a busy database other keys' notifications come
 * all the time. The oldest entry makes room when `max` is reached.
 */
export function notifiedCache<V>(live: () => boolean, max: number): NotifiedCache<V> {
  const entries = new Map<string, V>();
  /** The loads under way, each spoilt when its key is forgotten before it ends. */
  const loads = new Set<{ key: string; spoilt: boolean }>();
  const spoil = (test: (key: string) => boolean) => {
    for (const load of loads) if (test(load.key)) load.spoilt = true;
  };
  return {
    get(key, load) {
      if (live() && entries.has(key)) return entries.get(key)!;
      const loading = { key, spoilt: false };
      loads.add(loading);
      return load().then(
        (value) => {
          loads.delete(loading);
          if (live() && !loading.spoilt) {
            if (entries.size >= max) entries.delete(entries.keys().next().value!);
            entries.set(key, value);
          }
          return value;
        },
        (err: unknown) => {
          loads.delete(loading);
          throw err;
        },
      );
    },
    forget(key) {
      spoil((k) => k === key);
      entries.delete(key);
    },
    forgetWhere(test) {
      spoil(test);
      for (const key of entries.keys()) if (test(key)) entries.delete(key);
    },
    clear() {
      spoil(() => true);
      entries.clear();
    },
  };
}
