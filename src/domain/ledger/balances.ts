// A customer's points balance (DESIGN.md "Balance").
import type { Db } from '../../db/client.js';
import type { Customer } from '../../generated/prisma/client.js';
import { pointsExpireAt } from './expiry.js';

export async function balanceOf(db: Db, customer: Customer) {
  const [merchant, pending] = await Promise.all([
    db.merchant.findUniqueOrThrow({ where: { id: customer.merchantId }, select: { pointsExpiryDays: true, timezone: true } }),
    db.activity.aggregate({
      where: { merchantId: customer.merchantId, customerId: customer.id, status: 'pending' },
      _sum: { pointsChange: true },
    }),
  ]);
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
    points_pending: pending._sum.pointsChange ?? 0,
    next_expiry: nextExpiry,
  };
}
export type Balance = Awaited<ReturnType<typeof balanceOf>>;
