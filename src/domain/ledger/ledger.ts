// The points ledger. Every balance change is one call of the database function
// loyalty_apply_points (migration merchant_scoped_keys; its placed time since late_orders): it updates the balance conditionally
// and writes the transaction and its activity from the updated row, so a balance always equals
// the sum of its transactions and concurrent debits can never overdraw: under READ COMMITTED a
// second UPDATE re-checks the condition against the row the first one committed. One
// statement, atomic on its own, and on a Citus cluster sent whole to the worker that holds the
// merchant. The CHECK constraint in the schema is the last line of defence. A credit that
// approves pending points (pending.ts) turns the pending activity approved instead of writing a
// new one. A request that names its customer by platform id is found by the same call (one
// round trip per adjustment).
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/client.js';
import { rowsOf } from '../../db/sql.js';
import { Prisma } from '../../generated/prisma/client.js';
import type { TransactionSource } from '../../generated/prisma/enums.js';
import { faultPoint } from '../../observability/faults.js';
import { countLedgerEntry } from '../../observability/metrics.js';
import { AppError, notFound } from '../shared/errors.js';
import { MAX_BALANCE } from '../shared/limits.js';

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
  /**
   * When what moves the points happened (an order placed, an action), if before now: kept on
   * the transaction as placed_at and as its activity's occurred_at. The transaction is posted
   * now (created_at) whatever it says: a closed period never changes.
   */
  placedAt?: Date;
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
  const type = entry.points > 0 ? 'credit' : 'debit';
  const transactionId = randomUUID();
  const activityId = randomUUID();
  const refKind = entry.reference?.kind ?? null;
  const refId = entry.reference?.id ?? null;
  const byPlatformId = 'platformId' in entry;
  const approves = byPlatformId ? null : (entry.approves ?? null);
  const placedAt = entry.placedAt?.toISOString() ?? null;
  // the activity names the transaction unless the entry names what caused it
  const activityRef = { kind: refKind ?? 'transaction', id: refId ?? transactionId };
  // a row whenever the customer exists, its change's columns null when the change was refused
  const rows = await rowsOf<{ customer_id: string | null; balance_after: number | null; activity_id: string | null }>(
    db,
    Prisma.sql`
    SELECT customer_id::text, balance_after, activity_id::text FROM loyalty_apply_points(
      ${entry.merchantId}::uuid, ${byPlatformId ? null : entry.customerId}::uuid, ${byPlatformId ? entry.platformId : null}::text,
      ${entry.points}::int, ${MAX_BALANCE}::int, ${transactionId}::uuid, ${type}::"TransactionType", ${entry.description}::text,
      ${entry.source}::"TransactionSource", ${refKind}::text, ${refId}::text,
      ${activityId}::uuid, ${entry.activityType}::text, ${activityRef.kind}::text, ${activityRef.id}::text, ${approves}::uuid,
      ${placedAt}::timestamptz)`,
  );
  await faultPoint('ledger.applied');
  const row = rows[0];
  if (!row?.customer_id && byPlatformId) throw notFound('Customer');
  if (!row || row.balance_after === null) return null;
  countLedgerEntry(entry.points);
  return { customerId: row.customer_id!, transactionId, activityId: row.activity_id!, balanceAfter: Number(row.balance_after), type };
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
