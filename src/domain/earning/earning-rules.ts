// Earning rules ("ways to earn", spec 2.1): the active rules as the public API lists them,
// and their configuration by the admin API and the import, in the public field names. What
// a rule stores and how it is judged are in rule-config.ts and calculator.ts.
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { CampaignType } from '../../generated/prisma/enums.js';
import { merchantTimeZone } from '../merchants/merchants.js';
import { changeProgram } from '../merchants/program-changes.js';
import { field } from '../shared/fields.js';
import { rowKey } from '../shared/keys.js';
import { fieldMapping } from '../shared/model-fields.js';
import { newestFirst, type PageArgs, paginate } from '../shared/pagination.js';
import { findOwn, jsonOrNull, mergePatch, type Patch } from '../shared/records.js';
import { parseInput } from '../shared/validation.js';
import { conditionsInputSchema, earningRuleSchema, resolveRuleDates } from './rule-config.js';

export const earningRuleInput = z
  .object({
    id: field.id.optional(),
    name: field.name,
    description: field.description,
    campaign_type: z.enum(CampaignType),
    earning_rule: earningRuleSchema.nullish(),
    conditions: conditionsInputSchema.nullish(),
    product_name: field.productName,
    product_image_url: field.productImageUrl,
    is_active: z.boolean().default(true),
    created_at: field.timestamp.nullish(),
  })
  .strict();
export type EarningRuleInput = z.infer<typeof earningRuleInput>;

const earningRuleFields = fieldMapping(earningRuleInput);

/** The row of a rule; dates in its conditions are days of `zone`, the merchant's calendar. */
export function earningRuleRow(input: EarningRuleInput, zone: string) {
  return {
    ...earningRuleFields.data(input),
    earningRule: jsonOrNull(input.earning_rule),
    conditions: jsonOrNull(input.conditions && resolveRuleDates(input.conditions, zone)),
  };
}

/**
 * Earning rules, newest first, optionally of one campaign type. `activeOnly`: the public list
 * (active rules only); the admin API sees them all, optionally filtered by `is_active`.
 */
export function listEarningRules(
  db: Db,
  merchantId: string,
  args: PageArgs & { campaign_type?: CampaignType | null; is_active?: boolean | null },
  { activeOnly }: { activeOnly: boolean },
) {
  const isActive = activeOnly ? true : args.is_active;
  const where = {
    merchantId,
    ...(isActive != null ? { isActive } : {}),
    ...(args.campaign_type ? { campaignType: args.campaign_type } : {}),
  };
  return paginate(
    args,
    (p) => db.earningRule.findMany({ where, orderBy: newestFirst, ...p }),
    () => db.earningRule.count({ where }),
  );
}

const findEarningRule = (db: Db, merchantId: string, id: string) =>
  findOwn('Earning rule', id, (id) => db.earningRule.findFirst({ where: { id, merchantId } }));

export async function createEarningRule(db: Db, merchantId: string, raw: unknown) {
  const input = parseInput(earningRuleInput, raw);
  const zone = await merchantTimeZone(db, merchantId);
  return changeProgram(db, merchantId, db.earningRule.create({ data: { merchantId, ...earningRuleRow(input, zone) } }));
}

export async function updateEarningRule(db: Db, merchantId: string, id: string, patch: Patch) {
  const current = await findEarningRule(db, merchantId, id);
  const input = mergePatch(earningRuleInput, earningRuleFields.input(current), patch);
  const zone = await merchantTimeZone(db, merchantId);
  return changeProgram(db, merchantId, db.earningRule.update({ where: rowKey(merchantId, current.id), data: earningRuleRow(input, zone) }));
}

export async function setEarningRuleActive(db: Db, merchantId: string, id: string, isActive: boolean) {
  const current = await findEarningRule(db, merchantId, id);
  return changeProgram(db, merchantId, db.earningRule.update({ where: rowKey(merchantId, current.id), data: { isActive } }));
}
