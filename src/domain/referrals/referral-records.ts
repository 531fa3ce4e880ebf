// What the public API reads of referrals: a customer's referrals (as referrer) and the
// merchant's referral program (DESIGN.md "Referral", "Referral program").
import type { Db } from '../../db/client.js';
import { AppError } from '../shared/errors.js';
import { type PageArgs, paginate } from '../shared/pagination.js';
import type { RewardRule } from '../rewards/rewards.js';

export function listReferrals(db: Db, merchantId: string, referrerId: string, args: PageArgs) {
  const where = { merchantId, referrerId };
  return paginate(
    args,
    (p) =>
      db.referral.findMany({
        where,
        // the referee's platform id, in the same query
        include: { referee: { select: { platformId: true } } },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        ...p,
      }),
    () => db.referral.count({ where }),
  );
}

export type ReferralRecord = Awaited<ReturnType<typeof listReferrals>>['data'][number];

/** The merchant's referral program, active or not; a merchant without one gets 404. */
export async function referralProgramOf(db: Db, merchantId: string) {
  const program = await db.referralProgram.findUnique({ where: { merchantId } });
  if (!program) throw new AppError('not_found', 'This merchant has no referral program');
  return {
    is_active: program.isActive,
    referrer_reward: { points: program.referrerPoints },
    referee_reward: {
      reward_type: program.refereeRewardType,
      // the referee's reward is given, not bought: it costs no points
      reward_rule: { ...(program.refereeRewardRule as RewardRule), points_required: 0 },
    },
    min_order_subtotal: program.minOrderSubtotal === null ? null : Number(program.minOrderSubtotal),
    share_url_template: program.shareUrlTemplate,
  };
}

export type ReferralProgramView = Awaited<ReturnType<typeof referralProgramOf>>;
