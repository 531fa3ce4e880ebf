// Earning rules ("ways to earn"). Public: GET /earning-rules (spec 2.1, 4.3), the active ones.
// Admin: all of them (active or not), create, update, activate, deactivate.

import { createEarningRule, listEarningRules, setEarningRuleActive, updateEarningRule } from '../../domain/earning/earning-rules.js';
import type { EarningConditions, EarningRuleConfig } from '../../domain/earning/rule-config.js';
import { builder, forGuests } from '../builder.js';
import { cachedByProgram } from '../cached.js';
import { CampaignTypeEnum } from '../enums.js';
import { listOf, pageArgs, provided } from '../envelopes.js';
import { PRODUCT_IMAGE, PRODUCT_NAME } from '../products.js';

const EarningRuleType = builder.enumType('EarningRuleType', {
  subGraphs: ['public', 'admin'],
  values: ['fixed', 'variable'] as const,
});
const LimitPeriod = builder.enumType('LimitPeriod', {
  subGraphs: ['public', 'admin'],
  values: ['day', 'week', 'month', 'year', 'lifetime'] as const,
});

const EarningRuleConfigRef = builder.objectRef<EarningRuleConfig>('EarningRuleConfig').implement({
  subGraphs: ['public', 'admin'],
  description: 'How points are calculated',
  fields: (t) => ({
    type: t.expose('type', { type: EarningRuleType }),
    value: t.exposeFloat('value', {
      description: 'Points awarded; for variable, points per per_amount unit of the order subtotal',
    }),
    per_amount: t.float({
      nullable: true,
      description: 'variable only: the amount that earns `value` points',
      resolve: (r) => (r.type === 'variable' ? r.per_amount : null),
    }),
  }),
});

type Limit = NonNullable<EarningConditions['limit']>;
const EarningLimitRef = builder.objectRef<Limit>('EarningLimit').implement({
  subGraphs: ['public', 'admin'],
  fields: (t) => ({
    count: t.exposeInt('count'),
    period: t.expose('period', { type: LimitPeriod }),
  }),
});

const EarningConditionsRef = builder.objectRef<EarningConditions>('EarningConditions').implement({
  subGraphs: ['public', 'admin'],
  description: 'Conditions that must all hold for the rule to award points; null fields do not apply',
  fields: (t) => ({
    min_order_subtotal: t.exposeFloat('min_order_subtotal', { nullable: true }),
    max_points_per_order: t.exposeInt('max_points_per_order', { nullable: true }),
    tier_ids: t.exposeStringList('tier_ids', { nullable: true }),
    product_ids: t.exposeStringList('product_ids', { nullable: true }),
    excluded_product_ids: t.exposeStringList('excluded_product_ids', { nullable: true }),
    limit: t.expose('limit', { type: EarningLimitRef, nullable: true }),
    starts_at: t.exposeString('starts_at', { nullable: true }),
    ends_at: t.exposeString('ends_at', { nullable: true }),
  }),
});

const EarningRuleRef = builder.prismaObject('EarningRule', {
  subGraphs: ['public', 'admin'],
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    campaign_type: t.expose('campaignType', { type: CampaignTypeEnum }),
    earning_rule: t.field({
      type: EarningRuleConfigRef,
      nullable: true,
      resolve: (r) => r.earningRule as EarningRuleConfig | null,
    }),
    conditions: t.field({
      type: EarningConditionsRef,
      nullable: true,
      resolve: (r) => r.conditions as EarningConditions | null,
    }),
    product_name: t.exposeString('productName', { subGraphs: ['admin'], nullable: true, description: PRODUCT_NAME }),
    product_image_url: t.exposeString('productImageUrl', { subGraphs: ['admin'], nullable: true, description: PRODUCT_IMAGE }),
    is_active: t.exposeBoolean('isActive'),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { subGraphs: ['admin'], type: 'DateTime' }),
  }),
});

const EarningRuleList = listOf('EarningRule', EarningRuleRef);

const earningRuleDescription = '{type: "fixed", value} or {type: "variable", value, per_amount}: value points per per_amount spent';
const conditionsDescription =
  'Optional: {min_order_subtotal, max_points_per_order, tier_ids, product_ids, excluded_product_ids, ' +
  'limit {count, period: day|week|month|year|lifetime}, starts_at, ends_at}. Periods are days of the merchant ' +
  'time zone; starts_at/ends_at are ISO times, or dates (YYYY-MM-DD) of that zone: from the start of starts_at ' +
  'through the end of ends_at, stored as UTC instants';

const EarningRuleInput = builder.inputType('EarningRuleInput', {
  subGraphs: ['admin'],
  fields: (t) => ({
    name: t.string({ required: true }),
    description: t.string(),
    campaign_type: t.field({ type: CampaignTypeEnum, required: true }),
    earning_rule: t.field({ type: 'JSON', description: earningRuleDescription }),
    conditions: t.field({ type: 'JSON', description: conditionsDescription }),
    product_name: t.string({ description: PRODUCT_NAME }),
    product_image_url: t.string({ description: PRODUCT_IMAGE }),
    is_active: t.boolean({ description: 'Default true' }),
  }),
});

const EarningRulePatch = builder.inputType('EarningRulePatch', {
  subGraphs: ['admin'],
  description: 'Fields to change; the result is validated as a whole',
  fields: (t) => ({
    name: t.string(),
    description: t.string(),
    campaign_type: t.field({ type: CampaignTypeEnum }),
    earning_rule: t.field({ type: 'JSON', description: earningRuleDescription }),
    conditions: t.field({ type: 'JSON', description: conditionsDescription }),
    product_name: t.string({ description: PRODUCT_NAME }),
    product_image_url: t.string({ description: PRODUCT_IMAGE }),
    is_active: t.boolean(),
  }),
});

builder.queryFields((t) => ({
  earning_rules: t.field({
    subGraphs: ['public'],
    ...cachedByProgram,
    ...forGuests('read:earning_rules'),
    type: EarningRuleList,
    description: 'Active earning rules, newest first. REST: GET /v1/earning-rules',
    args: { ...pageArgs, campaign_type: t.arg({ type: CampaignTypeEnum, required: false }) },
    resolve: (_root, args, ctx) => listEarningRules(ctx.db, ctx.merchantId, args, { activeOnly: true }),
  }),
  admin_earning_rules: t.field({
    subGraphs: ['admin'],
    type: EarningRuleList,
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
    subGraphs: ['admin'],
    type: EarningRuleRef,
    args: { input: t.arg({ type: EarningRuleInput, required: true }) },
    resolve: (_root, args, ctx) => createEarningRule(ctx.db, ctx.merchantId, provided(args.input)),
  }),
  update_earning_rule: t.field({
    subGraphs: ['admin'],
    type: EarningRuleRef,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: EarningRulePatch, required: true }) },
    resolve: (_root, args, ctx) => updateEarningRule(ctx.db, ctx.merchantId, String(args.id), provided(args.input)),
  }),
  activate_earning_rule: t.field({
    subGraphs: ['admin'],
    type: EarningRuleRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => setEarningRuleActive(ctx.db, ctx.merchantId, String(args.id), true),
  }),
  deactivate_earning_rule: t.field({
    subGraphs: ['admin'],
    type: EarningRuleRef,
    description: 'Stops the rule from awarding points',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => setEarningRuleActive(ctx.db, ctx.merchantId, String(args.id), false),
  }),
}));
