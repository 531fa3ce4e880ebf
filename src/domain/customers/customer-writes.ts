// Creating and updating a merchant's customers (the admin API, and the import's input shape);
// reads are in customer-records.ts. Balances are never written here: points move only
// through the ledger.
import { randomInt } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { recoverable } from '../../db/transaction.js';
import type { Customer } from '../../generated/prisma/client.js';
import { CustomerStatus } from '../../generated/prisma/enums.js';
import { AppError } from '../shared/errors.js';
import { field, identifier } from '../shared/fields.js';
import { rowKey } from '../shared/keys.js';
import { mergePatch, type Patch, violatedUniqueIndex } from '../shared/records.js';
import { parseInput } from '../shared/validation.js';
import { reevaluateTier } from '../tiers/standing.js';
import { customerProfile, withTier } from './customer-records.js';
import { customerIdsByEmail } from './customers.js';

export const customerInput = z
  .object({
    customer_id: identifier(255),
    email: z.email().max(320),
    first_name: z.string().trim().max(200).nullish(),
    last_name: z.string().trim().max(200).nullish(),
    status: z.enum(CustomerStatus).default('member'),
    birthday: z.iso.date().nullish(),
    referral_code: z
      .string()
      .regex(/^[A-Z0-9]{4,32}$/, 'is 4 to 32 upper-case letters or digits')
      .nullish(),
    created_at: field.timestamp.nullish(),
  })
  .strict();
export type CustomerInput = z.infer<typeof customerInput>;

// no 0/O or 1/I: codes are read aloud and typed by hand
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
export function generateReferralCode(length = 8) {
  let code = '';
  for (let i = 0; i < length; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

function customerData(input: CustomerInput) {
  return {
    platformId: input.customer_id,
    email: input.email,
    firstName: input.first_name ?? null,
    lastName: input.last_name ?? null,
    status: input.status,
    birthday: input.birthday ? new Date(`${input.birthday}T00:00:00.000Z`) : null,
  };
}

function customerAsInput(c: Customer): Patch {
  return {
    customer_id: c.platformId,
    email: c.email,
    first_name: c.firstName,
    last_name: c.lastName,
    status: c.status,
    birthday: c.birthday?.toISOString().slice(0, 10) ?? null,
    referral_code: c.referralCode,
  };
}

function conflictFor(index: string) {
  if (index.includes('platform_id')) return new AppError('conflict', 'A customer with this customer_id already exists');
  if (index.includes('email')) return new AppError('conflict', 'A customer with this email already exists');
  if (index.includes('referral_code')) return new AppError('conflict', 'Another customer has this referral_code');
  return new AppError('conflict', 'The customer conflicts with an existing one');
}

/** Emails are matched case-insensitively by lookups, so they must be unique that way too. */
async function assertEmailFree(db: Db, merchantId: string, email: string, exceptId?: string) {
  const others = (await customerIdsByEmail(db, merchantId, email)).filter((id) => id !== exceptId);
  if (others.length) throw conflictFor('email');
}

/** Creates a customer (without a referral_code one is generated) and places it in its tier. */
export async function createCustomer(db: Db, merchantId: string, raw: unknown) {
  const customer = await insertCustomer(db, merchantId, parseInput(customerInput, raw));
  // a new customer joins the default tier (or one with a zero threshold)
  const { changed } = await reevaluateTier(db, merchantId, customer.id);
  return changed ? customerProfile(db, merchantId, customer.id) : customer;
}

async function insertCustomer(db: Db, merchantId: string, input: CustomerInput) {
  await assertEmailFree(db, merchantId, input.email);
  for (let attempt = 0; ; attempt++) {
    const referralCode = input.referral_code ?? generateReferralCode();
    try {
      return await recoverable(db, (db) =>
        db.customer.create({
          data: {
            merchantId,
            ...customerData(input),
            referralCode,
            ...(input.created_at ? { createdAt: new Date(input.created_at) } : {}),
          },
          include: withTier,
        }),
      );
    } catch (err) {
      const index = violatedUniqueIndex(err);
      if (!index) throw err;
      // a generated code that collides is drawn again
      if (index.includes('referral_code') && !input.referral_code && attempt < 5) continue;
      throw conflictFor(index);
    }
  }
}

export async function updateCustomer(db: Db, merchantId: string, id: string, patch: Patch) {
  const current = await customerProfile(db, merchantId, id);
  const input = mergePatch(customerInput, customerAsInput(current), patch);
  if (input.email.toLowerCase() !== current.email.toLowerCase()) await assertEmailFree(db, merchantId, input.email, current.id);
  try {
    return await db.customer.update({
      where: rowKey(merchantId, current.id),
      data: { ...customerData(input), referralCode: input.referral_code ?? current.referralCode },
      include: withTier,
    });
  } catch (err) {
    const index = violatedUniqueIndex(err);
    if (index) throw conflictFor(index);
    throw err;
  }
}
