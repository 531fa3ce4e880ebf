// A customer's points transaction history, newest first.
import type { Db } from '../../db/client.js';
import { columnsOf, timeFieldsOf } from '../../db/sql.js';
import { type PointsTransaction, Prisma } from '../../generated/prisma/client.js';
import { ownRows } from '../customers/customer-parts.js';
import { type ConnectedList, type PageArgs, paginateOne } from '../shared/pagination.js';

const history: ConnectedList<PointsTransaction> = {
  table: 'points_transactions',
  ownerType: 'uuid',
  where: (customer) => Prisma.sql`customer_id = ${customer}`,
  order: 'created_at DESC, id DESC',
  // kept by a trigger (migration customer_transaction_count): a deep history is not counted
  total: (customer, merchant) =>
    Prisma.sql`SELECT transaction_count AS _total FROM customers WHERE merchant_id = ${merchant} AND id = ${customer}`,
  keyset: 'created_at, id',
  name: 'transactions',
  orderIndexed: true,
  columns: columnsOf(Prisma.PointsTransactionScalarFieldEnum, 'x'),
  times: timeFieldsOf('PointsTransaction'),
  fields: Object.keys(Prisma.PointsTransactionScalarFieldEnum),
};

export function listTransactions(db: Db, merchantId: string, customerId: string, args: PageArgs) {
  return paginateOne(db, merchantId, customerId, args, history);
}

/** The customer's history as the graph's links read it, beside the customer. */
export const transactionRows = ownRows(history);
