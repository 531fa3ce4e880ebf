// Referrals: a customer shares their referral code; `recordReferral` (the integration, for the
// friend) or `referFriend` (the referrer's storefront session) registers the friend's email as
// pending; the friend's first qualifying order (at least the program's minimum subtotal)
// completes it, issues the friend the program's referee reward (a code, costing no points) and
// credits the referrer the program's points. Refunding that order until it no longer qualifies
// reverses the referral and claws the referrer's points back.
// A fraud signal (fraud-signals.ts) at registration or at the friend's order holds the referral
// instead: nothing is issued until the merchant approves it (then as a completion would) or
// rejects it.
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { atomically } from '../../db/transaction.js';
import { type Customer, Prisma, type Referral, type ReferralParty, type ReferralProgram } from '../../generated/prisma/client.js';
import { customerIdsByEmail } from '../customers/customers.js';
import { insertActivity } from '../ledger/activity-log.js';
import { clawBack, reversalDescription } from '../ledger/claw-back.js';
import { tryApplyPoints } from '../ledger/ledger.js';
import { codeExpiry, withFreshCode } from '../rewards/redemption.js';
import { AppError, notFound } from '../shared/errors.js';
import { asciiUpper, identifier } from '../shared/fields.js';
import { rowKey } from '../shared/keys.js';
import { apiFields } from '../shared/model-fields.js';
import { findOwn } from '../shared/records.js';
import { parseInput } from '../shared/validation.js';
import { reevaluateTier } from '../tiers/standing.js';
import {
  completionSignals,
  fraudChecksOf,
  type Identifiers,
  identifierFields,
  plainAddress,
  registrationSignals,
  type Signal,
} from './fraud-signals.js';

const refereeEmail = z
  .email()
  .max(320)
  .transform((e) => e.toLowerCase());
const referralInput = z.object({ referrer_code: identifier(64), referee_email: refereeEmail, ...identifierFields });
export type ReferralInput = z.input<typeof referralInput>;
const referFriendInput = z.object({ referee_email: refereeEmail, device_id: identifierFields.device_id });
type Registered = z.output<typeof referFriendInput> & Identifiers;

type WithReferee = Referral & { referee: { platformId: string } | null };
const withReferee = { referee: { select: { platformId: true } } } as const;

const rejected = (message: string) => new AppError('referral_rejected', message);

function referralView(referral: WithReferee, referrer: Pick<Customer, 'platformId'>, replayed: boolean) {
  return {
    ...apiFields(referral, ['id', 'refereeEmail', 'status', 'referrerPoints', 'orderId', 'createdAt', 'completedAt']),
    signals: referral.signals as unknown as Signal[],
    // customers are named by their platform ids, never the internal uuids
    referrer_customer_id: referrer.platformId,
    referee_customer_id: referral.referee?.platformId ?? null,
    replayed,
  };
}
export type ReferralResult = ReturnType<typeof referralView>;

/**
 * Registers a pending referral (held when a fraud signal fires: fraud-signals.ts), sent by the
 * merchant's integration with the referrer's code. Refused (422 referral_rejected): an inactive
 * program, a self-referral, an email that is already a customer or was referred by someone
 * else. The same referrer sending the same email again gets the existing referral back.
 */
export async function recordReferral(db: Db, merchantId: string, raw: ReferralInput): Promise<ReferralResult> {
  const input = parseInput(referralInput, raw);
  const referrer = await db.customer.findFirst({
    // codes are upper-case letters and digits: an exact match uses the unique index (ASCII
    // letters only are upper-cased: Unicode sends U+017F LONG S to S)
    where: { merchantId, referralCode: asciiUpper(input.referrer_code) },
  });
  if (!referrer) throw notFound('Referrer (referral code)');
  const { referral, replayed } = await registerReferral(db, merchantId, referrer, input, 'referee');
  return referralView(referral, referrer, replayed);
}

/**
 * The signed-in referrer refers a friend from the storefront: the request's client address
 * (TRUST_PROXY decides it) and the page's device id are the referrer's. As recordReferral.
 */
export async function referFriend(db: Db, merchantId: string, referrerId: string, raw: unknown, client: string | null) {
  const input = parseInput(referFriendInput, raw);
  const referrer = await db.customer.findUnique({ where: rowKey(merchantId, referrerId) });
  if (!referrer) throw notFound('Customer');
  const client_ip = client === null ? null : plainAddress(client);
  return (await registerReferral(db, merchantId, referrer, { ...input, client_ip }, 'referrer')).referral;
}

