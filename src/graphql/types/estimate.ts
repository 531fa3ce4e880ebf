// Points estimate: POST /points/estimate. The answer comes
// from the calculator that awards real orders, so it equals what the order will earn.

import { optionalVisibleCustomer } from '../../domain/access/customer-sessions.js';
import type { BreakdownEntry } from '../../domain/earning/calculator.js';
import { estimatePoints } from '../../domain/earning/estimate.js';
import { builder, forShoppers } from '../builder.js';
import { resultOf } from '../envelopes.js';

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
    product_id: t.string({ required: true }),
    quantity: t.int({ required: true, description: 'At least 1' }),
    price: t.float({ required: true, description: 'Unit price in the shop currency' }),
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
      customer_id: t.arg.string({ description: "The customer's platform id: applies their tier and rule limits" }),
      subtotal: t.arg.float({ required: true, description: 'Order subtotal in the shop currency, at least 0' }),
      currency: t.arg.string({ description: "Defaults to the shop's currency (the only one accepted)" }),
      line_items: t.arg({ type: [LineItemInput], description: 'For rules limited to or excluding products' }),
    },
    resolve: async (_root, args, ctx) => ({
      data: await estimatePoints(ctx.db, ctx.merchantId, args, optionalVisibleCustomer(ctx.db, ctx)),
    }),
  }),
}));
