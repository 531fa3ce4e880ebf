// Referrals: a customer shares their referral code; `recordReferral` registers the friend's
// email as pending; the friend's first qualifying order (at least the program's minimum
// subtotal) completes it and credits the referrer the program's points.
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import type { Customer, Referral } from '../../generated/prisma/client.js';
import { customerIdsByEmail } from '../customers/customers.js';
import { tryApplyPoints } from '../ledger/ledger.js';
import { AppError, notFound } from '../shared/errors.js';
import { parseInput } from '../shared/validation.js';
import { reevaluateTier } from '../tiers/standing.js';

const referralInput = z.object({
  referrer_code: z.string().trim().min(1, 'is required').max(64),
  referee_email: z.email().max(320).transform((e) => e.toLowerCase()),
});
export type ReferralInput = z.input<typeof referralInput>;

const rejected = (message: string) => new AppError('referral_rejected', message);

function referralView(
  referral: Referral & { referee?: { platformId: string } | null },
  referrer: Pick<Customer, 'platformId'>,
  replayed: boolean,
) {
  return {
    id: referral.id,
    referrer_customer_id: referrer.platformId,
    referee_email: referral.refereeEmail,
    referee_customer_id: referral.referee?.platformId ?? null,
    status: referral.status,
    referrer_points: referral.referrerPoints,
    order_id: referral.orderId,
    created_at: referral.createdAt,
    completed_at: referral.completedAt,
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
      // codes are upper-case letters and digits: an exact match uses the unique index
      where: { merchantId, referralCode: input.referrer_code.toUpperCase() },
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
 * Completes the pending referral of `referee` when `order` qualifies: the referral is
 * claimed by a conditional update (so it completes once), then the referrer is credited.
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

  const completedAt = new Date();
  const { count } = await db.referral.updateMany({
    where: { id: referral.id, status: 'pending' },
    data: {
      status: 'completed',
      refereeId: referee.id,
      orderId: order.orderId,
      completedAt,
      referrerPoints: program.referrerPoints,
    },
  });
  if (count === 0) return null;
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
