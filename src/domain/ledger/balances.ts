// A customer's points balance.
import type { Db } from '../../db/client.js';
import { rowsOf } from '../../db/sql.js';
import { type Customer, Prisma } from '../../generated/prisma/client.js';
import { pointsExpireAt } from './expiry.js';

type Holder = Pick<Customer, 'id' | 'merchantId' | 'pointsBalance' | 'pointsEarned' | 'pointsSpent' | 'lastActivityAt' | 'createdAt'>;

/** The balances of customers of one merchant, in as many statements as one's. */
export async function balancesOf(db: Db, customers: readonly Holder[]) {
  const merchantId = customers[0]?.merchantId;
  if (!merchantId) return [];
  // the merchant's expiry setting and each customer's pending points, in one statement; both
  // parts name the merchant (on a cluster, a subquery correlated with the merchants reference
  // table is refused, and the customers' shard is found by the merchant's id)
  const [merchant] = await rowsOf<{ pointsExpiryDays: number | null; timezone: string; pending: Record<string, number> }>(
    db,
    Prisma.sql`
      SELECT m.points_expiry_days AS "pointsExpiryDays", m.timezone,
             (SELECT coalesce(json_object_agg(p.customer_id, p.points), '{}')
                FROM (SELECT customer_id, sum(points_change)::int AS points FROM activities
                       WHERE merchant_id = ${merchantId}::uuid AND customer_id = ANY(${customers.map((c) => c.id)}::uuid[]) AND status = 'pending'
                       GROUP BY customer_id) p) AS pending
        FROM merchants m WHERE m.id = ${merchantId}::uuid`,
  );
  if (!merchant) throw new Error(`merchant ${merchantId} not found`);
  return customers.map((customer) => {
    // With expiry on, the whole balance lapses after N local days without activity.
    const since = customer.lastActivityAt ?? customer.createdAt;
    const nextExpiry =
      merchant.pointsExpiryDays && customer.pointsBalance > 0
        ? { points: customer.pointsBalance, expires_at: pointsExpireAt(since, merchant.pointsExpiryDays, merchant.timezone) }
        : null;
    return {
      customer_id: customer.id,
      points_balance: customer.pointsBalance,
      points_earned: customer.pointsEarned,
      points_spent: customer.pointsSpent,
      points_pending: merchant.pending[customer.id] ?? 0,
      next_expiry: nextExpiry,
    };
  });
}

export async function balanceOf(db: Db, customer: Holder) {
  const [balance] = await balancesOf(db, [customer]);
  return balance!;
}
export type Balance = Awaited<ReturnType<typeof balanceOf>>;
