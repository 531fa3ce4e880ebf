// What a customer's standing and a cart's estimate are read against: the merchant's time zone (its
// calendar), its currency, its points expiry setting, its tier ladder, its earning rules and its
// boosters. Every panel and estimate needs them and they change rarely, so each instance caches
// them per merchant, as it caches API keys' principals: whatever changes a tier, a rule, a booster
// or the settings announces it in its own transaction on the database's notification channel
// (program-changes.ts), and every instance forgets that merchant (this one before the change
// returns). While the notification feed is down nothing is cached; without a feed (no database
// URL) every read asks.
// A notice arrives a moment after its change commits: a storefront answer being kept, which must
// be what its revisions say, asks for the program at those revisions (ProgramCache.get).
import type { Db } from '../../db/client.js';
import { type NotificationFeed, notifiedCache, PROGRAM_CHANNEL } from '../../db/notifications.js';
import { columnsOf, rowsOf } from '../../db/sql.js';
import { Prisma, type Tier } from '../../generated/prisma/client.js';
import { unendedBoostersSql } from '../earning/booster-campaigns.js';
import type { EarningProgramRule } from '../earning/calculator.js';
import { type BoosterRead, boostersJsonSql, rulesJsonSql } from '../earning/earning-program.js';
import { DEFAULT_TIMEZONE } from '../shared/calendar.js';
import type { MaybePromise } from '../shared/maybe-promise.js';
import { programRevisionColumn } from '../storefront/revisions.js';
import { onProgramChangedHere } from './program-changes.js';

export interface Program {
  /** The IANA zone of the merchant's calendar. */
  zone: string;
  /** The merchant's currency (ISO 4217). */
  currency: string;
  /** Points lapse after this many local days without activity (null: never). */
  pointsExpiryDays: number | null;
  /** The active tiers, lowest position first: the ladder a customer is judged on. */
  tiers: Tier[];
  /** The active earning rules of every campaign type, oldest first. */
  rules: EarningProgramRule[];
  /** The active boosters of every campaign type not ended when read: the calculator applies each in its window. */
  boosters: BoosterRead[];
  /** The revisions of the merchant's row and its program it was read at (storefront/revisions.ts). */
  revision: string;
}

interface ProgramRow {
  zone: string;
  currency: string;
  expiryDays: number | null;
  program_revision: string;
  rules: EarningProgramRule[] | null;
  boosters: BoosterRead[] | null;
}

/** A merchant's currency unless set (the column's default). */
const DEFAULT_CURRENCY = 'USD';

const tierColumns = columnsOf(Prisma.TierScalarFieldEnum, 't');

/** The merchant's program as stored now, in one statement. */
export async function readProgram(db: Db, merchantId: string): Promise<Program> {
  // a row per tier; the rules and boosters on the first only
  const first = Prisma.sql`row_number() OVER (ORDER BY t.position, t.id) = 1`;
  const rows = await rowsOf<Tier & ProgramRow>(
    db,
    Prisma.sql`
    SELECT m.timezone AS zone, m.currency, m.points_expiry_days AS "expiryDays", ${programRevisionColumn(merchantId)},
           CASE WHEN ${first} THEN (${rulesJsonSql(Prisma.sql`earning_rules`, Prisma.sql`r.merchant_id = ${merchantId}::uuid AND r.is_active`)}) END AS rules,
           CASE WHEN ${first} THEN (${boostersJsonSql(
             Prisma.sql`booster_campaigns`,
             Prisma.sql`b.merchant_id = ${merchantId}::uuid AND ${unendedBoostersSql(new Date())}`,
           )}) END AS boosters,
           ${tierColumns}
      FROM merchants m LEFT JOIN tiers t ON t.merchant_id = m.id AND t.is_active
     WHERE m.id = ${merchantId}::uuid
     ORDER BY t.position, t.id`,
  );
  const head = rows[0];
  return {
    zone: head?.zone ?? DEFAULT_TIMEZONE,
    currency: head?.currency ?? DEFAULT_CURRENCY,
    pointsExpiryDays: head?.expiryDays ?? null,
    // a NULL list reads as none, as Prisma reads it
    tiers: rows
      .filter((r) => r.id !== null)
      .map(({ zone: _, currency: __, expiryDays: ___, program_revision: ____, rules: _____, boosters: ______, ...tier }) => ({
        ...tier,
        benefits: tier.benefits ?? [],
      })),
    rules: head?.rules ?? [],
    boosters: head?.boosters ?? [],
    revision: head?.program_revision ?? '',
  };
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
  const stopHearing = onProgramChangedHere(forget);
  return {
    get(merchantId, revision) {
      const load = () => readProgram(db, merchantId);
      const cached = programs.get(merchantId, load);
      if (revision === undefined || cached instanceof Promise || cached.revision === revision) return cached;
      programs.forget(merchantId);
      return programs.get(merchantId, load);
    },
    close() {
      stopHearing();
      unsubscribe?.();
    },
  };
}
