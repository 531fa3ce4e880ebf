// Earning rules: GET /earning-rules (spec 2.1, 4.3).
import type { EarningConditions, EarningRuleConfig } from '../domain/earning/rule-config.js';
import { listEarningRules } from '../domain/earning/earning-rules.js';
import { builder } from './builder.js';
import { CampaignTypeEnum } from './enums.js';
import { listOf, pageArgs } from './pagination.js';

const EarningRuleType = builder.enumType('EarningRuleType', { values: ['fixed', 'variable'] as const });
const LimitPeriod = builder.enumType('LimitPeriod', {
  values: ['day', 'week', 'month', 'year', 'lifetime'] as const,
});

const EarningRuleConfigRef = builder.objectRef<EarningRuleConfig>('EarningRuleConfig').implement({
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
  fields: (t) => ({
    count: t.exposeInt('count'),
    period: t.expose('period', { type: LimitPeriod }),
  }),
});

const EarningConditionsRef = builder.objectRef<EarningConditions>('EarningConditions').implement({
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

export const EarningRuleRef = builder.prismaObject('EarningRule', {
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
    is_active: t.exposeBoolean('isActive'),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const EarningRuleList = listOf('EarningRule', EarningRuleRef);

builder.queryFields((t) => ({
  earning_rules: t.field({
    type: EarningRuleList,
    description: 'Active earning rules, newest first. REST: GET /v1/earning-rules',
    authScopes: { scope: 'read:earning_rules' },
    args: { ...pageArgs, campaign_type: t.arg({ type: CampaignTypeEnum, required: false }) },
    resolve: (_root, args, ctx) => listEarningRules(ctx.db, ctx.principal.merchantId, args, { activeOnly: true }),
  }),
}));
