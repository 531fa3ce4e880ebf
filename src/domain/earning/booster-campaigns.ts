// Booster campaigns: multipliers on earning rules for a
// period. The ones in force, as the public API lists them and the calculator applies them,
// and their configuration by the admin API and the import, in the public field names.
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { columnsOf, rowsOf } from '../../db/sql.js';
import { type BoosterCampaign, Prisma } from '../../generated/prisma/client.js';
import { CampaignType } from '../../generated/prisma/enums.js';
import { changeProgram } from '../merchants/program-changes.js';
import { field } from '../shared/fields.js';
import { rowKey } from '../shared/keys.js';
import { fieldMapping } from '../shared/model-fields.js';
import { type PageArgs, pageRows, paginate } from '../shared/pagination.js';
import { dateOrNull, findOwn, mergePatch, type Patch } from '../shared/records.js';
import { parseInput } from '../shared/validation.js';

export const boosterCampaignInput = z
  .object({
    id: field.id.optional(),
    name: field.name,
    description: field.description,
    multiplier: z.number().positive().max(100),
    campaign_types: z.array(z.enum(CampaignType)).min(1, 'needs at least one campaign type'),
    starts_at: field.timestamp,
    ends_at: field.timestamp.nullish(),
    is_active: z.boolean().default(true),
    /** An import's: when it was created in the system it came from (its history starts then). */
    created_at: field.timestamp.nullish(),
  })
  .strict()
  .refine((b) => !b.ends_at || Date.parse(b.ends_at) > Date.parse(b.starts_at), {
    path: ['ends_at'],
    message: 'must be after starts_at',
  });
export type BoosterCampaignInput = z.infer<typeof boosterCampaignInput>;

const boosterFields = fieldMapping(boosterCampaignInput);

export function boosterRow(input: BoosterCampaignInput) {
  return {
    ...boosterFields.data(input),
    campaignTypes: [...new Set(input.campaign_types)],
    startsAt: new Date(input.starts_at),
    endsAt: dateOrNull(input.ends_at),
  };
}

/** Active boosters not yet ended at `at`, those starting later too (over `booster_campaigns b`): the program cache keeps these. */
export function unendedBoostersSql(at: Date) {
  return Prisma.sql`b.is_active AND (b.ends_at IS NULL OR b.ends_at > ${at}::timestamptz)`;
}

/** The one definition of a booster in force at `at`: active, started, not yet ended (over `booster_campaigns b`). */
export function currentBoostersSql(at: Date) {
  return Prisma.sql`${unendedBoostersSql(at)} AND b.starts_at <= ${at}::timestamptz`;
}

const boosterColumns = columnsOf(Prisma.BoosterCampaignScalarFieldEnum, 'b', { textArrays: ['campaignTypes'] });

export function listCurrentBoosters(db: Db, merchantId: string, args: PageArgs, at = new Date()) {
  return pageRows<BoosterCampaign>(db, args, {
    columns: boosterColumns,
    from: Prisma.sql`booster_campaigns b`,
    where: Prisma.sql`b.merchant_id = ${merchantId}::uuid AND ${currentBoostersSql(at)}`,
    order: Prisma.sql`b.created_at DESC, b.id DESC`,
  });
}

/** When the boosters in force next change by the clock alone: an active booster's start or end after `at` (null: none comes). */
export async function boostersChangeAt(db: Db, merchantId: string, at = new Date()): Promise<Date | null> {
  const [row] = await rowsOf<{ at: Date | null }>(
    db,
    Prisma.sql`
    SELECT min(CASE WHEN b.starts_at > ${at}::timestamptz THEN b.starts_at ELSE b.ends_at END) AS at
      FROM booster_campaigns b
     WHERE b.merchant_id = ${merchantId}::uuid AND b.is_active
       AND (b.starts_at > ${at}::timestamptz OR b.ends_at > ${at}::timestamptz)`,
  );
  return row?.at ?? null;
}

/** Every booster campaign, whatever its dates or state, newest start first. */
export function listAllBoosterCampaigns(db: Db, merchantId: string, args: PageArgs & { is_active?: boolean | null }) {
  const where = { merchantId, ...(args.is_active != null ? { isActive: args.is_active } : {}) };
  return paginate(
    args,
    (p) => db.boosterCampaign.findMany({ where, orderBy: [{ startsAt: 'desc' }, { id: 'desc' }], ...p }),
    () => db.boosterCampaign.count({ where }),
  );
}

const findBooster = (db: Db, merchantId: string, id: string) =>
  findOwn('Booster campaign', id, (id) => db.boosterCampaign.findFirst({ where: { id, merchantId } }));

export async function createBoosterCampaign(db: Db, merchantId: string, raw: unknown) {
  const input = parseInput(boosterCampaignInput, raw);
  return changeProgram(db, merchantId, db.boosterCampaign.create({ data: { merchantId, ...boosterRow(input) } }));
}

export async function updateBoosterCampaign(db: Db, merchantId: string, id: string, patch: Patch) {
  const current = await findBooster(db, merchantId, id);
  const input = mergePatch(boosterCampaignInput, boosterFields.input(current), patch);
  return changeProgram(db, merchantId, db.boosterCampaign.update({ where: rowKey(merchantId, current.id), data: boosterRow(input) }));
}

export async function setBoosterCampaignActive(db: Db, merchantId: string, id: string, isActive: boolean) {
  const current = await findBooster(db, merchantId, id);
  return changeProgram(db, merchantId, db.boosterCampaign.update({ where: rowKey(merchantId, current.id), data: { isActive } }));
}