async function registerReferral(
  db: Db,
  merchantId: string,
  referrer: Customer,
  input: Registered,
  registeredBy: ReferralParty,
): Promise<{ referral: WithReferee; replayed: boolean }> {
  const program = await db.referralProgram.findUnique({ where: { merchantId }, select: { isActive: true, fraudChecks: true } });
  // referee emails are stored lower-cased (refereeEmail)
  const email = input.referee_email;
  for (;;) {
    const existing = await db.referral.findFirst({ where: { merchantId, refereeEmail: email }, include: withReferee });
    if (existing?.referrerId === referrer.id) return { referral: existing, replayed: true };
    if (!program?.isActive) throw rejected('The referral program is not active');
    if (referrer.email.toLowerCase() === email) throw rejected('A customer cannot refer themselves');
    if (referrer.status === 'excluded') throw rejected('This customer cannot refer friends');
    if ((await customerIdsByEmail(db, merchantId, email)).length) throw rejected(`${email} is already a customer`);
    if (existing) throw rejected(`${email} was already referred`);
    const signals = await registrationSignals(db, merchantId, fraudChecksOf(program.fraudChecks), {
      referrer,
      refereeEmail: email,
      identifiers: input,
      registeredBy,
    });
    const [created] = await db.referral.createManyAndReturn({
      data: [
        {
          merchantId,
          referrerId: referrer.id,
          refereeEmail: email,
          registeredBy,
          clientIp: input.client_ip ?? null,
          deviceId: input.device_id ?? null,
          paymentFingerprint: input.payment_fingerprint ?? null,
          shippingAddressHash: input.shipping_address_hash ?? null,
          ...(signals.length && { status: 'held', signals: signals as unknown as Prisma.InputJsonValue, heldAt: new Date() }),
        },
      ],
      skipDuplicates: true,
    });
    if (created) return { referral: { ...created, referee: null }, replayed: false };
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
 * exists exactly when the referral completed (once: only while it is still `from`: pending, or
 * held when the merchant approves it).
 */
function completeStatement(
  db: Db,
  referral: Referral,
  refereeId: string,
  orderId: string,
  program: ReferralProgram,
  rewardId: string,
  code: string,
  from: 'pending' | 'held',
) {
  const customerRewardId = randomUUID();
  const approval = from === 'held' ? Prisma.sql`, review = 'approved'::"ReferralReview", reviewed_at = now()` : Prisma.empty;
  return db.$queryRaw<{ id: string }[]>`
    WITH completed AS (
      UPDATE referrals
         SET status = 'completed'::"ReferralStatus", referee_id = ${refereeId}::uuid, order_id = ${orderId},
             completed_at = now(), referrer_points = ${program.referrerPoints}::int ${approval}
       WHERE merchant_id = ${referral.merchantId}::uuid AND id = ${referral.id}::uuid AND status = ${from}::"ReferralStatus"
      RETURNING id
    ), issued AS (
      INSERT INTO customer_rewards
        (id, merchant_id, customer_id, reward_id, code, status, points_spent, issued_at, expires_at)
      SELECT ${customerRewardId}::uuid, ${referral.merchantId}::uuid, ${refereeId}::uuid, r.id, ${code},
             'issued'::"CustomerRewardStatus", 0, now(), ${codeExpiry}
        FROM completed, rewards r
       WHERE r.merchant_id = ${referral.merchantId}::uuid AND r.id = ${rewardId}::uuid
      RETURNING id
    ), act AS (${insertActivity(
      {
        id: randomUUID(),
        merchantId: referral.merchantId,
        customerId: refereeId,
        type: 'referral',
        description: 'Referral reward: a welcome reward for your first order',
        pointsChange: 0,
        balanceAfter: Prisma.sql`SELECT points_balance FROM customers WHERE merchant_id = ${referral.merchantId}::uuid AND id = ${refereeId}::uuid`,
        reference: { kind: 'customer_reward', id: customerRewardId },
      },
      Prisma.sql`issued`,
    )}
      RETURNING id
    )
    SELECT id::text FROM completed`;
}

/**
 * Issues both rewards of `referral` while it is still `from`: the referral is claimed by a
 * conditional update together with the referee's reward code, then the referrer is credited.
 * Null when it was no longer `from` (completed, held or decided meanwhile).
 */
async function issueRewards(
  db: Db,
  program: ReferralProgram,
  referral: Referral,
  refereeId: string,
  orderId: string,
  from: 'pending' | 'held',
) {
  const rewardId = await refereeRewardId(db, program);
  const completed = await withFreshCode(db, (db, code) =>
    completeStatement(db, referral, refereeId, orderId, program, rewardId, code, from),
  );
  if (completed.length === 0) return null;
  if (program.referrerPoints > 0) {
    await tryApplyPoints(db, {
      merchantId: program.merchantId,
      customerId: referral.referrerId,
      points: program.referrerPoints,
      description: 'Referral reward: a friend you referred placed their first order',
      source: 'referral',
      activityType: 'referral',
      reference: { kind: 'referral', id: referral.id },
    });
    await reevaluateTier(db, program.merchantId, referral.referrerId);
  }
  return { referral_id: referral.id, referrer_points: program.referrerPoints };
}

/** The friend's order that may complete their referral: its ids, subtotal, time and identifiers. */
export interface ReferralOrder extends Identifiers {
  /** The order's internal id. */
  id: string;
  /** The platform's order id. */
  orderId: string;
  subtotal: number;
  placedAt: Date;
}

/**
 * Completes the pending referral of `referee` when `order` qualifies, or holds it when a fraud
 * signal fires (a referral the merchant approved before the order is not judged again). A
 * referral held at registration that has no order yet takes this one, still held.
 */
export async function completeReferral(db: Db, merchantId: string, referee: Pick<Customer, 'id' | 'email'>, order: ReferralOrder) {
  const referral = await db.referral.findFirst({
    where: {
      merchantId,
      AND: [
        { OR: [{ status: 'pending' }, { status: 'held', orderId: null }] },
        { OR: [{ refereeId: referee.id }, { refereeEmail: referee.email.toLowerCase() }] },
      ],
    },
  });
  if (!referral || referral.referrerId === referee.id) return null;
  const program = await db.referralProgram.findUnique({ where: { merchantId } });
  if (!program?.isActive) return null;
  if (program.minOrderSubtotal !== null && order.subtotal < Number(program.minOrderSubtotal)) return null;

  const signals =
    referral.review === 'approved'
      ? []
      : await completionSignals(db, merchantId, fraudChecksOf(program.fraudChecks), {
          referral: {
            referrerId: referral.referrerId,
            registeredBy: referral.registeredBy,
            createdAt: referral.createdAt,
            client_ip: referral.clientIp,
            device_id: referral.deviceId,
            payment_fingerprint: referral.paymentFingerprint,
            shipping_address_hash: referral.shippingAddressHash,
          },
          refereeId: referee.id,
          order,
        });
  if (referral.status === 'held' || signals.length) {
    // held with the order that would have completed it; claimed once, like a completion (the
    // time is a parameter: Citus refuses now() inside COALESCE)
    await db.$executeRaw`
      UPDATE referrals
         SET status = 'held'::"ReferralStatus", referee_id = ${referee.id}::uuid, order_id = ${order.orderId},
             signals = signals || ${JSON.stringify(signals)}::jsonb, held_at = COALESCE(held_at, ${new Date()}::timestamptz)
       WHERE merchant_id = ${merchantId}::uuid AND id = ${referral.id}::uuid
         AND (status = 'pending'::"ReferralStatus" OR (status = 'held'::"ReferralStatus" AND order_id IS NULL))`;
    return null;
  }
  return issueRewards(db, program, referral, referee.id, order.orderId, 'pending');
}

// ---- the merchant's review of a held referral ----

const findReferral = (db: Db, merchantId: string, id: string) =>
  findOwn('Referral', id, (id) => db.referral.findUnique({ where: rowKey(merchantId, id), include: withReferee }));

/** A referral no longer held: as it stands when `decision` already decided it, else 409. */
function decided(referral: WithReferee, decision: 'approved' | 'rejected'): WithReferee {
  if (referral.review === decision && referral.status !== 'held') return referral;
  throw new AppError(
    'conflict',
    referral.review
      ? `This referral was ${referral.review} already`
      : `Only a held referral can be ${decision}: this one is ${referral.status}`,
  );
}

/**
 * Approves a held referral: with the friend's order, its rewards are issued then, as a completion
 * would have issued them (once, whichever instance approves first), and an order refunded
 * meanwhile until it no longer qualifies reverses it at once, as the refund would have; without
 * an order yet, it is pending again and the friend's order completes it unjudged. Approving it
 * again answers it as it stands.
 */
export function approveReferral(db: Db, merchantId: string, id: string) {
  return atomically(db, async (tx) => {
    const referral = await findReferral(tx, merchantId, id);
    if (referral.status !== 'held') return decided(referral, 'approved');
    if (referral.orderId === null || referral.refereeId === null) {
      const { count } = await tx.referral.updateMany({
        where: { merchantId, id: referral.id, status: 'held', orderId: null },
        data: { status: 'pending', review: 'approved', reviewedAt: new Date() },
      });
      if (count === 0) return decided(await findReferral(tx, merchantId, id), 'approved');
      return findReferral(tx, merchantId, id);
    }
    const program = await tx.referralProgram.findUnique({ where: { merchantId } });
    if (!program) throw new AppError('conflict', 'The merchant has no referral program to reward this referral with');
    const issued = await issueRewards(tx, program, referral, referral.refereeId, referral.orderId, 'held');
    if (!issued) return decided(await findReferral(tx, merchantId, id), 'approved');
    const order = await tx.order.findUnique({
      where: { merchantId_platformOrderId: { merchantId, platformOrderId: referral.orderId } },
      select: { id: true },
    });
    if (order) await reverseReferral(tx, merchantId, order.id);
    return findReferral(tx, merchantId, id);
  });
}

/** Rejects a held referral: nothing is issued to either side. Rejecting it again answers it as it stands. */
export async function rejectReferral(db: Db, merchantId: string, id: string) {
  const referral = await findReferral(db, merchantId, id);
  if (referral.status !== 'held') return decided(referral, 'rejected');
  const { count } = await db.referral.updateMany({
    where: { merchantId, id: referral.id, status: 'held' },
    data: { status: 'rejected', review: 'rejected', reviewedAt: new Date() },
  });
  const now = await findReferral(db, merchantId, id);
  return count === 0 ? decided(now, 'rejected') : now;
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
