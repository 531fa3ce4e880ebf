// Customer rewards: what a customer holds, what it can redeem, and redeeming. A redemption is
// one call of a database function (the style of ledger/ledger.ts): the conditional debit
// through the ledger's own function, its transaction, its activity and the issued code are
// written together or not at all, so concurrent redemptions can never overdraw and a refused
// one leaves no trace.
import { randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { columnsOf, timeFieldsOf } from '../../db/sql.js';
import { recoverable } from '../../db/transaction.js';
import { type Customer, Prisma, type Reward } from '../../generated/prisma/client.js';
import type { CustomerRewardStatus, RewardType } from '../../generated/prisma/enums.js';
import { countLedgerEntry } from '../../observability/metrics.js';
import { type CustomerList, type CustomerPart, ownRows } from '../customers/customer-parts.js';
import { AppError, notFound } from '../shared/errors.js';
import { identifier } from '../shared/fields.js';
import { rowKey } from '../shared/keys.js';
import { MAX_BALANCE } from '../shared/limits.js';
import {
  type ConnectedList,
  connectionRead,
  type OwnerRead,
  type PageArgs,
  type Paginated,
  pageRead,
  paginated,
  paginateOne,
  toPage,
} from '../shared/pagination.js';
import { parseInput } from '../shared/validation.js';
import { findReward } from './rewards.js';

export interface CustomerRewardRecord {
  id: string;
  reward: { id: string; name: string; reward_type: RewardType };
  code: string;
  status: CustomerRewardStatus;
  points_spent: number;
  issued_at: Date;
  expires_at: Date | null;
  used_at: Date | null;
}

export interface Redemption extends CustomerRewardRecord {
  balance_after: number;
}

/** The status a client sees: an issued code past its expiry is expired. */
function effectiveStatus(status: CustomerRewardStatus, expiresAt: Date | null, now = new Date()) {
  return status === 'issued' && expiresAt && expiresAt <= now ? 'expired' : status;
}

/** When an issued code's status next changes by the clock alone: it turns expired at its expiry. */
export function statusChangesAt(held: Pick<CustomerRewardRecord, 'status' | 'expires_at'>): Date | null {
  return held.status === 'issued' ? held.expires_at : null;
}

/** An excluded customer takes no part in the program, so it can redeem nothing. */
const canRedeem = (customer: Pick<Customer, 'status'>) => customer.status !== 'excluded';

/** A held code with its catalogue reward (any state), which the graph's link answers without a read of its own. */
type HeldReward = CustomerRewardRecord & { catalogue: Reward };

/** A held code's own columns, under `held_`-prefixed names: its catalogue reward's take the field names. */
const heldColumns = Prisma.raw(
  'x.id AS held_id, x.code AS held_code, x.status AS held_status, x.points_spent AS held_points_spent, ' +
    'x.issued_at AS held_issued_at, x.expires_at AS held_expires_at, x.used_at AS held_used_at',
);
interface HeldRow extends Reward {
  held_id: string;
  held_code: string;
  held_status: CustomerRewardStatus;
  held_points_spent: number;
  held_issued_at: Date;
  held_expires_at: Date | null;
  held_used_at: Date | null;
}

/** The codes a customer holds, newest first. */
const heldRewards: ConnectedList<HeldReward> = {
  table: 'customer_rewards',
  ownerType: 'uuid',
  where: (customer) => Prisma.sql`customer_id = ${customer}`,
  order: 'issued_at DESC, id DESC',
  keyset: 'issued_at, id',
  name: 'rewards',
  // each code with its catalogue reward, in the page's statement
  columns: Prisma.sql`${heldColumns}, ${columnsOf(Prisma.RewardScalarFieldEnum, 'r')}`,
  join: (merchant) => Prisma.sql`JOIN rewards r ON r.merchant_id = ${merchant} AND r.id = x.reward_id`,
  times: [...timeFieldsOf('Reward'), 'held_issued_at', 'held_expires_at', 'held_used_at'],
  shape: ({ held_id, held_code, held_status, held_points_spent, held_issued_at, held_expires_at, held_used_at, ...reward }: HeldRow) => ({
    id: held_id,
    reward: { id: reward.id, name: reward.name, reward_type: reward.rewardType },
    code: held_code,
    status: effectiveStatus(held_status, held_expires_at),
    points_spent: held_points_spent,
    issued_at: held_issued_at,
    expires_at: held_expires_at,
    used_at: held_used_at,
    catalogue: reward,
  }),
};

type Holder = Pick<Customer, 'id' | 'merchantId' | 'status' | 'pointsBalance'>;

/** The codes a customer holds as the graph's links read them, beside the customer. */
export const heldRewardRows = ownRows(heldRewards);

export async function listCustomerRewards(db: Db, customer: Holder, args: PageArgs): Promise<Paginated<CustomerRewardRecord>> {
  const page = await paginateOne(db, customer.merchantId, customer.id, args, heldRewards);
  return { ...page, data: page.data.map(({ catalogue: _, ...held }) => held) };
}

/** Active catalogue rewards costing at most a balance, cheapest first: what a customer with it can afford. */
const affordable: ConnectedList<Reward> = {
  table: 'rewards',
  ownerType: 'int',
  where: (balance) => Prisma.sql`is_active AND points_cost <= ${balance}`,
  order: 'points_cost ASC, created_at DESC, id DESC',
  // the cheapest first is the highest negated cost first: every keyset column then descends
  keyset: '-points_cost, created_at, id',
  name: 'redeemable_rewards',
  // a cursor stays a position when its reward is retired or the balance changes
  member: () => Prisma.sql`true`,
  columns: columnsOf(Prisma.RewardScalarFieldEnum, 'x'),
  times: timeFieldsOf('Reward'),
  fields: Object.keys(Prisma.RewardScalarFieldEnum),
};

/** What a customer can afford: the rewards of its balance; an excluded customer redeems nothing. */
const affordableTo = <V>(read: OwnerRead<V>): CustomerPart<V> => ({
  sql: (c) => read.sql(c.pointsBalance),
  read: (value, customer) => read.read(canRedeem(customer) ? value : null, customer.id),
});

/** What a customer can redeem now as the graph's links read it, beside the customer. */
export const redeemableRows: CustomerList<Reward> = {
  page: (merchantId, args, needs) => affordableTo(pageRead(merchantId, affordable, args, needs)),
  connection: (merchantId, args, needs) => affordableTo(connectionRead(merchantId, affordable, args, needs)),
};

/** Active rewards the customer can afford now, cheapest first. */
export async function listRedeemableRewards(db: Db, customer: Holder, args: PageArgs) {
  if (!canRedeem(customer)) return paginated<Reward>(toPage(args), [], 0);
  return paginateOne(db, customer.merchantId, customer.pointsBalance, args, affordable);
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** Issues codes; an object so a test can force a collision. */
export const rewardCodes = {
  /** 'LP-' + 10 base32 symbols (50 random bits; 256 is a multiple of 32, so no bias). */
  next(): string {
    return `LP-${[...randomBytes(10)].map((b) => BASE32[b & 31]).join('')}`;
  },
};

/** SQL: when a code issued now for a reward of `reward_rule` (a column in scope) expires (the rule is in the database). */
export const codeExpiry = Prisma.sql`loyalty_code_expiry(reward_rule, now())`;

/**
 * Runs `issue` with a fresh code, once more on a collision with an existing code (the failed
 * statement changed nothing); a second collision in 2^50 codes means trouble: 409.
 */
export async function withFreshCode<T>(db: Db, issue: (db: Db, code: string) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await recoverable(db, (db) => issue(db, rewardCodes.next()));
    } catch (err) {
      if (!isCodeCollision(err)) throw err;
      if (attempt >= 2) throw new AppError('conflict', 'Could not issue a unique reward code; try again');
    }
  }
}

