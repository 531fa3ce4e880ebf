// Pending points: a merchant with `points_pending_days` > 0 (its return
// window) holds the points an order earns as a `pending` activity: counted in the balance's
// points_pending, not spendable, not a ledger transaction. `approvePendingPoints` (a cron job,
// or `loyalty approve-pending`) credits those older than the window through the ledger, which
// turns the activity approved; a refund before that voids the activity instead of clawing back.
// Each pending activity is settled once: the approval (ledger.ts `approves`) and the void both
// change it only while it is still pending, under its row lock.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/client.js';
import { Prisma } from '../../generated/prisma/client.js';
import { eachInBatches, type Page } from '../shared/batches.js';
import { reevaluateTier } from '../tiers/standing.js';
import { insertActivity } from './activity-log.js';
import { type LedgerEntry, tryApplyPoints } from './ledger.js';

/** Holds `entry.points` (> 0) as a pending activity, occurring when the order was placed; returns its id. */
export async function holdPoints(db: Db, entry: Omit<LedgerEntry, 'source' | 'approves'>): Promise<string> {
  const id = randomUUID();
  await db.$executeRaw(
    insertActivity({
      id,
      merchantId: entry.merchantId,
      customerId: entry.customerId,
      type: entry.activityType,
      description: entry.description,
      pointsChange: entry.points,
      balanceAfter: null,
      reference: { kind: entry.reference?.kind ?? null, id: entry.reference?.id ?? null },
      ...(entry.placedAt && { occurredAt: entry.placedAt }),
      status: 'pending',
    }),
  );
  return id;
}

/**
 * Voids up to `points` of the order's pending points: the pending activity becomes `voided`
 * and, when only part is voided (a partial refund), the rest is held again as a new pending
 * activity with the same creation time (so the same window). Returns the points voided, or
 * null when the order has no pending points (approved already, or never held): the caller
 * claws back through the ledger instead.
 */
export async function voidPendingPoints(
  db: Db,
  merchantId: string,
  customerId: string,
  orderId: string,
  points: number,
): Promise<number | null> {
  for (;;) {
    const held = await db.activity.findFirst({
      where: { merchantId, customerId, referenceKind: 'order', referenceId: orderId, status: 'pending' },
    });
    if (!held) return null;
    const voided = Math.min(points, held.pointsChange);
    const rest = held.pointsChange - voided;
    const keep =
      rest > 0
        ? Prisma.sql`, kept AS (${insertActivity(
            {
              id: randomUUID(),
              merchantId,
              customerId,
              type: held.type,
              description: held.description,
              pointsChange: rest,
              balanceAfter: null,
              reference: { kind: 'order', id: orderId },
              at: Prisma.sql`created_at`,
              occurredAt: Prisma.sql`occurred_at`,
              status: 'pending',
            },
            Prisma.sql`voided`,
          )} RETURNING id)`
        : Prisma.empty;
    const rows = await db.$queryRaw<{ id: string }[]>`
      WITH voided AS (
        UPDATE activities SET status = 'voided'::"ActivityStatus"
         WHERE merchant_id = ${merchantId}::uuid AND id = ${held.id}::uuid AND status = 'pending'::"ActivityStatus"
        RETURNING id, created_at, occurred_at
      )${keep}
      SELECT id::text FROM voided`;
    if (rows.length) return voided;
    // approved or voided meanwhile: look again
  }
}

export interface ApprovalReport {
  /** Pending activities credited by this run. */
  approved: number;
  points: number;
  customers: number;
}

const BATCH = 200;

/** A pending order activity, as the approval reads it. */
interface HeldActivity {
  id: string;
  customer_id: string;
  points_change: number;
  type: string;
  description: string;
  reference_id: string;
  /** When the order was placed: the window runs from then, and the credit is placed then. */
  occurred_at: Date;
}

/**
 * Credits every pending order activity whose window (from when its order was placed) has passed
 * (every merchant, one at a time; a merchant whose window is now 0 has all of them approved)
 * through the ledger, then re-judges the tiers of the customers credited: tier status counts
 * points once they are approved, in the window of the order's placed time.
 * Idempotent, and safe to run on several instances at once: an activity approved, or voided by
 * a refund, meanwhile is skipped.
 */
export async function approvePendingPoints(db: Db, now = new Date()): Promise<ApprovalReport> {
  const report: ApprovalReport = { approved: 0, points: 0, customers: 0 };
  const customers = new Map<string, string>();
  const merchants = await db.merchant.findMany({ select: { id: true, pointsPendingDays: true }, orderBy: { id: 'asc' } });
  for (const merchant of merchants) {
    const due: Page<HeldActivity, { at: Date; id: string }> = (after, size) => db.$queryRaw`
      SELECT a.id::text, a.customer_id::text, a.points_change, a.type, a.description, a.reference_id, a.occurred_at
        FROM activities a
       WHERE a.merchant_id = ${merchant.id}::uuid
         AND a.status = 'pending'::"ActivityStatus" AND a.reference_kind = 'order'
         AND a.occurred_at <= ${now.toISOString()}::timestamptz - make_interval(days => ${merchant.pointsPendingDays}::int)
         ${after ? Prisma.sql`AND (a.occurred_at, a.id) > (${after.at.toISOString()}::timestamptz, ${after.id}::uuid)` : Prisma.empty}
       ORDER BY a.occurred_at, a.id
       LIMIT ${size}`;
    const keyOf = (held: HeldActivity) => ({ at: new Date(held.occurred_at), id: held.id });
    await eachInBatches({ size: BATCH, page: due, keyOf }, async (held) => {
      const credited = await tryApplyPoints(db, {
        merchantId: merchant.id,
        customerId: held.customer_id,
        points: held.points_change,
        description: held.description,
        source: 'earning_rule',
        activityType: held.type,
        reference: { kind: 'order', id: held.reference_id },
        approves: held.id,
        placedAt: new Date(held.occurred_at),
      });
      if (!credited) return;
      report.approved += 1;
      report.points += held.points_change;
      customers.set(held.customer_id, merchant.id);
    });
  }
  for (const [customerId, merchantId] of customers) await reevaluateTier(db, merchantId, customerId);
  report.customers = customers.size;
  return report;
}
