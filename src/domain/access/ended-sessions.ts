// Customer sessions ended before their tokens expire (signed out, or renewed into a new token).
// Verifying a token needs no row (customer-sessions.ts); refusing an ended one must not need
// one per request either. So each instance keeps, per merchant, the ids (jti) of its ended
// sessions that have not yet expired, loaded with the first session of that merchant it sees;
// ending a session writes its row and, in the same transaction, NOTIFYs every instance
// ('session:<merchant>:<jti>:<expiry ms>' on the auth channel), which adds it to the list it
// holds. The instance that ends a session adds it before answering. While the notification
// feed (the app's, db/notifications.ts) is down nothing is kept, and every check reads the
// database; without a feed likewise. A row is useless once its token has expired: rows are purged.
// A row whose id is the customer's own id ends every session of that customer (erasure):
// a token is refused when its own id or its customer's is listed.
import type { Db } from '../../db/client.js';
import { AUTH_CHANNEL, type NotificationFeed } from '../../db/notifications.js';
import type { Prisma } from '../../generated/prisma/client.js';
import type { MaybePromise } from '../shared/maybe-promise.js';
import { LONGEST_CUSTOMER_SESSION_SECONDS } from './session-limits.js';

const PAYLOAD = 'session:';
/** Merchants whose lists an instance keeps at most; the longest kept goes first. */
const MAX_MERCHANTS = 10_000;
/** Expired ids are swept from a list when it has grown past twice its size at the last sweep. */
const FIRST_SWEEP_AT = 1000;
const PURGE_EVERY_MS = 3_600_000;
const FIRST_PURGE_AFTER_MS = 60_000;

export interface EndedSession {
  merchantId: string;
  sessionId: string;
  customerId: string;
  expiresAt: Date;
}

const payloadOf = (merchantId: string, id: string, expiresAt: Date) => `${PAYLOAD}${merchantId}:${id}:${expiresAt.getTime()}`;

type Ended = (merchantId: string, sessionId: string, expiresAtMs: number) => void;
const endedHere = new Set<Ended>();
/** This instance's lists learn of an ending at once, before its notification comes back. */
const endHere: Ended = (merchantId, id, expiresAtMs) => {
  for (const ended of endedHere) ended(merchantId, id, expiresAtMs);
};

/**
 * Ends a session: false when it had ended already (by another request, or a renewal racing
 * this one), which changes nothing. Every instance refuses its token from the next request.
 */
export async function endSession(db: Db, session: EndedSession): Promise<boolean> {
  const { merchantId, sessionId, customerId, expiresAt } = session;
  const [written] = await db.$transaction([
    db.endedCustomerSession.createMany({ data: [{ merchantId, id: sessionId, customerId, expiresAt }], skipDuplicates: true }),
    // sent at commit, to the instances listening (a trigger could not: on Citus this table is distributed)
    db.$executeRaw`SELECT pg_notify(${AUTH_CHANNEL}, ${payloadOf(merchantId, sessionId, expiresAt)})`,
  ]);
  if (written.count === 0) return false;
  endHere(merchantId, sessionId, expiresAt.getTime());
  return true;
}

/**
 * Ends every session of the customer, inside the transaction `tx` (its notification is sent at
 * commit). Returns what to call once it has committed: this instance refuses them from then on.
 */
export async function endEverySessionIn(tx: Prisma.TransactionClient, merchantId: string, customerId: string, now = new Date()) {
  const expiresAt = new Date(now.getTime() + LONGEST_CUSTOMER_SESSION_SECONDS * 1000);
  await tx.endedCustomerSession.createMany({ data: [{ merchantId, id: customerId, customerId, expiresAt }], skipDuplicates: true });
  await tx.$executeRaw`SELECT pg_notify(${AUTH_CHANNEL}, ${payloadOf(merchantId, customerId, expiresAt)})`;
  return () => endHere(merchantId, customerId, expiresAt.getTime());
}

