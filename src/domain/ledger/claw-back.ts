// Taking points back (a refunded order's, a reversed referral's): never below zero. The debit
// is min(owed, balance) and the shortfall is noted in the activity log, even when nothing at
// all could be debited.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/client.js';
import { rowKey } from '../shared/keys.js';
import { insertActivity } from './activity-log.js';
import { type LedgerEntry, tryApplyPoints } from './ledger.js';

export interface ClawBack extends Omit<LedgerEntry, 'points' | 'description' | 'approves' | 'reference'> {
  /** Points owed back (> 0 to do anything). */
  owed: number;
  reference: { kind: string; id: string };
  /** The description, given what could not be taken back. */
  describe: (shortfall: number) => string;
}

export interface ClawedBack {
  debited: number;
  transactionId: string | null;
}

/** Debits min(owed, balance) through the ledger; re-reads the balance when it moved meanwhile. */
export async function clawBack(db: Db, claw: ClawBack): Promise<ClawedBack> {
  const { owed, describe, ...entry } = claw;
  for (let attempt = 0; owed > 0 && attempt < 5; attempt++) {
    const { pointsBalance } = await db.customer.findUniqueOrThrow({
      where: rowKey(entry.merchantId, entry.customerId),
      select: { pointsBalance: true },
    });
    const take = Math.min(owed, pointsBalance);
    const description = describe(owed - take);
    if (take === 0) {
      // nothing to debit: the activity log still says what could not be reversed
      await db.$executeRaw(
        insertActivity({
          id: randomUUID(),
          merchantId: entry.merchantId,
          customerId: entry.customerId,
          type: entry.activityType,
          description,
          pointsChange: 0,
          balanceAfter: 0,
          reference: entry.reference,
        }),
      );
      break;
    }
    const tx = await tryApplyPoints(db, { ...entry, points: -take, description });
    if (tx) return { debited: take, transactionId: tx.transactionId };
    // the balance moved under us: read it again
  }
  return { debited: 0, transactionId: null };
}

/** "<base>", or "<base> (<n> points could not be reversed: balance too low)". */
export function reversalDescription(base: string, shortfall: number) {
  return shortfall > 0 ? `${base} (${shortfall} points could not be reversed: balance too low)` : base;
}
