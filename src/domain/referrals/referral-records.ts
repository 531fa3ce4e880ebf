// What the public API reads of referrals: a customer's referrals, as referrer
// (DESIGN.md "Referral").
import type { Db } from '../../db/client.js';
import { type PageArgs, newestFirst, paginate } from '../shared/pagination.js';

export function listReferrals(db: Db, merchantId: string, referrerId: string, args: PageArgs) {
  const where = { merchantId, referrerId };
  return paginate(
    args,
    (p) =>
      db.referral.findMany({
        where,
        // the referee's platform id, in the same query
        include: { referee: { select: { platformId: true } } },
        orderBy: newestFirst,
        ...p,
      }),
    () => db.referral.count({ where }),
  );
}

export type ReferralRecord = Awaited<ReturnType<typeof listReferrals>>['data'][number];
