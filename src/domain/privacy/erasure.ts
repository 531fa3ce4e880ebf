// A privacy erasure (GDPR/CCPA deletion request): the customer's personal data is removed and
// the row stays as a tombstone, so the merchant's ledger keeps its amounts (balances, points
// issued and spent, dashboard totals). Afterwards the API finds no such customer (404
// not_found); erasing again changes nothing and answers the same. One transaction.
//
// Personal data lives in the customer row and in copies: referral rows (referee_email, the
// identifiers the fraud checks compare, as on orders),
// stored results of engine events, stored responses of idempotent requests, audit rows. Each
// copy is one step below; a part that keeps another copy adds its step to `erasureSteps`.
import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/client.js';
import { setLocal } from '../../db/transaction.js';
import { Prisma } from '../../generated/prisma/client.js';
import { endEverySessionIn } from '../access/ended-sessions.js';
import { type Needles, scrubValues } from '../audit/redact.js';
import { findCustomerById } from '../customers/customers.js';
import { rowKey } from '../shared/keys.js';

/** What replaces erased strings in JSON copies. */
export const ERASED = '[erased]';

type Tx = Prisma.TransactionClient;

export interface ErasedCustomer {
  /** The internal id (uuid), the only way to name the customer from now on. */
  id: string;
  erased_at: Date;
  /** False when the customer had already been erased (nothing changed). */
  erased_now: boolean;
  points_balance: number;
}

interface ErasureContext {
  merchantId: string;
  customerId: string;
  needles: Needles;
}

/** A step that takes the customer's personal data out of one copy. */
type ErasureStep = (tx: Tx, erasure: ErasureContext) => Promise<unknown>;

/**
 * Rewrites, in every row of `table` of the merchant whose JSON (or JSON text) `columns`
 * mention one of the needles, the matching strings to ERASED. Candidate rows are found in
 * SQL (a text search); the rewrite is done here, on the parsed JSON.
 */
async function scrubJsonColumn(
  tx: Tx,
  { merchantId, needles }: ErasureContext,
  table: string,
  key: { name: string; type: 'uuid' | 'text' },
  columns: string[],
  { text = false } = {},
) {
  const terms = [...needles.exact, ...needles.contained].filter(Boolean).map((t) => t.toLowerCase());
  if (!terms.length) return;
  const id = Prisma.raw(`"${key.name}"`);
  const haystack = Prisma.raw(columns.map((c) => `coalesce("${c}"::text, '')`).join(` || ' ' || `));
  const rows = await tx.$queryRaw<Record<string, unknown>[]>`
    SELECT ${id}::text AS key, ${Prisma.raw(columns.map((c) => `"${c}"`).join(', '))}
      FROM ${Prisma.raw(`"${table}"`)}
     WHERE merchant_id = ${merchantId}::uuid
       AND EXISTS (SELECT 1 FROM unnest(${terms}::text[]) t WHERE strpos(lower(${haystack}), t) > 0)`;
  for (const row of rows) {
    const sets = columns.map((c) => {
      const value = row[c];
      if (value === null || value === undefined) return Prisma.sql`${Prisma.raw(`"${c}"`)} = ${Prisma.raw(`"${c}"`)}`;
      if (!text) {
        return Prisma.sql`${Prisma.raw(`"${c}"`)} = ${JSON.stringify(scrubValues(value, needles, ERASED))}::jsonb`;
      }
      let scrubbed: string;
      try {
        scrubbed = JSON.stringify(scrubValues(JSON.parse(String(value)), needles, ERASED));
      } catch {
        scrubbed = String(scrubValues(String(value), needles, ERASED));
      }
      return Prisma.sql`${Prisma.raw(`"${c}"`)} = ${scrubbed}`;
    });
    await tx.$executeRaw`UPDATE ${Prisma.raw(`"${table}"`)} SET ${Prisma.join(sets, ', ')}
                         WHERE merchant_id = ${merchantId}::uuid AND ${id} = ${String(row.key)}::${Prisma.raw(key.type)}`;
  }
}

const UUID_KEY = { name: 'id', type: 'uuid' } as const;

/** What identifies a customer in copies of its data: its platform id and names whole, its email anywhere. */
export function needlesOf(customer: { platformId: string; email: string; firstName: string | null; lastName: string | null }): Needles {
  return { exact: [customer.platformId, customer.firstName ?? '', customer.lastName ?? ''], contained: [customer.email] };
}

