// History for the finance tests: ledger rows at past instants, written as the ledger would
// have written them then (the customer's balance with them), so reports over past periods have
// something to read. The ledger's own triggers (counts, buckets, outbox) run as for any row.
import { randomUUID } from 'node:crypto';
import type { TransactionSource } from '../../src/generated/prisma/enums.js';
import type { TestApp } from '../harness.js';

/** A ledger row at a past instant, with its customer's balance, as the ledger would have written it then. */
export async function ledgerEntryAt(
  app: TestApp,
  merchantId: string,
  customerId: string,
  points: number,
  at: Date,
  source: TransactionSource = 'manual',
  referenceKind: string | null = null,
) {
  await app.db.$executeRaw`
    WITH c AS (
      UPDATE customers SET points_balance = points_balance + ${points}, points_earned = points_earned + ${Math.max(points, 0)},
                           points_spent = points_spent + ${Math.max(-points, 0)}
       WHERE merchant_id = ${merchantId}::uuid AND id = ${customerId}::uuid RETURNING points_balance)
    INSERT INTO points_transactions (id, merchant_id, customer_id, points, type, description, source, balance_after, reference_kind, created_at)
    SELECT ${randomUUID()}::uuid, ${merchantId}::uuid, ${customerId}::uuid, ${points}, ${points > 0 ? 'credit' : 'debit'}::"TransactionType",
           'history', ${source}::"TransactionSource", c.points_balance, ${referenceKind}, ${at}::timestamptz FROM c`;
}
