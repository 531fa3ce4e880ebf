// The customer-visible activity log (DESIGN.md "Activity"), newest first by when it happened.
import type { Db } from '../../db/client.js';
import { type PageArgs, paginate } from '../shared/pagination.js';

export function listActivities(db: Db, merchantId: string, customerId: string, args: PageArgs) {
  const where = { merchantId, customerId };
  return paginate(
    args,
    (p) =>
      db.activity.findMany({
        where,
        orderBy: [{ occurredAt: 'desc' }, { createdAt: 'desc' }, { id: 'desc' }],
        ...p,
      }),
    () => db.activity.count({ where }),
  );
}
