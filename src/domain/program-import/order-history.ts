// A merchant's past orders, brought with the program import (its `orders` section) with the
// times they were placed. By default they are history: kept as orders (`history`), they count
// for tiers (the amount spent, in the window of their placed time), for the what-if replay and
// for the finance reports' placed view, and issue no points. Asked to (`award_points`), each is
// recorded through the engine instead, oldest first, as a late order is (events/orders.ts): by
// the program in force when it was placed, within the late earning days. Either way an order id
// already recorded is skipped, so a file can be imported again after a failure.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { cartSchema, cents } from '../earning/calculator.js';
import { placedTime, platformIdSchema } from '../events/events.js';
import { recordOrder } from '../events/orders.js';
import { AppError } from '../shared/errors.js';
import { field } from '../shared/fields.js';

export const historyOrderInput = z
  .object({
    order_id: platformIdSchema,
    customer_id: platformIdSchema,
    ...cartSchema,
    placed_at: field.timestamp,
  })
  .strict();
type HistoryOrder = z.output<typeof historyOrderInput>;
/** An order of the file with its index there (the path its problems are reported at). */
export interface FileOrder {
  index: number;
  value: HistoryOrder;
}

/** What the file's orders are checked against: the merchant's customers, orders and settings. */
export interface OrderContext {
  /** Platform ids of the merchant's customers (those of the file included). */
  customers: Set<string>;
  /** Order ids the merchant has already recorded. */
  recorded: Set<string>;
  currency: string;
  lateEarningDays: number;
}

/** The merchant's customers and orders among those the file's orders name. */
export async function existingForOrders(db: Db, merchantId: string, orders: HistoryOrder[]) {
  if (orders.length === 0) return { customers: new Set<string>(), recorded: new Set<string>() };
  const [customers, recorded] = await Promise.all([
    db.$queryRaw<{ platform_id: string }[]>`
      SELECT platform_id FROM customers
       WHERE merchant_id = ${merchantId}::uuid AND platform_id = ANY(${[...new Set(orders.map((o) => o.customer_id))]}::text[])`,
    db.$queryRaw<{ platform_order_id: string }[]>`
      SELECT platform_order_id FROM orders
       WHERE merchant_id = ${merchantId}::uuid AND platform_order_id = ANY(${orders.map((o) => o.order_id)}::text[])`,
  ]);
  return { customers: new Set(customers.map((c) => c.platform_id)), recorded: new Set(recorded.map((o) => o.platform_order_id)) };
}

/**
 * Each order's problems (path within the order → message): its customer is unknown, its currency
 * is not the shop's, its placed time is ahead of now, or (awarding points) longer ago than the
 * late earning days. An order id twice in the file is the caller's duplicate check.
 */
export function orderProblems(order: HistoryOrder, context: OrderContext, awardPoints: boolean, now: Date): [string, string][] {
  const problems: [string, string][] = [];
  if (!context.customers.has(order.customer_id)) problems.push(['customer_id', 'is not a customer of this merchant or of the file']);
  if (order.currency && order.currency !== context.currency) problems.push(['currency', `must be the shop currency ${context.currency}`]);
  try {
    placedTime(new Date(order.placed_at), now, awardPoints ? context.lateEarningDays : Number.POSITIVE_INFINITY, 'placed_at');
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    for (const message of err.details?.placed_at ?? []) problems.push(['placed_at', message]);
  }
  return problems;
}

/**
 * The statement writing `orders` (not yet recorded) as history, with their lines, adding their
 * subtotals to their customers' amount spent: part of the import's one batch, after its customers.
 */
export function insertHistory(db: Db, merchantId: string, orders: HistoryOrder[], currency: string, now: Date) {
  const ids = orders.map(() => randomUUID());
  const lines = orders.flatMap((o, i) =>
    (o.line_items ?? []).map((item, position) => ({ orderId: ids[i]!, position, ...item, price: (cents(item.price) / 100).toFixed(2) })),
  );
  const col = <T>(pick: (o: HistoryOrder) => T) => orders.map(pick);
  return db.$executeRaw`
    WITH u AS (
      SELECT * FROM unnest(${ids}::uuid[], ${col((o) => o.order_id)}::text[], ${col((o) => o.customer_id)}::text[],
                           ${col((o) => o.subtotal)}::numeric[], ${col((o) => new Date(o.placed_at).toISOString())}::timestamptz[])
        AS u(id, order_id, customer_id, subtotal, placed_at)
    ), inserted AS (
      INSERT INTO orders (id, merchant_id, platform_order_id, customer_id, subtotal, currency, placed_at, history, created_at)
      SELECT u.id, ${merchantId}::uuid, u.order_id, c.id, u.subtotal, ${currency}, u.placed_at, true, ${now}::timestamptz
        FROM u JOIN customers c ON c.merchant_id = ${merchantId}::uuid AND c.platform_id = u.customer_id
      ON CONFLICT (merchant_id, platform_order_id) DO NOTHING
      RETURNING id, customer_id, subtotal
    ), lines AS (
      INSERT INTO order_lines (merchant_id, order_id, position, product_id, quantity, price)
      SELECT ${merchantId}::uuid, l.order_id, l.position, l.product_id, l.quantity, l.price
        FROM unnest(${lines.map((l) => l.orderId)}::uuid[], ${lines.map((l) => l.position)}::int[],
                    ${lines.map((l) => l.product_id)}::text[], ${lines.map((l) => l.quantity)}::int[], ${lines.map((l) => l.price)}::numeric[])
          AS l(order_id, position, product_id, quantity, price)
       WHERE l.order_id IN (SELECT id FROM inserted)
    )
    UPDATE customers c SET amount_spent = c.amount_spent + s.subtotal, updated_at = ${now}::timestamptz
      FROM (SELECT customer_id, sum(subtotal) AS subtotal FROM inserted GROUP BY customer_id) s
     WHERE c.merchant_id = ${merchantId}::uuid AND c.id = s.customer_id`;
}

/**
 * Records `orders` through the engine, oldest placed first (so limits and tiers count them in
 * their order), each in its own database transaction: a failure leaves the ones before it
 * recorded, and importing the same orders again records the rest.
 */
export async function awardHistory(db: Db, merchantId: string, orders: FileOrder[]): Promise<{ recorded: number; points: number }> {
  const byPlacedTime = [...orders].sort((a, b) => Date.parse(a.value.placed_at) - Date.parse(b.value.placed_at) || a.index - b.index);
  let recorded = 0;
  let points = 0;
  for (const { index, value } of byPlacedTime) {
    const { placed_at, ...cart } = value;
    try {
      const result = await recordOrder(db, merchantId, { ...cart, created_at: placed_at });
      if (!result.replayed) {
        recorded += 1;
        points += result.points_awarded;
      }
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const details =
        err.details &&
        Object.fromEntries(Object.entries(err.details).map(([k, v]) => [`orders.${index}.${k === 'created_at' ? 'placed_at' : k}`, v]));
      throw new AppError(
        err.code,
        `orders.${index} (${value.order_id}) was not recorded: ${err.message}. The ${recorded} orders placed before it were; import the file's orders again to record the rest`,
        details,
      );
    }
  }
  return { recorded, points };
}
