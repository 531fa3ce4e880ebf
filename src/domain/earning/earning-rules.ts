// Earning rules ("ways to earn", spec 2.1): the active rules as the public API lists them.
// What a rule stores and how it is judged are in rule-config.ts and calculator.ts.
import type { Db } from '../../db/client.js';
import type { CampaignType } from '../../generated/prisma/enums.js';
import { type PageArgs, paginate } from '../shared/pagination.js';

export function listEarningRules(
  db: Db,
  merchantId: string,
  args: PageArgs & { campaign_type?: CampaignType | null },
) {
  const where = { merchantId, isActive: true, ...(args.campaign_type ? { campaignType: args.campaign_type } : {}) };
  return paginate(
    args,
    (p) => db.earningRule.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...p }),
    () => db.earningRule.count({ where }),
  );
}