/** The redemption's rule (the API's descriptions and OpenAPI document state it from here). */
export const redeemRules = { reward_id: identifier(255) };
const redeemInput = z.object(redeemRules);

/** The statement's row: the customer reward's own columns, flat with its reward's. */
type RedemptionRow = Omit<Redemption, 'reward'> & { reward_id: string; reward_name: string; reward_type: RewardType };

/**
 * The redemption: one call of loyalty_apply_points' sibling loyalty_redeem (migration
 * redemption_function), delegated whole to the merchant's worker on a cluster. No row when the
 * reward is gone, the customer excluded or short of points.
 */
async function redeemStatement(db: Db, customer: Customer, rewardId: string, code: string) {
  const rows = await db.$queryRaw<RedemptionRow[]>`
    SELECT id::text, code, status, points_spent, issued_at, expires_at, used_at, balance_after,
           reward_id::text, reward_name, reward_type
      FROM loyalty_redeem(${customer.merchantId}::uuid, ${customer.id}::uuid, ${rewardId}::uuid, ${code}::text,
                          ${MAX_BALANCE}::int, ${randomUUID()}::uuid, ${randomUUID()}::uuid, ${randomUUID()}::uuid)`;
  const row = rows[0];
  return row?.id ? row : null;
}

/** A unique violation of customer_rewards (merchant_id, code) in a raw query (P2010, 23505). */
function isCodeCollision(err: unknown): boolean {
  if (!(err instanceof Prisma.PrismaClientKnownRequestError) || err.code !== 'P2010') return false;
  return `${err.message} ${JSON.stringify(err.meta ?? {})}`.includes('customer_rewards_merchant_id_code_key');
}

/** Redeems `reward_id` for the customer: 404 unknown reward, 422 reward_unavailable / insufficient_points. */
export async function redeemReward(db: Db, customer: Customer, args: { reward_id?: string | null }): Promise<Redemption> {
  const { reward_id } = parseInput(redeemInput, args);
  // only an active reward can be redeemed: 404 otherwise, before and after the attempt
  const find = () => findReward(db, customer.merchantId, reward_id, { activeOnly: true });
  const reward = await find();
  if (!canRedeem(customer)) throw unavailable();

  const row = await withFreshCode(db, (db, code) => redeemStatement(db, customer, reward.id, code));
  if (row) {
    countLedgerEntry(-Number(row.points_spent));
    return {
      id: row.id,
      reward: { id: row.reward_id, name: row.reward_name, reward_type: row.reward_type },
      code: row.code,
      status: row.status,
      points_spent: Number(row.points_spent),
      issued_at: new Date(row.issued_at),
      expires_at: row.expires_at ? new Date(row.expires_at) : null,
      used_at: row.used_at ? new Date(row.used_at) : null,
      balance_after: Number(row.balance_after),
    };
  }
  // refused: say why, from the rows as they are now
  const [current, still] = await Promise.all([
    db.customer.findUnique({ where: rowKey(customer.merchantId, customer.id), select: { status: true, pointsBalance: true } }),
    find(),
  ]);
  if (!current) throw notFound('Customer');
  if (!canRedeem(current)) throw unavailable();
  throw new AppError(
    'insufficient_points',
    `Insufficient points: the reward costs ${still.pointsCost} points and the balance is ${current.pointsBalance}`,
  );
}

const unavailable = () => new AppError('reward_unavailable', 'This customer is excluded from the program and cannot redeem rewards');
