// Merchants (shops): the tenant of every row. Each has an admin token for /admin/graphql and
// settings (name, currency, points expiry, points pending days) the admin API, the CLI and the
// import change.
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import type { Merchant } from '../../generated/prisma/client.js';
import { generateToken } from '../access/tokens.js';
import { DEFAULT_TIMEZONE, timeZoneSchema } from '../shared/calendar.js';
import { AppError, notFound } from '../shared/errors.js';
import { messages } from '../shared/messages.js';
import type { Patch } from '../shared/records.js';
import { parseInput } from '../shared/validation.js';
import { announceProgramChange, programChangedHere } from './program-changes.js';

const createSchema = z.object({
  slug: z.string().regex(/^[a-z0-9][a-z0-9-]{1,62}$/, 'lowercase letters, digits and dashes, 2 to 63 characters'),
  name: z.string().trim().min(1).max(200).optional(),
  timezone: timeZoneSchema.optional(),
});

export async function createMerchant(db: Db, input: { slug: string; name?: string; timezone?: string }) {
  const { slug, name, timezone } = parseInput(createSchema, input);
  if (await db.merchant.findUnique({ where: { slug } })) {
    throw new AppError('conflict', `A merchant with slug "${slug}" already exists`);
  }
  const admin = generateToken('admin');
  const merchant = await db.merchant.create({
    data: {
      slug,
      name: name ?? slug,
      timezone: timezone ?? DEFAULT_TIMEZONE,
      adminTokenHash: admin.hash,
      adminTokenPrefix: admin.prefix,
    },
  });
  return { id: merchant.id, slug: merchant.slug, name: merchant.name, timezone: merchant.timezone, admin_token: admin.token };
}

export async function merchantBySlug(db: Db, slug: string) {
  const merchant = await db.merchant.findUnique({ where: { slug } });
  if (!merchant) throw notFound(`Merchant "${slug}"`);
  return merchant;
}

export async function rotateAdminToken(db: Db, slug: string) {
  const merchant = await merchantBySlug(db, slug);
  const admin = generateToken('admin');
  // the old token's browser sessions end with it
  await db.$transaction([
    db.merchant.update({ where: { id: merchant.id }, data: { adminTokenHash: admin.hash, adminTokenPrefix: admin.prefix } }),
    db.adminSession.deleteMany({ where: { merchantId: merchant.id } }),
  ]);
  return { id: merchant.id, slug: merchant.slug, admin_token: admin.token };
}

/** A BCP 47 language and region this runtime formats in (en-US, de-DE, fr-CA), stored in its canonical spelling. */
const localeSchema = z.string().transform((value, ctx) => {
  try {
    const [canonical] = Intl.getCanonicalLocales(value);
    if (canonical && Intl.NumberFormat.supportedLocalesOf(canonical).length) return canonical;
  } catch {
    // not a language tag at all: reported below
  }
  ctx.addIssue({ code: 'custom', message: messages.locale });
  return z.NEVER;
});

export const settingsInput = z
  .object({
    name: z.string().trim().min(1, 'is required').max(200),
    currency: z.string().regex(/^[A-Z]{3}$/, 'is a 3-letter ISO 4217 code, e.g. USD'),
    points_expiry_days: z.number().int().min(1).max(36_500).nullable(),
    points_pending_days: z.number().int().min(0).max(365),
    late_earning_days: z.number().int().min(0).max(36_500),
    timezone: timeZoneSchema,
    locale: localeSchema,
  })
  .partial()
  .strict();

export type SettingsInput = z.infer<typeof settingsInput>;

/** The merchant row's columns for validated settings; absent fields are left alone. */
export function settingsRow(input: SettingsInput) {
  return {
    ...(input.name !== undefined && { name: input.name }),
    ...(input.currency !== undefined && { currency: input.currency }),
    ...(input.points_expiry_days !== undefined && { pointsExpiryDays: input.points_expiry_days }),
    ...(input.points_pending_days !== undefined && { pointsPendingDays: input.points_pending_days }),
    ...(input.late_earning_days !== undefined && { lateEarningDays: input.late_earning_days }),
    ...(input.timezone !== undefined && { timezone: input.timezone }),
    ...(input.locale !== undefined && { locale: input.locale }),
  };
}

/**
 * Name, currency, points expiry (null turns expiry off), the pending window for order points
 * (0 turns it off; points already pending are approved by the next approval run), how many days
 * after it happened an order or action may still earn points, and time zone;
 * absent fields are left alone. A new time zone governs what is computed from then on: stored
 * instants (memberships' expiry, rule dates, past limit periods' slots) keep their UTC values.
 */
export async function updateMerchantSettings(db: Db, merchantId: string, patch: Patch): Promise<Merchant> {
  const input = parseInput(settingsInput, patch);
  const [merchant] = await db.$transaction([
    db.merchant.update({ where: { id: merchantId }, data: settingsRow(input) }),
    announceProgramChange(db, merchantId),
  ]);
  programChangedHere(merchantId);
  return merchant;
}

/** The merchant's time zone, the calendar its program is computed in. */
export async function merchantTimeZone(db: Db, merchantId: string): Promise<string> {
  const merchant = await db.merchant.findUnique({ where: { id: merchantId }, select: { timezone: true } });
  return merchant?.timezone ?? DEFAULT_TIMEZONE;
}
