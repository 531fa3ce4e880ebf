// Earning rules ("ways to earn"): all of them (active or not), create, update, activate, deactivate.
import type { EarningRule } from '../../generated/prisma/client.js';
import {
  createEarningRule,
  listEarningRules,
  setEarningRuleActive,
  updateEarningRule,
} from '../../domain/earning/earning-rules.js';
import { builder, listOf, pageArgs, provided } from './builder.js';
import { CampaignTypeEnum } from './enums.js';

export const EarningRuleRef = builder.objectRef<EarningRule>('EarningRule').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    campaign_type: t.expose('campaignType', { type: CampaignTypeEnum }),
    earning_rule: t.field({ type: 'JSON', nullable: true, resolve: (r) => r.earningRule }),
    conditions: t.field({ type: 'JSON', nullable: true, resolve: (r) => r.conditions }),
    is_active: t.exposeBoolean('isActive'),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const earningRuleDescription = '{type: "fixed", value} or {type: "variable", value, per_amount}: value points per per_amount spent';
const conditionsDescription =
  'Optional: {min_order_subtotal, max_points_per_order, tier_ids, product_ids, excluded_product_ids, ' +
  'limit {count, period: day|week|month|year|lifetime}, starts_at, ends_at}';

const EarningRuleInput = builder.inputType('EarningRuleInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    description: t.string(),
    campaign_type: t.field({ type: CampaignTypeEnum, required: true }),
    earning_rule: t.field({ type: 'JSON', description: earningRuleDescription }),
    conditions: t.field({ type: 'JSON', description: conditionsDescription }),
    is_active: t.boolean({ description: 'Default true' }),
  }),
});

const EarningRulePatch = builder.inputType('EarningRulePatch', {
  description: 'Fields to change; the result is validated as a whole',
  fields: (t) => ({
    name: t.string(),
    description: t.string(),
    campaign_type: t.field({ type: CampaignTypeEnum }),
    earning_rule: t.field({ type: 'JSON', description: earningRuleDescription }),
    conditions: t.field({ type: 'JSON', description: conditionsDescription }),
    is_active: t.boolean(),
  }),
});

builder.queryFields((t) => ({
  earning_rules: t.field({
    type: listOf('EarningRule', EarningRuleRef),
    description: 'Every earning rule, active or not, newest first',
    args: {
      ...pageArgs,
      campaign_type: t.arg({ type: CampaignTypeEnum }),
      is_active: t.arg.boolean({ description: 'Only active (true) or inactive (false) rules' }),
    },
    resolve: (_root, args, ctx) => listEarningRules(ctx.db, ctx.merchantId, args, { activeOnly: false }),
  }),
}));

builder.mutationFields((t) => ({
  create_earning_rule: t.field({
    type: EarningRuleRef,
    args: { input: t.arg({ type: EarningRuleInput, required: true }) },
    resolve: (_root, args, ctx) => createEarningRule(ctx.db, ctx.merchantId, provided(args.input)),
  }),
  update_earning_rule: t.field({
    type: EarningRuleRef,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: EarningRulePatch, required: true }) },
    resolve: (_root, args, ctx) => updateEarningRule(ctx.db, ctx.merchantId, String(args.id), provided(args.input)),
  }),
  activate_earning_rule: t.field({
    type: EarningRuleRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => setEarningRuleActive(ctx.db, ctx.merchantId, String(args.id), true),
  }),
  deactivate_earning_rule: t.field({
    type: EarningRuleRef,
    description: 'Stops the rule from awarding points',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => setEarningRuleActive(ctx.db, ctx.merchantId, String(args.id), false),
  }),
}));