/** The merchant's ended sessions whose tokens have not expired: id to expiry (ms). */
async function loadEnded(db: Db, merchantId: string): Promise<Map<string, number>> {
  const rows = await db.endedCustomerSession.findMany({
    where: { merchantId, expiresAt: { gt: new Date() } },
    select: { id: true, expiresAt: true },
  });
  return new Map(rows.map((r) => [r.id, r.expiresAt.getTime()]));
}

/** Deletes the rows of sessions whose tokens have expired (each instance runs it hourly). */
export function purgeEndedSessions(db: Db, now = new Date()) {
  return db.endedCustomerSession.deleteMany({ where: { expiresAt: { lt: now } } });
}

export interface EndedSessions {
  /** Whether the merchant's session has ended: at once when the merchant's list is held. */
  has(merchantId: string, sessionId: string): MaybePromise<boolean>;
  close(): void;
}

interface List {
  ids: Map<string, number>;
  sweepAt: number;
}

export function endedSessions(db: Db, feed?: NotificationFeed, onPurgeError: (err: unknown) => void = () => {}): EndedSessions {
  const lists = new Map<string, List>();
  /** Loads under way, with what was ended meanwhile (applied when the load ends). */
  const loads = new Map<string, { meanwhile: Map<string, number>; spoilt: boolean; promise: Promise<Map<string, number>> }>();
  const live = () => feed?.live ?? false;

  const add: Ended = (merchantId, sessionId, expiresAtMs) => {
    loads.get(merchantId)?.meanwhile.set(sessionId, expiresAtMs);
    const list = lists.get(merchantId);
    if (!list) return;
    list.ids.set(sessionId, expiresAtMs);
    if (list.ids.size >= list.sweepAt) {
      const now = Date.now();
      for (const [id, expiry] of list.ids) if (expiry <= now) list.ids.delete(id);
      list.sweepAt = Math.max(FIRST_SWEEP_AT, list.ids.size * 2);
    }
  };
  const reset = () => {
    lists.clear();
    for (const load of loads.values()) load.spoilt = true;
  };
  const unsubscribe = feed?.subscribe({
    onMessage: (payload) => {
      if (!payload.startsWith(PAYLOAD)) return;
      const [merchantId, sessionId, expiry] = payload.slice(PAYLOAD.length).split(':');
      if (merchantId && sessionId && expiry) add(merchantId, sessionId, Number(expiry));
    },
    onReset: reset,
  });
  endedHere.add(add);

  /** The merchant's list from the database, kept while the feed is live; one load per merchant at a time. */
  const load = (merchantId: string): Promise<Map<string, number>> => {
    const under = loads.get(merchantId);
    if (under) return under.promise;
    const meanwhile = new Map<string, number>();
    const loading = { meanwhile, spoilt: false, promise: Promise.resolve(meanwhile) };
    loading.promise = loadEnded(db, merchantId)
      .then((ids) => {
        for (const [id, expiry] of meanwhile) ids.set(id, expiry);
        if (live() && !loading.spoilt) {
          if (lists.size >= MAX_MERCHANTS) lists.delete(lists.keys().next().value!);
          lists.set(merchantId, { ids, sweepAt: Math.max(FIRST_SWEEP_AT, ids.size * 2) });
        }
        return ids;
      })
      .finally(() => loads.delete(merchantId));
    loads.set(merchantId, loading);
    return loading.promise;
  };

  const purge = () => void purgeEndedSessions(db).catch(onPurgeError);
  const first = setTimeout(purge, FIRST_PURGE_AFTER_MS).unref();
  const timer = setInterval(purge, PURGE_EVERY_MS).unref();

  return {
    has(merchantId, sessionId) {
      const list = live() ? lists.get(merchantId) : undefined;
      if (list) return list.ids.has(sessionId);
      return load(merchantId).then((ids) => ids.has(sessionId));
    },
    close() {
      clearTimeout(first);
      clearInterval(timer);
      endedHere.delete(add);
      unsubscribe?.();
    },
  };
}
