// VIP tiers: the merchant's ladder, ordered by position, and its
// configuration by the admin API and the import, in the public field names. A customer's
// place on it is judged in standing.ts.
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import type { Tier } from '../../generated/prisma/client.js';
import { TierQualification, TierWindow } from '../../generated/prisma/enums.js';
import { announceProgramChange, programChangedHere } from '../merchants/program-changes.js';
import { field } from '../shared/fields.js';
import { rowKey } from '../shared/keys.js';
import { fieldMapping } from '../shared/model-fields.js';
import { type PageArgs, paginate } from '../shared/pagination.js';
import { findOwn, mergePatch, orConflict, type Patch } from '../shared/records.js';
import { parseInput } from '../shared/validation.js';

export const tierInput = z
  .object({
    id: field.id.optional(),
    name: field.name,
    description: field.description,
    position: z.number().int().min(0).max(1000),
    threshold: z.number().int().min(0).max(2_000_000_000),
    qualification: z.enum(TierQualification).default('points_earned'),
    window: z.enum(TierWindow).default('lifetime'),
    earn_multiplier: z.number().min(0).max(100).default(1),
    benefits: z.array(z.string().trim().min(1).max(500)).max(50).default([]),
    is_default: z.boolean().default(false),
    is_active: z.boolean().default(true),
    /** An import's: when it was created in the system it came from (its history starts then). */
    created_at: field.timestamp.nullish(),
  })
  .strict()
  .refine((t) => t.is_active || !t.is_default, { path: ['is_active'], message: 'the default tier cannot be inactive' });
export type TierInput = z.infer<typeof tierInput>;

const tierFields = fieldMapping(tierInput);

export const tierRow = (input: TierInput) => tierFields.data(input);

const tierOrder = [{ position: 'asc' as const }, { id: 'asc' as const }];

/**
 * The tier ladder, lowest position first. `activeOnly`: `GET /tiers` (like every public list,
 * active records only); the admin API sees them all.
 */
export function listTiers(db: Db, merchantId: string, args: PageArgs, { activeOnly }: { activeOnly: boolean }) {
  const where = { merchantId, ...(activeOnly ? { isActive: true } : {}) };
  return paginate(
    args,
    (p) => db.tier.findMany({ where, orderBy: tierOrder, ...p }),
    () => db.tier.count({ where }),
  );
}

const tierConflict = () => 'Another tier already has this position';

/** What a customer's tier is judged on: a change to one re-judges the merchant's customers. */
const judgedOn = (t: Patch) => JSON.stringify([t.position, t.threshold, t.qualification, t.window, t.is_default, t.is_active]);

/** Marks the merchant's customers for re-judging (rejudge.ts), in the tier change's transaction. */
export const tiersChanged = (db: Db, merchantId: string) =>
  db.merchant.update({ where: { id: merchantId }, data: { tiersChangedAt: new Date() }, select: { id: true } });

/** One default tier per merchant: a new default replaces the old in the same transaction. */
const replaceDefault = (db: Db, merchantId: string) =>
  db.tier.updateMany({ where: { merchantId, isDefault: true }, data: { isDefault: false } });

export async function createTier(db: Db, merchantId: string, raw: unknown) {
  const input = parseInput(tierInput, raw);
  return orConflict(async () => {
    const reset = input.is_default ? [replaceDefault(db, merchantId)] : [];
    const written = await db.$transaction([
      ...reset,
      db.tier.create({ data: { merchantId, ...tierRow(input) } }),
      tiersChanged(db, merchantId),
      announceProgramChange(db, merchantId),
    ]);
    programChangedHere(merchantId);
    return written[reset.length] as Tier;
  }, tierConflict);
}

const findTier = (db: Db, merchantId: string, id: string) => findOwn('Tier', id, (id) => db.tier.findFirst({ where: { id, merchantId } }));

export async function updateTier(db: Db, merchantId: string, id: string, patch: Patch) {
  const current = await findTier(db, merchantId, id);
  const before = tierFields.input(current);
  const input = mergePatch(tierInput, before, patch);
  return orConflict(async () => {
    const reset = input.is_default && !current.isDefault ? [replaceDefault(db, merchantId)] : [];
    const written = await db.$transaction([
      ...reset,
      db.tier.update({ where: rowKey(merchantId, current.id), data: tierRow(input) }),
      ...(judgedOn(input) !== judgedOn(before) ? [tiersChanged(db, merchantId)] : []),
      announceProgramChange(db, merchantId),
    ]);
    programChangedHere(merchantId);
    return written[reset.length] as Tier;
  }, tierConflict);
}
