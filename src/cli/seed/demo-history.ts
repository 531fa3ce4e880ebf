// The demo's last four weeks, for the first embedded start: orders and redemptions of its
// customers through the same domain functions the API calls, so every figure agrees, then dated
// over the weeks before `now` in the order they were made (the ledger stamps a row with the
// moment it writes it), and each opening balance at its customer's first day. Every chart of the
// admin app then has a shape on a fresh install, not one bar on today. Dating rows afterwards is
// for this demo only: the ledger's rows are never rewritten otherwise.
import type { Db } from '../../db/client.js';
import { recordOrder } from '../../domain/events/orders.js';
import { redeemReward } from '../../domain/rewards/redemption.js';
import { DAY_MS } from '../../domain/shared/limits.js';
import { Prisma } from '../../generated/prisma/client.js';

/** How far back the history goes. */
const WEEKS = 4;
/** The customers who shop (the last demo customer is a guest) and those who redeem. */
const SHOPPERS = ['demo-1001', 'demo-1002', 'demo-1003', 'demo-1004', 'demo-1006', 'demo-1007', 'demo-1009', 'demo-1010', 'demo-1011'];
const REDEEMERS = ['demo-1001', 'demo-1004', 'demo-1010', 'demo-1007', 'demo-1004', 'demo-1010'];
const ORDERS = 24;

/** Orders, with a redemption after every fourth, as they happen in the history. */
function schedule() {
  const steps: ({ kind: 'order'; customer: string; subtotal: number; n: number } | { kind: 'redeem'; customer: string; n: number })[] = [];
  for (let n = 0; n < ORDERS; n++) {
    steps.push({ kind: 'order', customer: SHOPPERS[(n * 4) % SHOPPERS.length]!, subtotal: 25 + ((n * 37) % 180), n });
    if (n % 4 === 3) steps.push({ kind: 'redeem', customer: REDEEMERS[(n >> 2) % REDEEMERS.length]!, n: n >> 2 });
  }
  return steps;
}

export async function demoHistory(db: Db, merchantId: string, now = new Date()) {
  const [{ mark }] = (await db.$queryRaw<{ mark: Date }[]>`SELECT clock_timestamp() AS mark`) as [{ mark: Date }];
  const rewards = await db.reward.findMany({
    where: { merchantId, isActive: true, referralReward: false },
    orderBy: { pointsCost: 'asc' },
    select: { id: true },
  });
  const steps = schedule();
  const start = now.getTime() - WEEKS * 7 * DAY_MS;
  /** Where step `i` falls: evenly over the weeks, the last an hour before now. */
  const when = (i: number) => new Date(start + ((now.getTime() - 3_600_000 - start) * i) / (steps.length - 1));
  for (const [i, step] of steps.entries()) {
    if (step.kind === 'order') {
      const order_id = `demo-order-${1001 + step.n}`;
      await recordOrder(db, merchantId, {
        order_id,
        customer_id: step.customer,
        subtotal: step.subtotal,
        created_at: when(i).toISOString(),
      });
    } else {
      const customer = await db.customer.findUniqueOrThrow({ where: { merchantId_platformId: { merchantId, platformId: step.customer } } });
      await redeemReward(db, customer, { reward_id: rewards[step.n % Math.min(3, rewards.length)]!.id });
    }
  }
  await dateRows(db, merchantId, mark, steps.length, when);
}

/** The columns the ledger and its companions stamp with their transaction's moment. */
const STAMPED = [
  ['points_transactions', 'created_at'],
  ['activities', 'created_at'],
  ['activities', 'occurred_at'],
  ['customer_rewards', 'issued_at'],
  ['tier_memberships', 'started_at'],
  ['tier_memberships', 'ended_at'],
] as const;

/** The rows the import wrote, told by their first stamp: dated at their customer's first day. */
const IMPORTED = [
  ['points_transactions', 'created_at', 'created_at = k.created_at'],
  ['activities', 'created_at', 'created_at = k.created_at, occurred_at = k.created_at'],
  ['tier_memberships', 'started_at', 'started_at = k.created_at'],
] as const;

/**
 * Dates the opening balances (written before `mark`) at their customers' first day, and what the
 * history wrote over its weeks in the order it was written (a step's rows share their
 * transaction's moment); then the liability's buckets again from the ledger as dated.
 */
async function dateRows(db: Db, merchantId: string, mark: Date, steps: number, when: (i: number) => Date) {
  const moments = (
    await db.$queryRaw<{ at: Date }[]>`
      SELECT DISTINCT created_at AS at FROM points_transactions
       WHERE merchant_id = ${merchantId}::uuid AND created_at >= ${mark}::timestamptz ORDER BY 1`
  ).map((r) => r.at);
  const becomes = moments.map((_, i) => when(Math.round((i * (steps - 1)) / Math.max(1, moments.length - 1))));
  const merchant = Prisma.sql`${merchantId}::uuid`;
  const moved = Prisma.sql`unnest(${moments}::timestamptz[], ${becomes}::timestamptz[]) AS m(was, becomes)`;
  await db.$transaction([
    ...IMPORTED.map(
      ([table, stamp, set]) => db.$executeRaw`
        UPDATE ${Prisma.raw(table)} x SET ${Prisma.raw(set)} FROM customers k
         WHERE x.merchant_id = ${merchant} AND k.merchant_id = x.merchant_id AND k.id = x.customer_id
           AND x.${Prisma.raw(stamp)} < ${mark}::timestamptz`,
    ),
    // a code's expiry moves with its issue
    db.$executeRaw`
      UPDATE customer_rewards r SET expires_at = r.expires_at + (m.becomes - m.was) FROM ${moved}
       WHERE r.merchant_id = ${merchant} AND r.issued_at = m.was`,
    ...STAMPED.map(
      ([table, column]) => db.$executeRaw`
        UPDATE ${Prisma.raw(table)} x SET ${Prisma.raw(column)} = m.becomes FROM ${moved}
         WHERE x.merchant_id = ${merchant} AND x.${Prisma.raw(column)} = m.was`,
    ),
    db.$executeRaw`UPDATE orders SET created_at = placed_at WHERE merchant_id = ${merchant}`,
    db.$executeRaw`DELETE FROM ledger_buckets WHERE merchant_id = ${merchant}`,
    db.$executeRaw`
      INSERT INTO ledger_buckets (id, merchant_id, bucket_start, category, points, entries)
      SELECT gen_random_uuid(), merchant_id, loyalty_ledger_bucket(created_at),
             loyalty_ledger_category(type, source, reference_kind), sum(points), count(*)
        FROM points_transactions WHERE merchant_id = ${merchant} GROUP BY merchant_id, 3, 4`,
  ]);
}
