// Points estimate: POST /points/estimate. The answer comes
// from the calculator that awards real orders, so it equals what the order will earn.

import { optionalVisibleCustomer } from '../../domain/access/customer-sessions.js';
import type { BreakdownEntry } from '../../domain/earning/calculator.js';
import { lineItemSchema } from '../../domain/earning/calculator.js';
import { estimatePoints, estimateRules } from '../../domain/earning/estimate.js';
import { builder, forShoppers } from '../builder.js';
import { programOf } from '../customer-plan.js';
import { resultOf } from '../envelopes.js';
import { ruled } from '../rules.js';

const BreakdownSource = builder.enumType('PointsBreakdownSource', {
  subGraphs: ['public'],
  values: ['earning_rule', 'booster', 'tier'] as const,
});

const BreakdownRef = builder.objectRef<BreakdownEntry>('PointsBreakdown').implement({
  subGraphs: ['public'],
  description: 'What one earning rule, the tier multiplier or a booster adds to the total',
  fields: (t) => ({
    source: t.expose('source', { type: BreakdownSource }),
    id: t.exposeID('id', { description: 'The earning rule, tier or booster campaign' }),
    name: t.exposeString('name'),
    points: t.exposeInt('points'),
  }),
});

interface Estimate {
  points: number;
  base_points: number;
  bonus_points: number;
  breakdown: BreakdownEntry[];
  currency: string;
}

const EstimateRef = builder.objectRef<Estimate>('PointsEstimate').implement({
  subGraphs: ['public'],
  description: 'The points a cart will earn: base (earning rules) plus bonus (tier and boosters), rounded down',
  fields: (t) => ({
    points: t.exposeInt('points', { description: 'base_points + bonus_points' }),
    base_points: t.exposeInt('base_points'),
    bonus_points: t.exposeInt('bonus_points'),
    breakdown: t.expose('breakdown', { type: [BreakdownRef] }),
    currency: t.exposeString('currency'),
  }),
});

/** A cart line: the estimate's and a recorded order's (admin record_order). */
export const LineItemInput = builder.inputType('LineItemInput', {
  subGraphs: ['public', 'admin'],
  fields: (t) => ({
    product_id: t.string({ required: true, ...ruled(lineItemSchema.shape.product_id, 'The product') }),
    quantity: t.int({ required: true, ...ruled(lineItemSchema.shape.quantity, 'Units of the product') }),
    price: t.float({ required: true, ...ruled(lineItemSchema.shape.price, 'Unit price in the shop currency') }),
  }),
});

builder.queryFields((t) => ({
  points_estimate: t.field({
    subGraphs: ['public'],
    ...forShoppers,
    type: resultOf('PointsEstimate', EstimateRef),
    description:
      "Points a cart will earn under the active purchase rules, the customer's tier multiplier and running boosters. REST: POST /v1/points/estimate",
    authScopes: { scope: 'read:points' },
    args: {
      customer_id: t.arg.string(ruled(estimateRules.customer_id, "The customer's platform id: applies their tier and rule limits")),
      subtotal: t.arg.float({ required: true, ...ruled(estimateRules.subtotal, 'Order subtotal in the shop currency') }),
      currency: t.arg.string(
        ruled(estimateRules.currency, "The shop's currency (the only one accepted), as an ISO 4217 code in any case; absent: the shop's"),
      ),
      line_items: t.arg({ type: [LineItemInput], ...ruled(estimateRules.line_items, 'For rules limited to or excluding products') }),
    },
    resolve: async (_root, args, ctx) => ({
      data: await estimatePoints(ctx.db, ctx.merchantId, args, { find: optionalVisibleCustomer(ctx.db, ctx), settings: programOf(ctx) }),
    }),
  }),
}));
