// The points ledger. Every balance change is one SQL statement that updates the balance
// conditionally and writes the transaction and its activity (activity-log.ts) from the
// updated row, so a balance always equals the sum of its transactions and concurrent debits
// can never overdraw: under READ COMMITTED a second UPDATE re-checks the condition against
// the row the first one committed. One statement, no interactive transaction
// (prisma/prisma#30374). The CHECK constraint in the schema is the last line of defence.
// A credit that approves pending points (pending.ts) is the same statement, turning the
// pending activity approved instead of writing a new one. A request that names its customer
// by platform id finds it in the same statement too (one round trip per adjustment).
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/client.js';
import { rowsOf } from '../../db/sql.js';
import { Prisma } from '../../generated/prisma/client.js';
import type { TransactionSource } from '../../generated/prisma/enums.js';
import { platformIdMatches } from '../customers/customers.js';
import { AppError, notFound } from '../shared/errors.js';
import { MAX_BALANCE } from '../shared/limits.js';
import { insertActivity } from './activity-log.js';
import { faultPoint } from '../../observability/faults.js';
import { countLedgerEntry } from '../../observability/metrics.js';

export interface LedgerEntry {
  merchantId: string;
  customerId: string;
  /** Signed: positive credits, negative debits; never zero. */
  points: number;
  description: string;
  source: TransactionSource;
  /** Activity log type: a campaign type, or adjustment, redemption, referral, expiry, import. */
  activityType: string;
  reference?: { kind: string; id: string };
  /**
   * A pending activity (pending.ts) this credit approves: the activity becomes approved, with
   * its balance_after, instead of a new activity being written. The credit happens only while
   * that activity is still pending (it is locked first), so an approval and a refund's void,
   * or two approvals, can never both apply.
   */
  approves?: string;
}

/** An entry naming its customer by platform id, found by the same statement (unknown or erased: 404). */
export type PlatformLedgerEntry = Omit<LedgerEntry, 'customerId' | 'approves'> & { platformId: string };

export interface LedgerResult {
  /** The customer's id (uuid). */
  customerId: string;
  transactionId: string;
  activityId: string;
  balanceAfter: number;
  type: 'credit' | 'debit';
}

/** Credits or debits; returns null when the balance would go below zero or overflow. */
export async function tryApplyPoints(db: Db, entry: LedgerEntry | PlatformLedgerEntry): Promise<LedgerResult | null> {
  if (!Number.isInteger(entry.points) || Math.abs(entry.points) > MAX_BALANCE) return null; // would overflow int
  const credit = entry.points > 0 ? entry.points : 0;
  const debit = entry.points < 0 ? -entry.points : 0;
  const type = entry.points > 0 ? 'credit' : 'debit';
  const transactionId = randomUUID();
  const activityId = randomUUID();
  const refKind = entry.reference?.kind ?? null;
  const refId = entry.reference?.id ?? null;
  const byPlatformId = 'platformId' in entry;
  const approves = byPlatformId ? undefined : entry.approves;
  const customer = byPlatformId
    ? Prisma.sql`SELECT c.id FROM customers c WHERE ${platformIdMatches(entry.merchantId, entry.platformId)}`
    : Prisma.sql`SELECT c.id FROM customers c WHERE c.id = ${entry.customerId}::uuid AND c.merchant_id = ${entry.merchantId}::uuid`;
  const held = approves
    ? Prisma.sql`held AS (
        SELECT id FROM activities
         WHERE id = ${approves}::uuid AND merchant_id = ${entry.merchantId}::uuid
           AND customer_id = (SELECT id FROM customer) AND status = 'pending'::"ActivityStatus"
           AND points_change = ${entry.points}::int
           FOR UPDATE
      ),`
    : Prisma.empty;
  const act = approves
    ? Prisma.sql`
      UPDATE activities a
         SET status = 'approved'::"ActivityStatus", balance_after = updated.points_balance
        FROM updated
       WHERE a.id = ${approves}::uuid`
    : insertActivity(
        {
          id: activityId,
          merchantId: entry.merchantId,
          customerId: Prisma.sql`updated.customer_id`,
          type: entry.activityType,
          description: entry.description,
          pointsChange: entry.points,
          balanceAfter: Prisma.sql`points_balance`,
          reference: { kind: refKind ?? 'transaction', id: refId ?? transactionId },
        },
        Prisma.sql`updated`,
      );
  // one statement, atomic on its own: on the pool directly unless `db` is a transaction's
  // a row whenever the customer exists, its change's columns null when the change was refused
  const rows = await rowsOf<{ customer_id: string; balance_after: number | null; activity_id: string | null }>(db, Prisma.sql`
    WITH customer AS (${customer}), ${held} updated AS (
      UPDATE customers
         SET points_balance = points_balance + ${entry.points}::int,
             points_earned  = points_earned + ${credit}::int,
             points_spent   = points_spent + ${debit}::int,
             last_activity_at = now(),
             updated_at = now()
       WHERE id = (SELECT id FROM customer)
         AND merchant_id = ${entry.merchantId}::uuid
         AND points_balance + ${entry.points}::bigint BETWEEN 0 AND ${MAX_BALANCE}
         AND points_earned + ${credit}::bigint <= ${MAX_BALANCE}
         AND points_spent + ${debit}::bigint <= ${MAX_BALANCE}
         ${approves ? Prisma.sql`AND EXISTS (SELECT 1 FROM held)` : Prisma.empty}
      RETURNING id AS customer_id, points_balance
    ), tx AS (
      INSERT INTO points_transactions
        (id, merchant_id, customer_id, points, type, description, source, balance_after, reference_kind, reference_id)
      SELECT ${transactionId}::uuid, ${entry.merchantId}::uuid, updated.customer_id, ${entry.points}::int,
             ${type}::"TransactionType", ${entry.description}, ${entry.source}::"TransactionSource",
             points_balance, ${refKind}, ${refId}
        FROM updated
      RETURNING balance_after
    ), act AS (${act}
      RETURNING id
    )
    SELECT customer.id::text AS customer_id, tx.balance_after, act.id::text AS activity_id
      FROM customer LEFT JOIN (tx CROSS JOIN act) ON true`);
  await faultPoint('ledger.applied');
  const row = rows[0];
  if (!row && byPlatformId) throw notFound('Customer');
  if (!row || row.balance_after === null) return null;
  countLedgerEntry(entry.points);
  return { customerId: row.customer_id, transactionId, activityId: row.activity_id!, balanceAfter: Number(row.balance_after), type };
}

/** As tryApplyPoints, but a refused change is 422 `adjustment_failed`. */
export async function applyPoints(db: Db, entry: LedgerEntry | PlatformLedgerEntry): Promise<LedgerResult> {
  const result = await tryApplyPoints(db, entry);
  if (result) return result;
  throw new AppError(
    'adjustment_failed',
    entry.points < 0
      ? 'Insufficient point balance: the debit would make the balance negative'
      : `The credit would take the balance over the maximum of ${MAX_BALANCE} points`,
  );
}
