// Orders per period of the merchant's local calendar, by the time they were placed or the time
// they were recorded: the finance reports' placed view. The ledger (liability.ts) counts points
// when it recorded them, so an order recorded late is in a later period there than here by
// placed time; this report shows both sides of that gap (`late_orders`) and the orders imported
// as history (recorded without points), which only a placed view puts in their periods.
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { rowsOf } from '../../db/sql.js';
import { Prisma } from '../../generated/prisma/client.js';
import { localDate } from '../shared/calendar.js';
import { parseInput } from '../shared/validation.js';
import { type LiabilityGrouping, type LiabilityInput, localPeriods } from './liability.js';

/** Which time a per-period report groups by: when orders were placed (actions happened), or when the service recorded them. */
export const reportTimes = ['placed', 'recorded'] as const;
export type ReportTime = (typeof reportTimes)[number];

export interface OrderPeriod {
  /** The period's first local date. */
  label: string;
  start: Date;
  /** Exclusive. */
  end: Date;
  orders: number;
  /** The orders' subtotals, in the shop currency. */
  sales: number;
  /** Points the orders were awarded (those still pending included). */
  points_awarded: number;
  /** Orders whose other time is in another period: by placed time, recorded after the period; by recorded time, placed before it. */
  late_orders: number;
  late_points: number;
  /** Orders imported as history: no points. */
  history_orders: number;
  history_sales: number;
}

export interface OrderPeriodsReport {
  timezone: string;
  grouping: LiabilityGrouping;
  grouped_by: ReportTime;
  from: string;
  to: string;
  periods: OrderPeriod[];
  total: OrderPeriod;
}

const byInput = z.object({ by: z.enum(reportTimes).default('placed') });

/** The merchant's orders per local period of a range, by their placed or their recorded time. */
export async function orderPeriods(db: Db, merchantId: string, input: LiabilityInput & { by?: ReportTime }): Promise<OrderPeriodsReport> {
  const { by } = parseInput(byInput, { by: input.by });
  const { from, to, grouping, timezone, start, end, edges } = await localPeriods(db, merchantId, input);
  const bounds = edges.map((e) => e.toISOString());
  const time = Prisma.raw(by === 'placed' ? 'placed_at' : 'created_at');
  const rows = await rowsOf<
    Record<'span' | 'orders' | 'late_orders' | 'history_orders', number> &
      Record<'sales' | 'points' | 'late_points' | 'history_sales', string>
  >(
    db,
    Prisma.sql`
    SELECT span, count(*)::int AS orders, sum(subtotal)::text AS sales, sum(points_awarded)::text AS points,
           count(*) FILTER (WHERE late)::int AS late_orders, coalesce(sum(points_awarded) FILTER (WHERE late), 0)::text AS late_points,
           count(*) FILTER (WHERE history)::int AS history_orders, coalesce(sum(subtotal) FILTER (WHERE history), 0)::text AS history_sales
      FROM (SELECT width_bucket(${time}, ${bounds}::timestamptz[]) AS span, subtotal, points_awarded, history,
                   NOT history AND width_bucket(placed_at, ${bounds}::timestamptz[]) <> width_bucket(created_at, ${bounds}::timestamptz[]) AS late
              FROM orders
             WHERE merchant_id = ${merchantId}::uuid AND ${time} >= ${start.toISOString()}::timestamptz AND ${time} < ${end.toISOString()}::timestamptz) o
     GROUP BY span`,
  );
  const bySpan = new Map(rows.map((r) => [Number(r.span), r]));
  const period = (label: string, from: Date, to: Date, spans: number[]): OrderPeriod => {
    const sum = (pick: (r: (typeof rows)[number]) => number | string) =>
      spans.reduce((n, i) => n + Number(bySpan.has(i) ? pick(bySpan.get(i)!) : 0), 0);
    return {
      label,
      start: from,
      end: to,
      orders: sum((r) => r.orders),
      // summed in cents: money carries no float noise
      sales: sum((r) => Math.round(Number(r.sales) * 100)) / 100,
      points_awarded: sum((r) => r.points),
      late_orders: sum((r) => r.late_orders),
      late_points: sum((r) => r.late_points),
      history_orders: sum((r) => r.history_orders),
      history_sales: sum((r) => Math.round(Number(r.history_sales) * 100)) / 100,
    };
  };
  const periods = edges.slice(1).map((edge, i) => period(localDate(edges[i]!, timezone), edges[i]!, edge, [i + 1]));
  return {
    timezone,
    grouping,
    grouped_by: by,
    from,
    to,
    periods,
    total: period(
      from,
      start,
      end,
      periods.map((_, i) => i + 1),
    ),
  };
}