/** Every copy of a customer's personal data outside its own row. */
const erasureSteps: ErasureStep[] = [
  // the identifiers the referral fraud checks compare (client address, device, payment method,
  // shipping address), on the customer's orders and on the referrals they made or were named in;
  // they join the needles, so the copies below (the events' arguments in the audit log) lose them too
  async (tx, { merchantId, customerId, needles }) => {
    const emails = needles.contained.map((e) => e.toLowerCase());
    const referrals = { merchantId, OR: [{ referrerId: customerId }, { refereeId: customerId }, { refereeEmail: { in: emails } }] };
    const identifiers = { clientIp: true, deviceId: true, paymentFingerprint: true, shippingAddressHash: true } as const;
    const rows = [
      ...(await tx.order.findMany({ where: { merchantId, customerId }, select: identifiers })),
      ...(await tx.referral.findMany({ where: referrals, select: identifiers })),
    ];
    needles.exact.push(...new Set(rows.flatMap((r) => Object.values(r).filter((v): v is string => Boolean(v)))));
    const cleared = { clientIp: null, deviceId: null, paymentFingerprint: null, shippingAddressHash: null };
    await tx.order.updateMany({ where: { merchantId, customerId }, data: cleared });
    await tx.referral.updateMany({ where: referrals, data: cleared });
  },
  // referrals that named the customer as referee: the email goes, the referral (and the
  // referrer's points) stays; referrals the customer made name other people and stay
  async (tx, { merchantId, customerId, needles }) => {
    const emails = needles.contained.map((e) => e.toLowerCase());
    const rows = await tx.referral.findMany({
      where: { merchantId, OR: [{ refereeId: customerId }, { refereeEmail: { in: emails } }] },
      select: { id: true },
    });
    for (const { id } of rows) {
      await tx.referral.update({ where: rowKey(merchantId, id), data: { refereeEmail: `erased+${id}@erased.invalid` } });
    }
  },
  // stored results of platform events (order and activity payloads echo the customer)
  (tx, erasure) => scrubJsonColumn(tx, erasure, 'engine_events', UUID_KEY, ['result']),
  // responses kept for Idempotency-Key replays
  (tx, erasure) => scrubJsonColumn(tx, erasure, 'idempotency_keys', { name: 'key', type: 'text' }, ['response_body'], { text: true }),
  // earlier audit rows (update_customer's before/after, arguments naming the customer)
  (tx, erasure) => scrubJsonColumn(tx, erasure, 'audit_entries', UUID_KEY, ['args', 'before', 'after']),
  // webhook events (the outbox): the one exception to an event's body never changing, so a
  // delivery still waiting, or a redelivery, sends the event without the personal data
  async (tx, erasure) => {
    // the events' immutability trigger lets this transaction scrub (migration events_erasure)
    await setLocal(tx, { 'loyalty.erasure': 'on' });
    await scrubJsonColumn(tx, erasure, 'events', UUID_KEY, ['payload']);
  },
  (tx, erasure) => scrubJsonColumn(tx, erasure, 'events', UUID_KEY, ['body'], { text: true }),
];

/** Erases the merchant's customer named by `id` (internal uuid or, before erasure, platform id). */
export async function eraseCustomer(db: Db, merchantId: string, id: string): Promise<ErasedCustomer> {
  const found = await findCustomerById(db, merchantId, id, { erased: true });
  let sessionsEnded = () => {};
  const erased = await db.$transaction(async (tx) => {
    const [customer] = await tx.$queryRaw<
      {
        id: string;
        platform_id: string;
        email: string;
        first_name: string | null;
        last_name: string | null;
        erased_at: Date | null;
        points_balance: number;
      }[]
    >`SELECT id, platform_id, email, first_name, last_name, erased_at, points_balance
        FROM customers WHERE merchant_id = ${merchantId}::uuid AND id = ${found.id}::uuid FOR UPDATE`;
    if (!customer) throw new Error('customer vanished during erasure');
    if (customer.erased_at) {
      return { id: customer.id, erased_at: customer.erased_at, erased_now: false, points_balance: customer.points_balance };
    }
    const erasure: ErasureContext = {
      merchantId,
      customerId: customer.id,
      needles: needlesOf({
        platformId: customer.platform_id,
        email: customer.email,
        firstName: customer.first_name,
        lastName: customer.last_name,
      }),
    };
    const erasedAt = new Date();
    await tx.customer.update({
      where: rowKey(merchantId, customer.id),
      data: {
        platformId: `erased:${customer.id}`,
        email: `erased+${customer.id}@erased.invalid`,
        firstName: null,
        lastName: null,
        birthday: null,
        // the code named the customer to referred friends; a random one keeps the unique index
        referralCode: `ERASED${randomBytes(12).toString('hex').toUpperCase()}`,
        // takes no further part in the program (earns, redeems, refers nothing)
        status: 'excluded',
        erasedAt,
      },
    });
    // the customer list's total counts the customers the API can find
    await tx.merchantStats.update({ where: { merchantId }, data: { customerCount: { decrement: 1 } } });
    for (const step of erasureSteps) await step(tx, erasure);
    // the customer's storefront sessions end with it: their tokens are refused (401), not left to find no customer
    sessionsEnded = await endEverySessionIn(tx, merchantId, customer.id, erasedAt);
    return { id: customer.id, erased_at: erasedAt, erased_now: true, points_balance: customer.points_balance };
  });
  sessionsEnded();
  return erased;
}
