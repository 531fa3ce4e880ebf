// Orders and refunds from the e-commerce platform. An order earns points from the `purchase`
// rules (the calculator) in force when it was placed (its created_at: an order recorded late is
// judged as it would have been then, within the merchant's late_earning_days), adds its
// subtotal to the customer's amount spent, re-judges the tier and may complete a referral; a
// refund claws the points back. With a return window (the merchant's points_pending_days,
// counted from the placed time) the points are held pending instead (ledger/pending.ts) and a
// refund before their approval voids them.
// Idempotency: EngineEvent rows for the order (and its event id, when given) are inserted
// before anything is awarded, and the result is stored on them, in the same transaction.
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { atomically } from '../../db/transaction.js';
import type { Order } from '../../generated/prisma/client.js';
import { findCustomer } from '../customers/customers.js';
import { cartSchema, cents, checkCurrency } from '../earning/calculator.js';
import { creditEarned, earn } from '../earning/earn.js';
import { clawBack, reversalDescription } from '../ledger/claw-back.js';
import { holdPoints, voidPendingPoints } from '../ledger/pending.js';
import { identifierFields } from '../referrals/fraud-signals.js';
import { completeReferral, reverseReferral } from '../referrals/referrals.js';
import { notFound } from '../shared/errors.js';
import { rowKey } from '../shared/keys.js';
import { MAX_AMOUNT } from '../shared/limits.js';
import { parseInput } from '../shared/validation.js';
import { reevaluateTier } from '../tiers/standing.js';
import {
  claimEvent,
  eventIdSchema,
  placedTime,
  platformIdSchema,
  processClaimed,
  releaseEvent,
  stillProcessing,
  storeResult,
  timestampSchema,
} from './events.js';

const orderInput = z.object({
  event_id: eventIdSchema.nullish(),
  order_id: platformIdSchema,
  customer_id: platformIdSchema,
  ...cartSchema,
  created_at: timestampSchema.nullish(),
  // the buyer's, for the referral fraud signals
  ...identifierFields,
});
export type OrderInput = z.input<typeof orderInput>;

export interface OrderResult {
  order_id: string;
  customer_id: string;
  points_awarded: number;
  /** Points held pending the merchant's return window (then no transaction yet). */
  points_pending: number;
  transaction_id: string | null;
  replayed: boolean;
}

/** The result of an order whose row exists but has no stored result, read back from its ledger credit. */
async function recordedOrder(db: Db, order: Order, customerId: string): Promise<OrderResult> {
  const tx = await db.pointsTransaction.findFirst({
    where: {
      merchantId: order.merchantId,
      customerId: order.customerId,
      referenceKind: 'order',
      referenceId: order.platformOrderId,
      type: 'credit',
    },
    select: { id: true },
  });
  return {
    order_id: order.platformOrderId,
    customer_id: customerId,
    points_awarded: order.pointsAwarded,
    // no credit yet: the points were held (approval writes the credit)
    points_pending: tx ? 0 : order.pointsAwarded,
    transaction_id: tx?.id ?? null,
    replayed: true,
  };
}

/**
 * Records an order in one transaction: its claims, the order row, the points and the stored
 * result commit together, so a crash midway leaves nothing and the platform's retry runs it.
 */
export const recordOrder = (db: Db, merchantId: string, raw: OrderInput) => atomically(db, (tx) => recordOrderIn(tx, merchantId, raw));

