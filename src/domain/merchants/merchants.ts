// Merchants (shops): the tenant of every row. Each has an admin token for /admin/graphql and
// settings (name, currency, points expiry, points pending days) the admin API, the CLI and the
// import change.
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import type { Merchant } from '../../generated/prisma/client.js';
import { generateToken } from '../access/tokens.js';
import { AppError, notFound } from '../shared/errors.js';
import type { Patch } from '../shared/records.js';
import { parseInput } from '../shared/validation.js';

const createSchema = z.object({
  slug: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{1,62}$/, 'lowercase letters, digits and dashes, 2 to 63 characters'),
  name: z.string().trim().min(1).max(200).optional(),
});

export async function createMerchant(db: Db, input: { slug: string; name?: string }) {
  const { slug, name } = parseInput(createSchema, input);
  if (await db.merchant.findUnique({ where: { slug } })) {
    throw new AppError('conflict', `A merchant with slug "${slug}" already exists`);
  }
  const admin = generateToken('admin');
  const merchant = await db.merchant.create({
    data: { slug, name: name ?? slug, adminTokenHash: admin.hash, adminTokenPrefix: admin.prefix },
  });
  return { id: merchant.id, slug: merchant.slug, name: merchant.name, admin_token: admin.token };
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

export const settingsInput = z
  .object({
    name: z.string().trim().min(1, 'is required').max(200),
    currency: z.string().regex(/^[A-Z]{3}$/, 'is a 3-letter ISO 4217 code, e.g. USD'),
    points_expiry_days: z.number().int().min(1).max(36_500).nullable(),
    points_pending_days: z.number().int().min(0).max(365),
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
  };
}

/**
 * Name, currency, points expiry (null turns expiry off) and the pending window for order points
 * (0 turns it off; points already pending are approved by the next approval run).
 */
export async function updateMerchantSettings(db: Db, merchantId: string, patch: Patch): Promise<Merchant> {
  const input = parseInput(settingsInput, patch);
  return db.merchant.update({ where: { id: merchantId }, data: settingsRow(input) });
}
