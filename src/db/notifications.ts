// One connection of its own per app that LISTENs on the auth and program channels, shared by the
// caches other processes must be able to invalidate (PostgreSQL NOTIFY reaches every instance on
// the database; the embedded server routes it too): API keys, storefront settings, ended
// sessions, the merchants' programs (time zone, tier ladder). `live` is
// true only while notifications are known to arrive: a cache must not serve while it is false,
// since a notification sent meanwhile would be lost. The feed sends itself a NOTIFY when it
// connects and then every half minute: only the first coming back makes it live, and one that
// does not come back within its time takes it down, so a connection that LISTENs but never hears
// (behind a pooler that cannot LISTEN) is found out. A lost feed is retried with backoff; its
// going (and each failed first attempt) is logged as an error, its coming back as a warning, and
// /readyz and loyalty_notifications_up report it.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../observability/logger.js';
import { watchNotifications } from '../observability/metrics.js';
import { applicationNames } from './application-names.js';

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
  /** Passes each payload on `channel` (default the feed's first) and each reset to `handlers` until the returned function is called. */
  subscribe(handlers: FeedHandlers, channel?: string): () => void;
  close(): Promise<void>;
}

interface FeedHandlers {
  /** A notification's payload. */
  onMessage(payload: string): void;
  /** The feed went down (or came up): anything learnt before may be stale. */
  onReset(): void;
}

const RETRY_MS = [100, 500, 1000, 2000, 5000];
/** How often a live feed checks that its own notification still comes back, and how long that may take. */
const HEARTBEAT = { everyMs: 30_000, withinMs: 10_000 };
/** A heartbeat's payload starts so: no subscriber ever sees one. */
const HEARTBEAT_PAYLOAD = 'heartbeat:';

export function listenTo(url: string, channels: readonly string[], logger: Logger, heartbeat = HEARTBEAT): NotificationFeed {
  // its own heartbeats go on the first channel
  const [channel] = channels as [string, ...string[]];
  const subscribers = new Set<FeedHandlers & { channel: string }>();
  const reset = () => {
    for (const s of subscribers) s.onReset();
  };
  let state: 'connecting' | 'up' | 'down' = 'connecting';
  let downSince = 0;
  let closed = false;
  let client: pg.Client | undefined;
  let attempt = 0;
  let timer: NodeJS.Timeout | undefined;
  /** The heartbeat awaited, and what to do when it comes back. */
  let awaited: { payload: string; heard: () => void } | undefined;

  const down = (reason: string) => {
    const wasLive = state === 'up';
    if (wasLive) reset();
    if (state !== 'down' && !closed) {
      downSince = Date.now();
      logger.error(
        { channel, err: reason },
        'database notifications are down: API keys, storefront settings and ended sessions are read from the database on every request until they are back',
      );
    }
    state = 'down';
    awaited = undefined;
    clearTimeout(timer);
    client?.removeAllListeners();
    client?.on('error', () => {});
    void client?.end().catch(() => {});
    client = undefined;
    if (!closed) timer = setTimeout(connect, RETRY_MS[Math.min(attempt++, RETRY_MS.length - 1)]).unref();
  };

  /** Sends a heartbeat on `on`; `heard` runs when it comes back, and the feed goes down if it does not in time. */
  const beat = (on: pg.Client, heard: () => void) => {
    const payload = HEARTBEAT_PAYLOAD + randomUUID();
    awaited = { payload, heard };
    on.query('SELECT pg_notify($1, $2)', [channel, payload]).catch((err: Error) => client === on && down(err.message));
    timer = setTimeout(() => {
      // answers already received are read first: a busy event loop is not a silent feed
      setImmediate(() => {
        if (client === on && awaited?.payload === payload) down(`its own notification did not come back within ${heartbeat.withinMs} ms`);
      });
    }, heartbeat.withinMs).unref();
  };

  /** A heartbeat every `heartbeat.everyMs` while `on` is the feed's connection. */
  const heartbeats = (on: pg.Client) => {
    timer = setTimeout(() => beat(on, () => heartbeats(on)), heartbeat.everyMs).unref();
  };

  const live = (on: pg.Client) => () => {
    attempt = 0;
    if (state === 'down') logger.warn({ channel, down_ms: Date.now() - downSince }, 'database notifications are back: caches on again');
    state = 'up';
    reset();
    heartbeats(on);
  };

  const connect = async () => {
    const next = new pg.Client({
      connectionString: url,
      application_name: applicationNames.notifications,
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
    });
    client = next;
    const lost = (reason: string) => client === next && down(reason);
    next.on('error', (err) => lost(err.message));
    next.on('end', () => lost('connection closed'));
    next.on('notification', (message) => {
      if (!channels.includes(message.channel)) return;
      const payload = message.payload ?? '';
      if (!payload.startsWith(HEARTBEAT_PAYLOAD)) {
        for (const s of subscribers) if (s.channel === message.channel) s.onMessage(payload);
      } else if (payload === awaited?.payload) {
        const { heard } = awaited;
        awaited = undefined;
        clearTimeout(timer);
        heard();
      }
    });
    try {
      await next.connect();
      for (const c of channels) await next.query(`LISTEN "${c}"`);
      if (closed || client !== next) return void next.end().catch(() => {});
      // live once its own first notification has come back
      beat(next, live(next));
    } catch (err) {
      lost((err as Error).message);
    }
  };

  void connect();
  const feed = {
    get live() {
      return state === 'up';
    },
    subscribe(handlers: FeedHandlers, on = channel) {
      const subscriber = { ...handlers, channel: on };
      subscribers.add(subscriber);
      return () => void subscribers.delete(subscriber);
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      state = 'down';
      unwatch();
      const last = client;
      client = undefined;
      await last?.end().catch(() => {});
    },
  };
  const unwatch = watchNotifications({
    get up() {
      return state === 'up';
    },
  });
  return feed;
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