async function recordOrderIn(db: Db, merchantId: string, raw: OrderInput): Promise<OrderResult> {
  const input = parseInput(orderInput, raw);
  const [merchant, customer] = await Promise.all([
    db.merchant.findUniqueOrThrow({
      where: { id: merchantId },
      select: { currency: true, pointsPendingDays: true, lateEarningDays: true },
    }),
    findCustomer(db, merchantId, { customer_id: input.customer_id }),
  ]);
  const currency = checkCurrency(input.currency, merchant.currency);

  // The order's own claim (`order:<id>`) makes it count once whatever event carries it; the
  // platform's event id, when given, is claimed too so a replayed event is answered at once.
  const orderKey = `order:${input.order_id}`;
  const claimIds: string[] = [];
  if (input.event_id && input.event_id !== orderKey) {
    const alias = await claimEvent(db, merchantId, input.event_id, 'order');
    if (alias.claimed) claimIds.push(alias.id);
    else if (alias.result) return { ...(alias.result as unknown as OrderResult), replayed: true };
    // else still running elsewhere: the order's claim below waits for it
  }
  const claim = await claimEvent(db, merchantId, orderKey, 'order');
  if (!claim.claimed) {
    if (!claim.result) {
      for (const id of claimIds) await releaseEvent(db, merchantId, id);
      throw stillProcessing(input.order_id);
    }
    const result = { ...(claim.result as unknown as OrderResult), replayed: true };
    for (const id of claimIds) await storeResult(db, merchantId, id, result);
    return result;
  }
  claimIds.push(claim.id);

  const now = new Date();
  let orderId: string | null = null;
  // when the order was placed (the claimed run sets it): what completes a referral is judged then
  let placedAt = now;
  const result = await processClaimed(db, merchantId, claimIds, async (): Promise<OrderResult> => {
    // recorded before its result could be stored (or imported as history): answer from the row
    const recorded = async () => {
      const existing = await db.order.findUnique({
        where: { merchantId_platformOrderId: { merchantId, platformOrderId: input.order_id } },
        include: { customer: { select: { platformId: true } } },
      });
      return existing && recordedOrder(db, existing, existing.customer.platformId);
    };
    try {
      placedAt = placedTime(input.created_at, now, merchant.lateEarningDays, 'created_at');
    } catch (err) {
      const answer = await recorded();
      if (answer) return answer;
      throw err;
    }
    const late = placedAt.getTime() < now.getTime();
    const [order] = await db.order.createManyAndReturn({
      data: [
        {
          merchantId,
          platformOrderId: input.order_id,
          customerId: customer.id,
          subtotal: input.subtotal,
          currency,
          placedAt,
          clientIp: input.client_ip ?? null,
          deviceId: input.device_id ?? null,
          paymentFingerprint: input.payment_fingerprint ?? null,
          shippingAddressHash: input.shipping_address_hash ?? null,
        },
      ],
      skipDuplicates: true,
    });
    if (!order) {
      const answer = await recorded();
      if (answer) return answer;
      throw stillProcessing(input.order_id);
    }
    try {
      // the cart as judged, kept for a replay of history; deleted with the order if earning fails
      if (input.line_items?.length) {
        await db.orderLine.createMany({
          data: input.line_items.map((item, position) => ({
            merchantId,
            orderId: order.id,
            position,
            productId: item.product_id,
            quantity: item.quantity,
            price: (cents(item.price) / 100).toFixed(2),
          })),
        });
      }
      const calculation = await earn(db, merchantId, customer, 'purchase', input, { at: placedAt, late });
      const earned = {
        merchantId,
        customerId: customer.id,
        description: `Purchase: order ${input.order_id}`,
        activityType: 'purchase',
        reference: { kind: 'order', id: input.order_id },
        ...(late && { placedAt }),
      };
      // inside the return window (from the placed time) the points are held, not credited
      const windowEnds = placedAt.getTime() + merchant.pointsPendingDays * 86_400_000;
      const hold = merchant.pointsPendingDays > 0 && calculation.points > 0 && windowEnds > now.getTime();
      const tx = hold ? null : await creditEarned(db, calculation, earned);
      if (hold) await holdPoints(db, { ...earned, points: calculation.points });
      orderId = order.id;
      return {
        order_id: input.order_id,
        customer_id: customer.platformId,
        points_awarded: calculation.points,
        points_pending: hold ? calculation.points : 0,
        transaction_id: tx?.transactionId ?? null,
        replayed: false,
      };
    } catch (err) {
      // nothing was awarded: forget the order so the platform can send it again
      await db.order.delete({ where: rowKey(merchantId, order.id) }).catch(() => {});
      throw err;
    }
  });
  if (!orderId) return result;
  // one statement: the order's points and the customer's amount spent change together
  await db.$executeRaw`
    WITH recorded AS (
      UPDATE orders SET points_awarded = ${result.points_awarded}::int
       WHERE merchant_id = ${merchantId}::uuid AND id = ${orderId}::uuid RETURNING customer_id
    )
    UPDATE customers
       SET amount_spent = amount_spent + ${input.subtotal}::numeric, last_activity_at = now(), updated_at = now()
     WHERE merchant_id = ${merchantId}::uuid AND id IN (SELECT customer_id FROM recorded)`;
  await reevaluateTier(db, merchantId, customer.id);
  await completeReferral(db, merchantId, customer, { ...input, id: orderId, orderId: input.order_id, placedAt });
  return result;
}

