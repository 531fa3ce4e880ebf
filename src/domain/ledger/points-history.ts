// A customer's points transaction history, newest first.
import type { Db } from '../../db/client.js';
import { columnsOf } from '../../db/sql.js';
import { type PointsTransaction, Prisma } from '../../generated/prisma/client.js';
import { type ConnectedList, type CursorArgs, connectEach, type PageArgs, paginateEach, paginateOne } from '../shared/pagination.js';

const history: ConnectedList<PointsTransaction> = {
  table: 'points_transactions',
  ownerType: 'uuid',
  where: (customer) => Prisma.sql`customer_id = ${customer}`,
  order: 'created_at DESC, id DESC',
  // kept by a trigger (migration customer_transaction_count): a deep history is not counted
  total: (customer, merchant) =>
    Prisma.sql`SELECT transaction_count AS _total FROM customers WHERE id = ${customer} AND merchant_id = ${merchant}`,
  keyset: 'created_at, id',
  name: 'transactions',
  orderIndexed: true,
  columns: columnsOf(Prisma.PointsTransactionScalarFieldEnum, 'x'),
};

export function listTransactions(db: Db, merchantId: string, customerId: string, args: PageArgs) {
  return paginateOne(db, merchantId, customerId, args, history);
}

/** The same page of each customer's history, in as many statements as one. */
export function transactionPages(db: Db, merchantId: string, customerIds: readonly string[], args: PageArgs) {
  return paginateEach(db, merchantId, customerIds, args, history);
}

/** Each customer's history after a cursor, in as many statements as one's. */
export function transactionConnections(db: Db, merchantId: string, customerIds: readonly string[], args: CursorArgs) {
  return connectEach(db, merchantId, customerIds, args, history);
}
