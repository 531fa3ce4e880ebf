// VIP tiers (DESIGN.md "Tier"): the merchant's ladder, ordered by position. A customer's
// place on it is judged in standing.ts.
import type { Db } from '../../db/client.js';
import { type PageArgs, paginate } from '../shared/pagination.js';

const tierOrder = [{ position: 'asc' as const }, { id: 'asc' as const }];

/** The merchant's tiers, lowest position first. */
export function allTiers(db: Db, merchantId: string) {
  return db.tier.findMany({ where: { merchantId }, orderBy: tierOrder });
}

/** `GET /tiers`: the tier ladder, lowest position first. */
export function listTiers(db: Db, merchantId: string, args: PageArgs) {
  return paginate(
    args,
    (p) => db.tier.findMany({ where: { merchantId }, orderBy: tierOrder, ...p }),
    () => db.tier.count({ where: { merchantId } }),
  );
}
