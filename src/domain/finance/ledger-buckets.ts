// Folding ledger_buckets: the ledger's trigger adds a row per bucket and category of each
// statement (see the migration ledger_buckets), so a busy quarter hour gathers many rows; the
// fold replaces them with their sum. One statement per merchant deletes the rows and inserts the
// sum, so a report reads the same totals before, during and after it, and two folds at once
// cannot count a row twice (the second finds the rows deleted and folds nothing).
import type { Db } from '../../db/client.js';
import { Prisma } from '../../generated/prisma/client.js';

const QUARTER_HOUR = 15 * 60_000;

export interface FoldReport {
  merchants: number;
  /** Rows removed by the fold, less the rows written. */
  rows: number;
}

/**
 * Folds the finished buckets from `since` (default: one day back; null: all history). The one
 * being written is left alone. Rows a fold skips stay correct, only more numerous.
 */
export async function foldLedgerBuckets(
  db: Db,
  { now = new Date(), since }: { now?: Date; since?: Date | null } = {},
): Promise<FoldReport> {
  const before = new Date(now.getTime() - (now.getTime() % QUARTER_HOUR));
  const from = since === undefined ? new Date(before.getTime() - 24 * 3600_000) : since;
  const window = Prisma.sql`bucket_start < ${before}::timestamptz ${from ? Prisma.sql`AND bucket_start >= ${from}::timestamptz` : Prisma.empty}`;
  const merchants = await db.merchant.findMany({ select: { id: true } });
  const report: FoldReport = { merchants: merchants.length, rows: 0 };
  for (const { id } of merchants) {
    const [row] = await db.$queryRaw<{ removed: number; written: number }[]>`
      WITH folded AS (
        DELETE FROM ledger_buckets
         WHERE merchant_id = ${id}::uuid AND ${window}
           AND (bucket_start, category) IN (
             SELECT bucket_start, category FROM ledger_buckets
              WHERE merchant_id = ${id}::uuid AND ${window}
              GROUP BY 1, 2 HAVING count(*) > 1)
        RETURNING bucket_start, category, points, entries
      ), written AS (
        INSERT INTO ledger_buckets (id, merchant_id, bucket_start, category, points, entries)
        SELECT gen_random_uuid(), ${id}::uuid, bucket_start, category, sum(points), sum(entries)
          FROM folded GROUP BY bucket_start, category
        RETURNING 1
      )
      SELECT (SELECT count(*) FROM folded)::int AS removed, (SELECT count(*) FROM written)::int AS written`;
    report.rows += (row?.removed ?? 0) - (row?.written ?? 0);
  }
  return report;
}
