// The customer-visible activity log: the one way a row is written, and
// the list, newest first by when it happened.
import type { Db } from '../../db/client.js';
import { columnsOf, timeFieldsOf } from '../../db/sql.js';
import { type Activity, Prisma } from '../../generated/prisma/client.js';
import { ownRows } from '../customers/customer-parts.js';
import { type ConnectedList, type PageArgs, paginateOne } from '../shared/pagination.js';

/** A bound parameter, or SQL over the columns of the statement's `from` (Prisma.sql`points_balance`). */
type Value = Prisma.Sql | string | number | Date | null;

export interface ActivityRow {
  id: Value;
  merchantId: string;
  customerId: Value;
  /** A campaign type, or adjustment, redemption, referral, expiry, tier_change, import. */
  type: Value;
  description: Value;
  pointsChange: Value;
  balanceAfter: Value;
  reference: { kind: Value; id: Value };
  /** occurred_at and created_at; by default the statement's now(). */
  at?: Value;
  /** occurred_at when the activity happened before it was recorded (`at`). */
  occurredAt?: Value;
  /** approved by default; pending: points held, not yet a ledger transaction (pending.ts). */
  status?: 'approved' | 'pending';
}

const value = (v: Value) => (v instanceof Prisma.Sql ? Prisma.sql`(${v})` : v);

/**
 * `INSERT INTO activities … SELECT … [FROM from]`: the one way an activity row is written. Each
 * writer embeds it in its own statement (a ledger change, a redemption, a tier change, an
 * import), so the row exists exactly when that statement's other writes do: one statement,
 * never a second one or an interactive transaction (see ledger.ts). With `from`, one row per
 * row of `from`; without, one row.
 */
export function insertActivity(row: ActivityRow, from?: Prisma.Sql): Prisma.Sql {
  const at = value(row.at ?? Prisma.sql`now()`);
  const occurredAt = row.occurredAt === undefined ? at : value(row.occurredAt);
  return Prisma.sql`
    INSERT INTO activities
      (id, merchant_id, customer_id, type, description, points_change, balance_after, status,
       reference_kind, reference_id, occurred_at, created_at)
    SELECT ${value(row.id)}::uuid, ${row.merchantId}::uuid, ${value(row.customerId)}::uuid, ${value(row.type)}::text,
           ${value(row.description)}::text, ${value(row.pointsChange)}::int, ${value(row.balanceAfter)}::int,
           ${row.status ?? 'approved'}::"ActivityStatus", ${value(row.reference.kind)}::text, ${value(row.reference.id)}::text,
           ${occurredAt}::timestamptz, ${at}::timestamptz
    ${from ? Prisma.sql`FROM ${from}` : Prisma.empty}`;
}

/** A customer's log, newest first by when it happened. */
const activityLog: ConnectedList<Activity> = {
  table: 'activities',
  ownerType: 'uuid',
  where: (customer) => Prisma.sql`customer_id = ${customer}`,
  order: 'occurred_at DESC, created_at DESC, id DESC',
  // kept by a trigger (migration customer_activity_count), as the history's
  total: (customer, merchant) =>
    Prisma.sql`SELECT activity_count AS _total FROM customers WHERE merchant_id = ${merchant} AND id = ${customer}`,
  keyset: 'occurred_at, created_at, id',
  name: 'activities',
  orderIndexed: true,
  columns: columnsOf(Prisma.ActivityScalarFieldEnum, 'x'),
  times: timeFieldsOf('Activity'),
  fields: Object.keys(Prisma.ActivityScalarFieldEnum),
};

export function listActivities(db: Db, merchantId: string, customerId: string, args: PageArgs) {
  return paginateOne(db, merchantId, customerId, args, activityLog);
}

/** The customer's log as the graph's links read it, beside the customer. */
export const activityRows = ownRows(activityLog);
