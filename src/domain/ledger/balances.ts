// A customer's points balance (DESIGN.md "Balance").
import type { Db } from '../../db/client.js';
import type { Customer } from '../../generated/prisma/client.js';
import { pointsExpireAt } from './expiry.js';

type Holder = Pick<Customer, 'id' | 'merchantId' | 'pointsBalance' | 'pointsEarned' | 'pointsSpent' | 'lastActivityAt' | 'createdAt'>;

/** The balances of customers of one merchant, in as many statements as one's. */
export async function balancesOf(db: Db, customers: readonly Holder[]) {
  const merchantId = customers[0]?.merchantId;
  if (!merchantId) return [];
  const [merchant, pending] = await Promise.all([
    db.merchant.findUniqueOrThrow({ where: { id: merchantId }, select: { pointsExpiryDays: true, timezone: true } }),
    db.activity.groupBy({
      by: ['customerId'],
      where: { merchantId, customerId: { in: customers.map((c) => c.id) }, status: 'pending' },
      _sum: { pointsChange: true },
    }),
  ]);
  const pendingOf = new Map(pending.map((p) => [p.customerId, p._sum.pointsChange ?? 0]));
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
      points_pending: pendingOf.get(customer.id) ?? 0,
      next_expiry: nextExpiry,
    };
  });
}

export async function balanceOf(db: Db, customer: Holder) {
  const [balance] = await balancesOf(db, [customer]);
  return balance!;
}
export type Balance = Awaited<ReturnType<typeof balanceOf>>;
