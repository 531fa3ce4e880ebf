// A customer's points balance.
import type { Db } from '../../db/client.js';
import { rowsOf } from '../../db/sql.js';
import { type Customer, Prisma } from '../../generated/prisma/client.js';
import type { CustomerPart } from '../customers/customer-parts.js';
import type { Program } from '../merchants/program.js';
import { pointsExpireAt } from './expiry.js';

type Holder = Pick<Customer, 'id' | 'merchantId' | 'pointsBalance' | 'pointsEarned' | 'pointsSpent' | 'lastActivityAt' | 'createdAt'>;

/** A customer's balance, in one statement. */
export async function balanceOf(db: Db, customer: Holder) {
  const { merchantId } = customer;
  // the merchant's expiry setting and the customer's pending points, in one statement; both
  // parts name the merchant (on a cluster, a subquery correlated with the merchants reference
  // table is refused, and the customers' shard is found by the merchant's id)
  const [merchant] = await rowsOf<{ pointsExpiryDays: number | null; timezone: string; pending: Record<string, number> }>(
    db,
    Prisma.sql`
      SELECT m.points_expiry_days AS "pointsExpiryDays", m.timezone,
             (SELECT coalesce(json_object_agg(p.customer_id, p.points), '{}')
                FROM (SELECT customer_id, sum(points_change)::int AS points FROM activities
                       WHERE merchant_id = ${merchantId}::uuid AND customer_id = ANY(${[customer.id]}::uuid[]) AND status = 'pending'
                       GROUP BY customer_id) p) AS pending
        FROM merchants m WHERE m.id = ${merchantId}::uuid`,
  );
  if (!merchant) throw new Error(`merchant ${merchantId} not found`);
  return balanceFrom(customer, merchant.pending[customer.id] ?? 0, merchant.pointsExpiryDays, merchant.timezone);
}

function balanceFrom(customer: Holder, pending: number, expiryDays: number | null, zone: string) {
  // With expiry on, the whole balance lapses after N local days without activity.
  const since = customer.lastActivityAt ?? customer.createdAt;
  return {
    customer_id: customer.id,
    points_balance: customer.pointsBalance,
    points_earned: customer.pointsEarned,
    points_spent: customer.pointsSpent,
    points_pending: pending,
    next_expiry:
      expiryDays && customer.pointsBalance > 0
        ? { points: customer.pointsBalance, expires_at: pointsExpireAt(since, expiryDays, zone) }
        : null,
  };
}

/**
 * A customer's balance read beside it in its own statement (its pending points are one value of
 * the statement), its expiry in `program`'s calendar.
 */
export function balancePart(merchantId: string, program: Pick<Program, 'pointsExpiryDays' | 'zone'>): CustomerPart<Balance> {
  return {
    sql: (c) => Prisma.sql`(
      SELECT coalesce(sum(points_change), 0)::int FROM activities
       WHERE merchant_id = ${merchantId}::uuid AND customer_id = ${c.id} AND status = 'pending')`,
    read: (pending, customer) => balanceFrom(customer, pending as number, program.pointsExpiryDays, program.zone),
  };
}

export type Balance = ReturnType<typeof balanceFrom>;
