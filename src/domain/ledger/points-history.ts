// A customer's points transaction history (DESIGN.md "Points transaction"), newest first.
import type { Db } from '../../db/client.js';
import { type PageArgs, newestFirst, paginate } from '../shared/pagination.js';

export function listTransactions(db: Db, merchantId: string, customerId: string, args: PageArgs) {
  const where = { merchantId, customerId };
  return paginate(
    args,
    (p) => db.pointsTransaction.findMany({ where, orderBy: newestFirst, ...p }),
    () => db.pointsTransaction.count({ where }),
  );
}
