// Booster campaigns (DESIGN.md "Booster campaign"): multipliers on earning rules for a period.
import type { Db } from '../../db/client.js';
import { type PageArgs, paginate } from '../shared/pagination.js';

/** The one definition of a booster in force at `at`: active, started, not yet ended. */
export function currentBoostersWhere(merchantId: string, at: Date) {
  return {
    merchantId,
    isActive: true,
    startsAt: { lte: at },
    OR: [{ endsAt: null }, { endsAt: { gt: at } }],
  };
}

export function listCurrentBoosters(db: Db, merchantId: string, args: PageArgs, at = new Date()) {
  const where = currentBoostersWhere(merchantId, at);
  return paginate(
    args,
    (p) => db.boosterCampaign.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...p }),
    () => db.boosterCampaign.count({ where }),
  );
}
