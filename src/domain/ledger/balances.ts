// A customer's points balance.
import type { Db } from '../../db/client.js';
import { rowsOf } from '../../db/sql.js';
import { type Customer, Prisma } from '../../generated/prisma/client.js';
import type { CustomerPart } from '../customers/customer-parts.js';
import { type Program, readProgram } from '../merchants/program.js';
import { pointsExpireAt } from './expiry.js';

type Holder = Pick<Customer, 'id' | 'merchantId' | 'pointsBalance' | 'pointsEarned' | 'pointsSpent' | 'lastActivityAt' | 'createdAt'>;

/**
 * A customer's balance: its pending points in one statement, its expiry in `program`'s calendar
 * (the merchant's, read when not given). The statement reads one table by the merchant's id, the
 * shape a Citus worker plans cheapest (one shard query, no join); the merchant's settings come
 * from its program (cached on the public face) instead of a join with the merchants table.
 */
export async function balanceOf(db: Db, customer: Holder, program?: Pick<Program, 'pointsExpiryDays' | 'zone'>) {
  const { merchantId } = customer;
  const [settings, [pending]] = await Promise.all([
    program ?? readProgram(db, merchantId),
    rowsOf<{ points: number }>(
      db,
      Prisma.sql`
        SELECT coalesce(sum(points_change), 0)::int AS points FROM activities
         WHERE merchant_id = ${merchantId}::uuid AND customer_id = ${customer.id}::uuid AND status = 'pending'`,
    ),
  ]);
  return balanceFrom(customer, pending?.points ?? 0, settings.pointsExpiryDays, settings.zone);
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
