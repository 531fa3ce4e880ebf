// Referrals: a customer shares their referral code; `recordReferral` registers the friend's
// email as pending; the friend's first qualifying order (at least the program's minimum
// subtotal) completes it, issues the friend the program's referee reward (a code, costing no
// points) and credits the referrer the program's points. Refunding that order until it no
// longer qualifies reverses the referral and claws the referrer's points back.
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { type Customer, Prisma, type Referral, type ReferralProgram } from '../../generated/prisma/client.js';
import { customerIdsByEmail } from '../customers/customers.js';
import { insertActivity } from '../ledger/activity-log.js';
import { clawBack, reversalDescription } from '../ledger/claw-back.js';
import { tryApplyPoints } from '../ledger/ledger.js';
import { codeExpiry, withFreshCode } from '../rewards/redemption.js';
import { AppError, notFound } from '../shared/errors.js';
import { asciiUpper, identifier } from '../shared/fields.js';
import { rowKey } from '../shared/keys.js';
import { apiFields } from '../shared/model-fields.js';
import { parseInput } from '../shared/validation.js';
import { reevaluateTier } from '../tiers/standing.js';

const referralInput = z.object({
  referrer_code: identifier(64),
  referee_email: z
    .email()
    .max(320)
    .transform((e) => e.toLowerCase()),
});
export type ReferralInput = z.input<typeof referralInput>;

const rejected = (message: string) => new AppError('referral_rejected', message);

function referralView(
  referral: Referral & { referee?: { platformId: string } | null },
  referrer: Pick<Customer, 'platformId'>,
  replayed: boolean,
) {
  return {
    ...apiFields(referral, ['id', 'refereeEmail', 'status', 'referrerPoints', 'orderId', 'createdAt', 'completedAt']),
    // customers are named by their platform ids, never the internal uuids
    referrer_customer_id: referrer.platformId,
    referee_customer_id: referral.referee?.platformId ?? null,
    replayed,
  };
}
export type ReferralResult = ReturnType<typeof referralView>;

/**
 * Registers a pending referral. Refused (422 referral_rejected): an inactive program, a
 * self-referral, an email that is already a customer or was referred by someone else.
 * The same referrer sending the same email again gets the existing referral back.
 */
export async function recordReferral(db: Db, merchantId: string, raw: ReferralInput): Promise<ReferralResult> {
  const input = parseInput(referralInput, raw);
  const [referrer, program] = await Promise.all([
    db.customer.findFirst({
      // codes are upper-case letters and digits: an exact match uses the unique index (ASCII
      // letters only are upper-cased: Unicode sends U+017F LONG S to S)
      where: { merchantId, referralCode: asciiUpper(input.referrer_code) },
    }),
    db.referralProgram.findUnique({ where: { merchantId }, select: { isActive: true } }),
  ]);
  if (!referrer) throw notFound('Referrer (referral code)');
  // referee emails are stored lower-cased (referralInput)
  const email = input.referee_email;
  for (;;) {
    const existing = await db.referral.findFirst({
      where: { merchantId, refereeEmail: email },
      include: { referee: { select: { platformId: true } } },
    });
    if (existing?.referrerId === referrer.id) return referralView(existing, referrer, true);
    if (!program?.isActive) throw rejected('The referral program is not active');
    if (referrer.email.toLowerCase() === input.referee_email) throw rejected('A customer cannot refer themselves');
    if (referrer.status === 'excluded') throw rejected('This customer cannot refer friends');
    if ((await customerIdsByEmail(db, merchantId, email)).length) {
      throw rejected(`${input.referee_email} is already a customer`);
    }
    if (existing) throw rejected(`${input.referee_email} was already referred`);
    const [created] = await db.referral.createManyAndReturn({
      data: [{ merchantId, referrerId: referrer.id, refereeEmail: input.referee_email }],
      skipDuplicates: true,
    });
    if (created) return referralView(created, referrer, false);
    // a concurrent referral of the same email won: judge against it
  }
}

/**
 * The reward the referee's codes are issued for: a reward row of the program's referee reward
 * (referral_reward: never in the catalogue, never redeemable), made when first needed and again
 * when the program's referee reward changed, so codes issued before keep what they were.
 */
async function refereeRewardId(db: Db, program: ReferralProgram): Promise<string> {
  if (program.refereeRewardId) {
    const current = await db.reward.findUnique({
      where: rowKey(program.merchantId, program.refereeRewardId),
      select: { rewardType: true, rewardRule: true },
    });
    if (current?.rewardType === program.refereeRewardType && isDeepStrictEqual(current.rewardRule, program.refereeRewardRule)) {
      return program.refereeRewardId;
    }
  }
  const reward = await db.reward.create({
    data: {
      merchantId: program.merchantId,
      name: 'Referral reward',
      description: "A referred friend's reward for their first qualifying order",
      rewardType: program.refereeRewardType,
      pointsCost: 0,
      rewardRule: program.refereeRewardRule as Prisma.InputJsonValue,
      isActive: false,
      referralReward: true,
    },
  });
  const adopted = await db.$executeRaw`
    UPDATE referral_programs SET referee_reward_id = ${reward.id}::uuid
     WHERE merchant_id = ${program.merchantId}::uuid AND id = ${program.id}::uuid
       AND referee_reward_id IS NOT DISTINCT FROM ${program.refereeRewardId}::uuid`;
  if (adopted) return reward.id;
  // a concurrent completion replaced it first: use theirs
  await db.reward.deleteMany({ where: { merchantId: program.merchantId, id: reward.id } });
  return refereeRewardId(db, await db.referralProgram.findUniqueOrThrow({ where: rowKey(program.merchantId, program.id) }));
}

