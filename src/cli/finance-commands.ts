// The points liability from the command line: the roll-forward, each customer's balance at an
// instant, and what lapses soon. `--json` prints the admin API's shapes; `--csv` a table for a
// spreadsheet, one row per period (or customer, or window).

import { readFile } from 'node:fs/promises';
import {
  balancesAt,
  expirySchedule,
  type LiabilityGrouping,
  type LiabilityPeriod,
  liabilityRollForward,
} from '../domain/finance/liability.js';
import { type OrderPeriod, type OrderPeriodsReport, orderPeriods, type ReportTime } from '../domain/finance/order-periods.js';
import { type ReplayReport, replayProgram } from '../domain/finance/replay.js';
import { merchantBySlug } from '../domain/merchants/merchants.js';
import { validationError } from '../domain/shared/errors.js';
import { type Command, moment, type Options, required, UsageError } from './command.js';
import { replayHeap } from './replay-heap.js';

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
const csvField = (v: unknown) => {
  const s = v === null || v === undefined ? '' : v instanceof Date ? v.toISOString() : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};
const csvTable = (header: string[], rows: unknown[][]) => [header, ...rows].map((r) => r.map(csvField).join(',')).join('\r\n');

const merchantOf = (db: Parameters<Command['run']>[0], values: Options['values']) =>
  merchantBySlug(db, required(values.merchant, 'merchant'));

const periodColumns = [
  'period',
  'start',
  'end',
  'opening',
  'issued_orders',
  'issued_engagement',
  'issued_referrals',
  'issued_manual',
  'issued_import',
  'issued',
  'reversed',
  'redeemed',
  'expired',
  'manual_debits',
  'closing',
];
const periodRow = (p: LiabilityPeriod) => [
  p.label,
  p.start,
  p.end,
  p.opening,
  p.issued.orders,
  p.issued.engagement,
  p.issued.referrals,
  p.issued.manual,
  p.issued.import,
  p.issued.total,
  p.reversed,
  p.redeemed,
  p.expired,
  p.manual_debits,
  p.closing,
];
const n = (x: number) => x.toLocaleString('en-US');
/** A per-period report's range and grouping, as the options give them. */
const rangeOf = (values: Options['values']) => ({
  from: values.from ?? '',
  to: values.to ?? '',
  grouping: values.group as LiabilityGrouping | undefined,
});

