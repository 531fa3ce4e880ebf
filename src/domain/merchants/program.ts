// What a customer's standing is read against: the merchant's time zone (its calendar), its points
// expiry setting and its tier ladder. Every panel needs them and they change rarely, so each
// instance caches them per merchant, as it caches API keys' principals: whatever changes a tier
// or the settings announces it in its own transaction on the database's notification channel,
// and every instance forgets that merchant (this one before the change returns). While the
// notification feed is down nothing is cached; without a feed (no database URL) every read asks.
// A notice arrives a moment after its change commits: a storefront answer being kept, which must
// be what its revisions say, asks for the program at those revisions (ProgramCache.get).
import type { Db } from '../../db/client.js';
import { type NotificationFeed, notifiedCache, PROGRAM_CHANNEL } from '../../db/notifications.js';
import { columnsOf, rowsOf } from '../../db/sql.js';
import { Prisma, type Tier } from '../../generated/prisma/client.js';
import { DEFAULT_TIMEZONE } from '../shared/calendar.js';
import type { MaybePromise } from '../shared/maybe-promise.js';
import { programRevisionColumn } from '../storefront/revisions.js';

export interface Program {
  /** The IANA zone of the merchant's calendar. */
  zone: string;
  /** The merchant's currency (ISO 4217). */
  currency: string;
  /** Points lapse after this many local days without activity (null: never). */
  pointsExpiryDays: number | null;
  /** The active tiers, lowest position first: the ladder a customer is judged on. */
  tiers: Tier[];
  /** The revisions of the merchant's row and its program it was read at (storefront/revisions.ts). */
  revision: string;
}

/** A merchant's currency unless set (the column's default). */
const DEFAULT_CURRENCY = 'USD';

const tierColumns = columnsOf(Prisma.TierScalarFieldEnum, 't');

/** The merchant's program as stored now, in one statement. */
export async function readProgram(db: Db, merchantId: string): Promise<Program> {
  const rows = await rowsOf<Tier & { zone: string; currency: string; expiryDays: number | null; program_revision: string }>(
    db,
    Prisma.sql`
    SELECT m.timezone AS zone, m.currency, m.points_expiry_days AS "expiryDays", ${programRevisionColumn(merchantId)},
           ${tierColumns}
      FROM merchants m LEFT JOIN tiers t ON t.merchant_id = m.id AND t.is_active
     WHERE m.id = ${merchantId}::uuid
     ORDER BY t.position, t.id`,
  );
  const first = rows[0];
  return {
    zone: first?.zone ?? DEFAULT_TIMEZONE,
    currency: first?.currency ?? DEFAULT_CURRENCY,
    pointsExpiryDays: first?.expiryDays ?? null,
    // a NULL list reads as none, as Prisma reads it
    tiers: rows
      .filter((r) => r.id !== null)
      .map(({ zone: _, currency: __, expiryDays: ___, program_revision: ____, ...tier }) => ({ ...tier, benefits: tier.benefits ?? [] })),
    revision: first?.program_revision ?? '',
  };
}

/**
 * Announces a change to the merchant's program, inside the transaction that makes it (put it in
 * the same `$transaction`): every instance hears it at commit. Call `programChangedHere` once
 * the transaction has committed.
 */
export const announceProgramChange = (db: Db, merchantId: string) => db.$executeRaw`SELECT pg_notify(${PROGRAM_CHANNEL}, ${merchantId})`;

const changedHere = new Set<(merchantId: string) => void>();

/** This instance forgets the merchant's program now, before its notification comes back. */
export function programChangedHere(merchantId: string) {
  for (const forget of changedHere) forget(merchantId);
}

export interface ProgramCache {
  /**
   * The merchant's program: at once when cached. `revision`: the revisions the caller read
   * (storefront/revisions.ts); a program cached at others is read again, so an answer kept under
   * them is computed from the program they name, even before this instance hears of the change.
   */
  get(merchantId: string, revision?: string): MaybePromise<Program>;
  close(): void;
}

const MAX_MERCHANTS = 10_000;

export function programCache(db: Db, feed?: NotificationFeed): ProgramCache {
  const programs = notifiedCache<Program>(() => feed?.live ?? false, MAX_MERCHANTS);
  const unsubscribe = feed?.subscribe(
    { onMessage: (merchantId) => programs.forget(merchantId), onReset: () => programs.clear() },
    PROGRAM_CHANNEL,
  );
  const forget = (merchantId: string) => programs.forget(merchantId);
  changedHere.add(forget);
  return {
    get(merchantId, revision) {
      const load = () => readProgram(db, merchantId);
      const cached = programs.get(merchantId, load);
      if (revision === undefined || cached instanceof Promise || cached.revision === revision) return cached;
      programs.forget(merchantId);
      return programs.get(merchantId, load);
    },
    close() {
      changedHere.delete(forget);
      unsubscribe?.();
    },
  };
}