/**
 * Completes the referral and issues the referee's reward code in one statement, so the code
 * exists exactly when the referral completed (once: only while it is still pending).
 */
function completeStatement(
  db: Db,
  referral: Referral,
  referee: Pick<Customer, 'id'>,
  order: { orderId: string },
  program: ReferralProgram,
  rewardId: string,
  code: string,
) {
  const customerRewardId = randomUUID();
  return db.$queryRaw<{ id: string }[]>`
    WITH completed AS (
      UPDATE referrals
         SET status = 'completed'::"ReferralStatus", referee_id = ${referee.id}::uuid, order_id = ${order.orderId},
             completed_at = now(), referrer_points = ${program.referrerPoints}::int
       WHERE merchant_id = ${referral.merchantId}::uuid AND id = ${referral.id}::uuid AND status = 'pending'::"ReferralStatus"
      RETURNING id
    ), issued AS (
      INSERT INTO customer_rewards
        (id, merchant_id, customer_id, reward_id, code, status, points_spent, issued_at, expires_at)
      SELECT ${customerRewardId}::uuid, ${referral.merchantId}::uuid, ${referee.id}::uuid, r.id, ${code},
             'issued'::"CustomerRewardStatus", 0, now(), ${codeExpiry}
        FROM completed, rewards r
       WHERE r.merchant_id = ${referral.merchantId}::uuid AND r.id = ${rewardId}::uuid
      RETURNING id
    ), act AS (${insertActivity(
      {
        id: randomUUID(),
        merchantId: referral.merchantId,
        customerId: referee.id,
        type: 'referral',
        description: 'Referral reward: a welcome reward for your first order',
        pointsChange: 0,
        balanceAfter: Prisma.sql`SELECT points_balance FROM customers WHERE merchant_id = ${referral.merchantId}::uuid AND id = ${referee.id}::uuid`,
        reference: { kind: 'customer_reward', id: customerRewardId },
      },
      Prisma.sql`issued`,
    )}
      RETURNING id
    )
    SELECT id::text FROM completed`;
}

/**
 * Completes the pending referral of `referee` when `order` qualifies: the referral is
 * claimed by a conditional update (so it completes once) together with the referee's reward
 * code, then the referrer is credited.
 */
export async function completeReferral(
  db: Db,
  merchantId: string,
  referee: Pick<Customer, 'id' | 'email'>,
  order: { orderId: string; subtotal: number },
) {
  const referral = await db.referral.findFirst({
    where: {
      merchantId,
      status: 'pending',
      OR: [{ refereeId: referee.id }, { refereeEmail: referee.email.toLowerCase() }],
    },
  });
  if (!referral || referral.referrerId === referee.id) return null;
  const program = await db.referralProgram.findUnique({ where: { merchantId } });
  if (!program?.isActive) return null;
  if (program.minOrderSubtotal !== null && order.subtotal < Number(program.minOrderSubtotal)) return null;

  const rewardId = await refereeRewardId(db, program);
  const completed = await withFreshCode(db, (db, code) => completeStatement(db, referral, referee, order, program, rewardId, code));
  if (completed.length === 0) return null;
  if (program.referrerPoints > 0) {
    await tryApplyPoints(db, {
      merchantId,
      customerId: referral.referrerId,
      points: program.referrerPoints,
      description: 'Referral reward: a friend you referred placed their first order',
      source: 'referral',
      activityType: 'referral',
      reference: { kind: 'referral', id: referral.id },
    });
    await reevaluateTier(db, merchantId, referral.referrerId);
  }
  return { referral_id: referral.id, referrer_points: program.referrerPoints };
}

/**
 * After a refund of the order `orderId` (its internal id): when that order completed a
 * referral and no longer qualifies (refunded in full, or what is left of it is under the
 * program's minimum subtotal), the referral is reversed once (status `rejected`, claimed by a
 * conditional update) and the referrer's points are clawed back as a refund claws back an
 * order's: min(points, balance), the shortfall noted. Null when nothing was reversed.
 */
export async function reverseReferral(db: Db, merchantId: string, orderId: string) {
  const order = await db.order.findUniqueOrThrow({ where: rowKey(merchantId, orderId) });
  const referral = await db.referral.findFirst({
    where: { merchantId, status: 'completed', refereeId: order.customerId, orderId: order.platformOrderId },
  });
  if (!referral) return null;
  const left = Number(order.subtotal) - Number(order.refundedAmount);
  if (left > 0) {
    const program = await db.referralProgram.findUnique({ where: { merchantId }, select: { minOrderSubtotal: true } });
    const min = program?.minOrderSubtotal == null ? 0 : Number(program.minOrderSubtotal);
    if (left >= min) return null;
  }
  const { count } = await db.referral.updateMany({
    where: { merchantId, id: referral.id, status: 'completed' },
    data: { status: 'rejected' },
  });
  if (count === 0) return null;
  const clawed = await clawBack(db, {
    merchantId,
    customerId: referral.referrerId,
    owed: referral.referrerPoints ?? 0,
    describe: (shortfall) =>
      reversalDescription(`Referral reversed: the referred friend's order ${order.platformOrderId} was refunded`, shortfall),
    source: 'referral',
    activityType: 'referral',
    reference: { kind: 'referral', id: referral.id },
  });
  return { referral_id: referral.id, points_clawed_back: clawed.debited };
}