// ---- refunds ----

const refundInput = z.object({
  event_id: eventIdSchema.nullish(),
  order_id: platformIdSchema,
  /** The refunded amount; omitted: the whole order. */
  amount: z.number().finite().positive('must be greater than 0').max(MAX_AMOUNT).nullish(),
});
export type RefundInput = z.input<typeof refundInput>;

export interface RefundResult {
  order_id: string;
  customer_id: string;
  refunded_amount: number;
  /** Points owed back by this refund (proportional to the amount refunded). */
  points_to_claw_back: number;
  /** Points actually debited: never more than the balance. */
  points_clawed_back: number;
  /** Points still pending (the return window) voided instead of clawed back. */
  points_voided: number;
  /** Owed but not debited because the balance was too low. */
  shortfall: number;
  transaction_id: string | null;
  fully_refunded: boolean;
  /** Referral points clawed back from the referrer because this order no longer qualifies. */
  referrer_points_clawed_back: number;
  replayed: boolean;
}

/**
 * Points owed back once `refundedCents` of the order are refunded (floored, all at full refund).
 * A replay of history (finance/replay.ts) reverses the points it recalculates with it.
 */
export function owedFor(
  order: { subtotal: Order['subtotal'] | number; pointsAwarded: number },
  refundedCents: number,
  full: boolean,
): number {
  const subtotalCents = cents(Number(order.subtotal));
  if (full) return order.pointsAwarded;
  if (subtotalCents === 0) return 0;
  return Number((BigInt(order.pointsAwarded) * BigInt(refundedCents)) / BigInt(subtotalCents));
}

/**
 * Claws back a refunded order's points, proportionally for a partial amount, never below
 * zero: the debit is min(owed, balance) and the shortfall is noted; points still pending are
 * voided instead. A referral the order completed is reversed when the order stops qualifying.
 * Without an event id a refund is identified by its order and amount, so an identical refund
 * sent twice counts once.
 */
export const refundOrder = (db: Db, merchantId: string, raw: RefundInput) => atomically(db, (tx) => refundOrderIn(tx, merchantId, raw));