export const financeCommands: Record<string, Command> = {
  liability: {
    usage: 'liability --merchant <slug> --from <YYYY-MM-DD> --to <YYYY-MM-DD> [--group day|week|month|quarter] [--csv]',
    summary:
      "Points outstanding per period of the merchant's local calendar: opening, issued by source, reversed, redeemed, expired, closing",
    async run(db, { values }) {
      return liabilityRollForward(db, (await merchantOf(db, values)).id, rangeOf(values));
    },
    text: (r: Awaited<ReturnType<typeof liabilityRollForward>>) =>
      [
        `Points liability ${r.from} to ${r.to} (${r.timezone}), by ${r.grouping} of recorded time`,
        ...r.periods.map(
          (p) =>
            `${p.label}  opening ${n(p.opening)}  +${n(p.issued.total)}  -${n(p.reversed + p.redeemed + p.expired + p.manual_debits)}  closing ${n(p.closing)}`,
        ),
        `Pending (not yet outstanding): ${n(r.pending.points)} points, ${r.pending.customers} customers`,
        `Held referrals (not issued until approved): ${n(r.held_referrals.points)} points, ${r.held_referrals.referrals} referrals`,
      ].join('\n'),
    csv: (r: Awaited<ReturnType<typeof liabilityRollForward>>) => csvTable(periodColumns, r.periods.map(periodRow)),
  },
  orders: {
    usage: 'orders --merchant <slug> --from <YYYY-MM-DD> --to <YYYY-MM-DD> [--group day|week|month|quarter] [--by placed|recorded] [--csv]',
    summary:
      "Orders, sales and points per period of the merchant's local calendar, by when they were placed (default) or recorded: late orders and history apart",
    async run(db, { values }) {
      return orderPeriods(db, (await merchantOf(db, values)).id, { ...rangeOf(values), by: values.by as ReportTime | undefined });
    },
    text: (r: OrderPeriodsReport) =>
      [
        `Orders ${r.from} to ${r.to} (${r.timezone}), by ${r.grouping} of ${r.grouped_by} time`,
        ...[...r.periods, r.total].map(
          (p, i) =>
            `${i === r.periods.length ? 'total' : p.label}  ${n(p.orders)} orders  sales ${n(p.sales)}  points ${n(p.points_awarded)}  late ${n(p.late_orders)}  history ${n(p.history_orders)}`,
        ),
      ].join('\n'),
    csv: (r: OrderPeriodsReport) =>
      csvTable(
        ['period', 'start', 'end', 'orders', 'sales', 'points_awarded', 'late_orders', 'late_points', 'history_orders', 'history_sales'],
        r.periods.map((p: OrderPeriod) => [
          p.label,
          p.start,
          p.end,
          p.orders,
          p.sales,
          p.points_awarded,
          p.late_orders,
          p.late_points,
          p.history_orders,
          p.history_sales,
        ]),
      ),
  },
  'liability balances': {
    usage: 'liability balances --merchant <slug> [--at <ISO time>] [--csv]',
    summary: "Every customer's points at an instant (default now); they sum to the liability then",
    async run(db, { values }) {
      const merchant = await merchantOf(db, values);
      const at = moment(values.at);
      const balances = [];
      let after: string | undefined;
      do {
        const page = await balancesAt(db, merchant.id, { at, after, per_page: 1000 });
        balances.push(...page.balances);
        after = page.next ?? undefined;
      } while (after);
      return { at, total: balances.reduce((sum, b) => sum + b.points, 0), balances };
    },
    text: (r) => `${r.balances.length} customers hold ${n(r.total)} points at ${new Date(r.at).toISOString()}`,
    csv: (r) =>
      csvTable(
        ['id', 'customer_id', 'points'],
        r.balances.map((b: { id: string; customer_id: string | null; points: number }) => [b.id, b.customer_id, b.points]),
      ),
  },
  'liability expiring': {
    usage: 'liability expiring --merchant <slug> [--csv]',
    summary: 'Points that lapse within 30, 60 and 90 days if their customers stay inactive',
    async run(db, { values }) {
      return expirySchedule(db, (await merchantOf(db, values)).id);
    },
    text: (r: Awaited<ReturnType<typeof expirySchedule>>) =>
      r.expiry_days === null
        ? 'Points never expire for this merchant.'
        : r.windows.map((w) => `within ${w.days} days: ${n(w.points)} points, ${w.customers} customers`).join('\n'),
    csv: (r: Awaited<ReturnType<typeof expirySchedule>>) =>
      csvTable(
        ['days', 'until', 'points', 'customers'],
        r.windows.map((w) => [w.days, w.until, w.points, w.customers]),
      ),
  },
  replay: {
    usage: 'replay --merchant <slug> --from <YYYY-MM-DD> --to <YYYY-MM-DD> --file <draft.json> [--csv]',
    summary:
      "The period's orders replayed under a draft of the program (earning_rules, booster_campaigns, tiers): points, tiers and liability against what was recorded; writes nothing",
    async run(db, { values }) {
      const merchant = await merchantOf(db, values);
      if (!values.file)
        throw new UsageError('missing --file (the draft: {"earning_rules": [...], "booster_campaigns": [...], "tiers": [...]})');
      const path = values.file;
      const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
        throw new UsageError(`cannot read ${path}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
      });
      let draft: unknown;
      try {
        draft = JSON.parse(text);
      } catch (err) {
        throw validationError({ file: [`is not valid JSON: ${(err as Error).message}`] });
      }
      replayHeap();
      // progress on stderr, so --json and --csv stay clean on stdout
      const progress = (p: { orders_read: number; at: Date }) => {
        process.stderr.write(`\rreplayed ${n(p.orders_read)} orders, up to ${p.at.toISOString()}`);
      };
      const report = await replayProgram(
        db,
        merchant.id,
        { from: values.from ?? '', to: values.to ?? '', draft, top: 20 },
        { onProgress: progress },
      );
      process.stderr.write('\n');
      return report;
    },
    text: (r: ReplayReport) =>
      [
        `Replay ${r.from} to ${r.to} (${r.timezone}): ${n(r.orders)} orders placed then (${n(r.orders_read)} read, ${n(r.history_orders)} imported as history)`,
        `Points issued: actual ${n(r.issued.actual)}, draft ${n(r.issued.draft)} (${r.issued.difference >= 0 ? '+' : ''}${n(r.issued.difference)})`,
        ...(r.mismatched_orders
          ? [`Note: ${n(r.mismatched_orders)} orders replay differently under the program as it stands (it changed since)`]
          : []),
        ...r.by_rule.map((x) => `  rule ${x.name}: ${n(x.replayed)} -> ${n(x.draft)}`),
        ...r.by_tier.map((x) => `  tier ${x.name}: ${n(x.actual)} -> ${n(x.draft)}`),
        `Customers whose tier would differ: ${n(r.tier_changes.customers)}`,
        `Liability change: ${r.liability.change >= 0 ? '+' : ''}${n(r.liability.change)} points`,
        ...r.customers_most_affected.map((c) => `  ${c.customer_id ?? c.id}: ${n(c.actual)} -> ${n(c.draft)}`),
      ].join('\n'),
    csv: (r: ReplayReport) =>
      csvTable(
        ['kind', 'id', 'name', 'actual', 'draft', 'difference'],
        [
          ['total', '', '', r.issued.actual, r.issued.draft, r.issued.difference],
          ...r.by_rule.map((x) => ['rule', x.id, x.name, x.replayed, x.draft, x.difference]),
          ...r.by_tier.map((x) => ['tier', x.id, x.name, x.actual, x.draft, x.difference]),
          ['liability', '', '', r.liability.actual, r.liability.draft, r.liability.change],
          ...r.customers_most_affected.map((c) => ['customer', c.id, c.customer_id, c.actual, c.draft, c.difference]),
        ],
      ),
  },
};
