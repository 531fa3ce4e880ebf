// Orders per period (admin face only), by the time they were placed or recorded: the finance
// reports' placed view (domain/finance/order-periods.ts).
import { type OrderPeriod, type OrderPeriodsReport, orderPeriods } from '../../domain/finance/order-periods.js';
import { builder } from '../builder.js';
import { LiabilityGroupingEnum, ReportTimeEnum } from './liability.js';

const OrderPeriodRef = builder.objectRef<OrderPeriod>('OrderPeriod').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    label: t.exposeString('label', { description: "The period's first local date, YYYY-MM-DD" }),
    start: t.expose('start', { type: 'DateTime' }),
    end: t.expose('end', { type: 'DateTime', description: 'Exclusive: the next period starts here' }),
    orders: t.exposeInt('orders'),
    sales: t.exposeFloat('sales', { description: "The orders' subtotals, in the shop currency" }),
    points_awarded: t.exposeFloat('points_awarded', { description: 'Points the orders were awarded, pending ones included' }),
    late_orders: t.exposeInt('late_orders', {
      description:
        'Orders recorded in another period than they were placed in: by placed, recorded after it; by recorded, placed before it',
    }),
    late_points: t.exposeFloat('late_points', { description: "The late orders' points" }),
    history_orders: t.exposeInt('history_orders', { description: 'Orders imported as history, which issued no points' }),
    history_sales: t.exposeFloat('history_sales'),
  }),
});

const OrderPeriodsRef = builder.objectRef<OrderPeriodsReport>('OrderPeriods').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    timezone: t.exposeString('timezone', { description: "The merchant's time zone, in which the periods are cut" }),
    grouping: t.expose('grouping', { type: LiabilityGroupingEnum }),
    grouped_by: t.expose('grouped_by', { type: ReportTimeEnum }),
    from: t.exposeString('from'),
    to: t.exposeString('to', { description: 'Included' }),
    periods: t.expose('periods', { type: [OrderPeriodRef] }),
    total: t.expose('total', { type: OrderPeriodRef, description: 'The whole range as one period' }),
  }),
});

builder.queryFields((t) => ({
  order_periods: t.field({
    subGraphs: ['admin'],
    type: OrderPeriodsRef,
    description:
      "Orders, their sales and points per period of a range of the merchant's local dates, by when they were placed (default) or recorded",
    args: {
      from: t.arg({ type: 'Date', required: true }),
      to: t.arg({ type: 'Date', required: true, description: 'Included' }),
      grouping: t.arg({ type: LiabilityGroupingEnum, description: 'Default month' }),
      by: t.arg({ type: ReportTimeEnum, description: 'Default placed' }),
    },
    resolve: (_root, args, ctx) =>
      orderPeriods(ctx.db, ctx.merchantId, {
        from: args.from.toISOString().slice(0, 10),
        to: args.to.toISOString().slice(0, 10),
        grouping: args.grouping ?? undefined,
        by: args.by ?? undefined,
      }),
  }),
}));