async function refundOrderIn(db: Db, merchantId: string, raw: RefundInput): Promise<RefundResult> {
  const input = parseInput(refundInput, raw);
  const order = await db.order.findUnique({
    where: { merchantId_platformOrderId: { merchantId, platformOrderId: input.order_id } },
    include: { customer: { select: { platformId: true } } },
  });
  if (!order) throw notFound('Order');
  const eventId = input.event_id ?? `refund:${input.order_id}:${input.amount ?? 'full'}`;
  const claim = await claimEvent(db, merchantId, eventId, 'refund');
  if (!claim.claimed) {
    if (claim.result) return { ...(claim.result as unknown as RefundResult), replayed: true };
    throw stillProcessing(eventId);
  }

  const result = await processClaimed(db, merchantId, [claim.id], async (): Promise<RefundResult> => {
    // Reserve the amount on the order first: the row lock makes concurrent refunds of one
    // order take turns, so each sees what the others refunded and none claws back twice.
    const subtotalCents = cents(Number(order.subtotal));
    const requested = input.amount == null ? Number(order.subtotal) : input.amount;
    const [reserved] = await db.$queryRaw<{ before: string; after: string }[]>`
      WITH previous AS (SELECT id, refunded_amount FROM orders WHERE merchant_id = ${merchantId}::uuid AND id = ${order.id}::uuid FOR UPDATE)
      UPDATE orders o SET refunded_amount = LEAST(o.subtotal, previous.refunded_amount + ${requested}::numeric)
        FROM previous WHERE o.merchant_id = ${merchantId}::uuid AND o.id = previous.id
      RETURNING previous.refunded_amount::text AS before, o.refunded_amount::text AS after`;
    const before = cents(Number(reserved!.before));
    const after = cents(Number(reserved!.after));
    const refunded = after - before;
    const full = after >= subtotalCents;
    const owed = Math.max(0, owedFor(order, after, full) - owedFor(order, before, before >= subtotalCents));
    try {
      return await takeBack(db, merchantId, order, input.order_id, { owed, refunded, full });
    } catch (err) {
      // nothing was debited: give the reservation back so the refund can be sent again
      await db.$executeRaw`
        UPDATE orders SET refunded_amount = GREATEST(refunded_amount - ${refunded / 100}::numeric, 0)
         WHERE merchant_id = ${merchantId}::uuid AND id = ${order.id}::uuid`;
      throw err;
    }
  });
  await db.$executeRaw`
    WITH refunded AS (
      UPDATE orders
         SET points_clawed_back = points_clawed_back + ${result.points_clawed_back}::int,
             refunded_at = CASE WHEN ${result.fully_refunded}::boolean THEN COALESCE(refunded_at, now()) ELSE refunded_at END
       WHERE merchant_id = ${merchantId}::uuid AND id = ${order.id}::uuid
      RETURNING customer_id
    )
    UPDATE customers
       SET amount_spent = GREATEST(amount_spent - ${result.refunded_amount}::numeric, 0), updated_at = now()
     WHERE merchant_id = ${merchantId}::uuid AND id IN (SELECT customer_id FROM refunded)`;
  // the refund as of its moment: what the valuation reads of the order's consideration and points at any instant
  if (result.refunded_amount > 0 || result.points_to_claw_back > 0) {
    await db.orderRefund.create({
      data: { merchantId, orderId: order.id, amount: result.refunded_amount, pointsOwed: result.points_to_claw_back },
    });
  }
  await reevaluateTier(db, merchantId, order.customerId);
  const reversal = await reverseReferral(db, merchantId, order.id);
  if (!reversal) return result;
  // a replay answers the whole outcome
  const whole = { ...result, referrer_points_clawed_back: reversal.points_clawed_back };
  await storeResult(db, merchantId, claim.id, whole);
  return whole;
}

/** Takes back what a refund owes: voids it while pending, else debits min(owed, balance). */
async function takeBack(
  db: Db,
  merchantId: string,
  order: Order & { customer: { platformId: string } },
  orderId: string,
  { owed, refunded, full }: { owed: number; refunded: number; full: boolean },
): Promise<RefundResult> {
  const voided = owed > 0 ? await voidPendingPoints(db, merchantId, order.customerId, orderId, owed) : null;
  const clawed =
    voided === null
      ? await clawBack(db, {
          merchantId,
          customerId: order.customerId,
          owed,
          describe: (shortfall) => reversalDescription(`Refund: order ${orderId}`, shortfall),
          source: 'earning_rule',
          activityType: 'purchase',
          reference: { kind: 'order', id: orderId },
        })
      : { debited: 0, transactionId: null };
  const settled = (voided ?? 0) + clawed.debited;
  return {
    order_id: orderId,
    customer_id: order.customer.platformId,
    refunded_amount: refunded / 100,
    points_to_claw_back: owed,
    points_clawed_back: clawed.debited,
    points_voided: voided ?? 0,
    shortfall: owed - settled,
    transaction_id: clawed.transactionId,
    fully_refunded: full,
    referrer_points_clawed_back: 0,
    replayed: false,
  };
}
