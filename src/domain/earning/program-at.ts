// The program in force at a past instant, read from its history (program_versions, written by a
// trigger on each table: migration late_orders), so an order or action recorded late is judged
// as it would have been when it happened. Each record counts as it stood then (its latest
// revision from before the instant): an edit, a deactivation or a reactivation since changes
// nothing. A record created since has no state from then and counts as it stands. Its dates (a
// booster's window, a rule's starts_at and ends_at) are judged at the instant by their readers,
// as for any record. The history starts at the migration (each record as it then stood, from
// its created_at) or at a record's creation. Each source is a FROM item shaped like its table,
// so the statements that read the program as it stands read it at an instant unchanged.
import { Prisma } from '../../generated/prisma/client.js';

type ProgramTable = 'earning_rules' | 'booster_campaigns' | 'tiers';

/** `table`'s rows as they stood at `at` (null: as they stand now), as a FROM item (alias it). */
export function programTable(table: ProgramTable, merchantId: string, at: Date | null): Prisma.Sql {
  if (!at) return Prisma.raw(table);
  const instant = at.toISOString();
  // per record: its latest revision from before `at`, else (created since) its latest
  return Prisma.sql`(
    SELECT (jsonb_populate_record(NULL::${Prisma.raw(table)}, r.record)).*
      FROM (SELECT DISTINCT ON (record_id) record
              FROM program_versions
             WHERE merchant_id = ${merchantId}::uuid AND kind = ${table}
             ORDER BY record_id, valid_from > ${instant}::timestamptz, valid_from DESC, written_at DESC) r)`;
}

/** The tier a customer held at `at`, by its membership history: a statement of one row, or none (none then). */
export function tierHeldAt(merchantId: string, customerId: string, at: Date): Prisma.Sql {
  const instant = at.toISOString();
  return Prisma.sql`SELECT m.tier_id FROM tier_memberships m
     WHERE m.merchant_id = ${merchantId}::uuid AND m.customer_id = ${customerId}::uuid
       AND m.started_at <= ${instant}::timestamptz AND (m.ended_at IS NULL OR m.ended_at > ${instant}::timestamptz)
     ORDER BY m.started_at DESC, m.id DESC LIMIT 1`;
}
