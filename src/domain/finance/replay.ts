// What-if replay: the orders placed in a period judged again under a draft of the program
// (earning rules, boosters, tiers), beside the program as it stands, writing nothing. Each order
// goes through the engine's own code: the same calculator and limit loop (earning/earn.ts
// awardWithin), the same tier judgement (tiers/standing.ts judgeStanding), the same refund
// arithmetic (events/orders.ts owedFor); only the state they read is kept in memory instead of
// the database (replay-state.ts): limit slots taken, and each customer's qualifying credits and
// amount spent. The draft and the program as it stands: replay-draft.ts.
//
// An order is judged as the engine judged it: at the moment it was placed (orders.placed_at), by
// rules and boosters then, limits in the local period then, and the tier the standing then gave:
// the credits posted and orders recorded by that moment, counted in the windows of their placed
// times. History is read from the merchant's first order, in keyset pages in recorded order, up
// to the recording of the last order placed in the period (one recorded late comes after it),
// with the program as it stands for orders placed before `from` (that reproduces the recorded
// state at `from`) and the draft for those placed from then on. Credits that are not an order's
// earnings (manual, engagement, referrals, imports) count towards tiers as recorded (a referral
// held for review has no credit until it is approved, so it counts from its approval); an order's
// earnings count when the ledger credited them (at once, or after the return window), scaled to
// the points replayed. Two lanes run side by side: the program as it stands (`replayed`, which
// must equal what was recorded, order by order) and the draft. An order imported as history
// earned nothing as recorded, so nothing in the first lane; the draft judges it as an order.
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { rowsOf } from '../../db/sql.js';
import { Prisma } from '../../generated/prisma/client.js';
import { type Cart, cents, type EarningProgram, type PointsCalculation } from '../earning/calculator.js';
import { awardWithin } from '../earning/earn.js';
import { earnsNothing } from '../earning/earning-program.js';
import { periodKey } from '../earning/limits.js';
import type { LimitPeriod } from '../earning/rule-config.js';
import { owedFor } from '../events/orders.js';
import { addPeriods, periodStart, startOfLocalDate } from '../shared/calendar.js';
import { validationError } from '../shared/errors.js';
import { field } from '../shared/fields.js';
import { parseInput } from '../shared/validation.js';
import { judgeStanding, type TierMetrics, windowStart } from '../tiers/standing.js';

import { type Current, currentProgram, draftProgram, type Program, programOf, type ReplayTier } from './replay-draft.js';
import { type Awaiting, CustomerState, type Keep, keepFor } from './replay-state.js';

/** The longest period a replay reports on. */
const MAX_REPLAY_DAYS = 731;
const PAGE = 5_000;
const DAY_MS = 86_400_000;
const QUARTER_HOUR_MS = 15 * 60_000;
/** The calendar cache's key for each limit period's key. */
const LIMIT_PERIOD: Record<LimitPeriod, string> = {
  day: 'limit:day',
  week: 'limit:week',
  month: 'limit:month',
  year: 'limit:year',
  lifetime: 'limit:lifetime',
};

const replayInput = z
  .object({ from: field.date, to: field.date, top: z.number().int().min(0).max(1000).default(20) })
  .refine((r) => r.from <= r.to, { path: ['to'], message: 'must be on or after from' });

export interface ReplayInput {
  from: string;
  to: string;
  draft: unknown;
  /** How many of the customers most affected to list (default 20). */
  top?: number;
}

// ---- the report ----

interface ReplayTotals {
  /** Points the orders of the period were awarded, as recorded. */
  actual: number;
  /** The same orders replayed under the program as it stands: equal to `actual` unless the program changed meanwhile. */
  replayed: number;
  /** The same orders under the draft. */
  draft: number;
  /** draft − actual. */
  difference: number;
}

interface ReplayByRule {
  id: string;
  name: string;
  /** Under the program as it stands (the recorded ledger keeps no split by rule). */
  replayed: number;
  draft: number;
  difference: number;
}

interface ReplayByTier {
  id: string | null;
  name: string;
  /** Points recorded for orders of customers in this tier at the time (judged by the replay of the program as it stands). */
  actual: number;
  /** Points under the draft for orders of customers in this tier under the draft. */
  draft: number;
  difference: number;
}

interface ReplayCustomer {
  id: string;
  customer_id: string | null;
  actual: number;
  draft: number;
  difference: number;
  tier_id: string | null;
  draft_tier_id: string | null;
}

export interface ReplayReport {
  timezone: string;
  from: string;
  to: string;
  /** The time the period's orders are chosen by: when they were placed (an order recorded late is in the period it was placed in). */
  grouped_by: 'placed';
  /** Orders placed in the period, and orders read in all (history before it sets the state at `from`). */
  orders: number;
  orders_read: number;
  /** Of the period's orders, those imported as history (recorded without points: only the draft awards them). */
  history_orders: number;
  /** Orders whose replay under the program as it stands differs from what was recorded. */
  mismatched_orders: number;
  issued: ReplayTotals;
  by_rule: ReplayByRule[];
  by_tier: ReplayByTier[];
  /** Customers whose tier at the end of the period would differ under the draft. */
  tier_changes: { customers: number; moves: { from_tier_id: string | null; to_tier_id: string | null; customers: number }[] };
  /**
   * The change in points outstanding from the period's orders: points issued less what their
   * refunds owe back, draft against recorded. In points: a value per point turns it into money.
   */
  liability: { actual: number; draft: number; change: number };
  /** The customers whose points would change most (by absolute difference), largest first. */
  customers_most_affected: ReplayCustomer[];
}

export interface ReplayOrder {
  order_id: string;
  customer_id: string;
  recorded_at: Date;
  recorded: number;
  replayed: PointsCalculation;
  draft: PointsCalculation;
  tier_id: string | null;
  draft_tier_id: string | null;
}

export interface ReplayOptions {
  /** Refuse when more orders than this would be read (the synchronous admin query's bound). */
  maxOrders?: number;
  /** After each page read (awaited: the signal is checked after it). */
  onProgress?: (p: { orders_read: number; at: Date }) => void | Promise<void>;
  /** Every order of the period, replayed: for checking a replay against the ledger. */
  onOrder?: (o: ReplayOrder) => void;
  /** Checked after each page: an aborted replay stops there, throwing the signal's reason. */
  signal?: AbortSignal;
  /** Orders (and credits) read a page at a time (default 5,000). */
  pageSize?: number;
}

interface OrderRow {
  id: string;
  customer_id: string;
  platform_id: string | null;
  excluded: boolean;
  platform_order_id: string;
  subtotal: string;
  refunded_amount: string;
  placed_at: Date;
  created_at: Date;
  refunded_at: Date | null;
  points_awarded: number;
  /** Imported as history: recorded without points. */
  history: boolean;
  /** The order's line items ([product id, quantity, unit price]), null for an order recorded without them. */
  lines: [string, number, string][] | null;
}

interface CreditRow {
  id: string;
  customer_id: string;
  points: number;
  created_at: Date;
  placed_at: Date;
  order_id: string | null;
}

/** Keyset pages of one merchant's rows in time order, read ahead one page. */
async function* pages<T extends { id: string; created_at: Date }>(
  size: number,
  read: (after: { at: Date; id: string } | null) => Promise<T[]>,
) {
  let after: { at: Date; id: string } | null = null;
  let next = read(after);
  for (;;) {
    const rows = await next;
    if (rows.length === 0) return;
    const last = rows.at(-1)!;
    after = { at: new Date(last.created_at), id: last.id };
    next = rows.length < size ? Promise.resolve([]) : read(after);
    yield rows;
  }
}

/** A replay's input checked and its programs built: what starting one refuses, it refuses before reading any order. */
export interface PreparedReplay {
  from: string;
  to: string;
  top: number;
  zone: string;
  pendingDays: number;
  /** The period as instants: `[start, end)`. */
  start: Date;
  end: Date;
  current: Current;
  programs: [Program, Program];
}

/** Checks a replay's input (422 validation_error, 404 not_found for a draft's unknown id) and builds its programs. */
export async function prepareReplay(db: Db, merchantId: string, input: ReplayInput): Promise<PreparedReplay> {
  const { from, to, top } = parseInput(replayInput, input);
  const merchant = await db.merchant.findUniqueOrThrow({ where: { id: merchantId }, select: { timezone: true, pointsPendingDays: true } });
  const zone = merchant.timezone;
  const start = startOfLocalDate(from, zone);
  const end = addPeriods('day', startOfLocalDate(to, zone), 1, zone);
  if (end.getTime() - start.getTime() > (MAX_REPLAY_DAYS + 1) * DAY_MS) {
    throw validationError({ to: [`must be at most ${MAX_REPLAY_DAYS} days after from`] });
  }
  const current = await currentProgram(db, merchantId);
  const programs: [Program, Program] = [
    programOf(current.rules, current.boosters, current.tiers),
    draftProgram(current, input.draft, zone),
  ];
  return { from, to, top, zone, pendingDays: merchant.pointsPendingDays, start, end, current, programs };
}

/** Replays the orders of `from`–`to` (the merchant's local dates) under the draft. Writes nothing. */
export async function replayProgram(db: Db, merchantId: string, input: ReplayInput, opts: ReplayOptions = {}): Promise<ReplayReport> {
  const prepared = await prepareReplay(db, merchantId, input);
  const { to, end, zone, programs, current, from, top, start } = prepared;
  const page = opts.pageSize ?? PAGE;
  // History is read in recorded order up to the recording of the last order placed before the
  // period's end (a late one is recorded after it), and how late any order was recorded bounds
  // how far back a judgement looks (what the state kept in memory may fold).
  const [bounds] = await rowsOf<{ until: Date; lateness: number; orders: number }>(
    db,
    Prisma.sql`
    WITH bounds AS (
      SELECT greatest(${end.toISOString()}::timestamptz,
                      max(created_at) FILTER (WHERE placed_at < ${end.toISOString()}::timestamptz) + interval '1 millisecond') AS until,
             coalesce(extract(epoch FROM max(created_at - placed_at)) * 1000, 0)::float8 AS lateness
        FROM orders WHERE merchant_id = ${merchantId}::uuid
    )
    SELECT until, greatest(lateness, 0) AS lateness,
           (SELECT count(*)::int FROM orders WHERE merchant_id = ${merchantId}::uuid AND created_at < bounds.until) AS orders
      FROM bounds`,
  );
  const until = new Date(bounds!.until).toISOString();
  if (opts.maxOrders !== undefined && bounds!.orders > opts.maxOrders) {
    throw validationError({
      from: [
        `the history up to ${to} holds ${bounds!.orders} orders, more than the ${opts.maxOrders} a query replays: use the CLI (loyalty replay)`,
      ],
    });
  }
  const replay = new Replay(programs, zone, prepared.pendingDays, start.getTime(), end.getTime(), Number(bounds!.lateness) + 1);
  const credits = pages<CreditRow>(page, (after) =>
    rowsOf<CreditRow>(
      db,
      Prisma.sql`
      SELECT id::text, customer_id::text, points, created_at, placed_at,
             CASE WHEN reference_kind = 'order' AND source = 'earning_rule'::"TransactionSource" THEN reference_id END AS order_id
        FROM points_transactions
       WHERE merchant_id = ${merchantId}::uuid AND type = 'credit'::"TransactionType" AND created_at < ${until}::timestamptz
         ${after ? Prisma.sql`AND (created_at, id) > (${after.at.toISOString()}::timestamptz, ${after.id}::uuid)` : Prisma.empty}
       ORDER BY created_at, id LIMIT ${page}`,
    ),
  );
  let creditPage: CreditRow[] = [];
  let creditIndex = 0;
  let creditsDone = false;
  /** Applies every recorded credit up to `until` (an order's own credit waits for it: `early`). */
  const creditsBefore = async (until: number) => {
    for (;;) {
      if (creditIndex >= creditPage.length) {
        if (creditsDone) return;
        const next = await credits.next();
        if (next.done) {
          creditsDone = true;
          return;
        }
        creditPage = next.value;
        creditIndex = 0;
      }
      const row = creditPage[creditIndex]!;
      if (row.created_at.getTime() > until) return;
      replay.recordedCredit(row);
      creditIndex += 1;
    }
  };
  const orders = pages<OrderRow>(page, (after) =>
    rowsOf<OrderRow>(
      db,
      Prisma.sql`
      SELECT o.id::text, o.customer_id::text, c.platform_id, c.status = 'excluded'::"CustomerStatus" AS excluded,
             o.platform_order_id, o.subtotal::text, o.refunded_amount::text, o.placed_at, o.created_at, o.refunded_at, o.points_awarded,
             o.history,
             (SELECT json_agg(json_build_array(l.product_id, l.quantity, l.price::text) ORDER BY l.position)
                FROM order_lines l WHERE l.merchant_id = o.merchant_id AND l.order_id = o.id) AS lines
        FROM orders o JOIN customers c ON c.merchant_id = o.merchant_id AND c.id = o.customer_id
       WHERE o.merchant_id = ${merchantId}::uuid AND o.created_at < ${until}::timestamptz
         ${after ? Prisma.sql`AND (o.created_at, o.id) > (${after.at.toISOString()}::timestamptz, ${after.id}::uuid)` : Prisma.empty}
       ORDER BY o.created_at, o.id LIMIT ${page}`,
    ),
  );
  for await (const rows of orders) {
    for (const row of rows) {
      await creditsBefore(row.created_at.getTime());
      const replayed = await replay.order(row);
      if (replayed) opts.onOrder?.(replayed);
    }
    await opts.onProgress?.({ orders_read: replay.ordersRead, at: rows.at(-1)!.created_at });
    if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('replay cancelled');
  }
  await creditsBefore(Date.parse(until) - 1);
  return replay.report({ zone, from, to, end: end.getTime(), top, current });
}

/** The cart the engine judged: the subtotal and, when the order kept them, its line items. */
function cartOf(row: OrderRow): Cart {
  const subtotal = Number(row.subtotal);
  if (!row.lines) return { subtotal };
  return { subtotal, line_items: row.lines.map(([product_id, quantity, price]) => ({ product_id, quantity, price: Number(price) })) };
}

/** What an order recorded without points (history) earned as recorded. */
const NOTHING: PointsCalculation = { points: 0, base_points: 0, bonus_points: 0, breakdown: [] };

const EMPTY_METRICS = (): TierMetrics => ({
  'points_earned:lifetime': 0,
  'points_earned:calendar_year': 0,
  'points_earned:rolling_12_months': 0,
  'amount_spent:lifetime': 0,
  'amount_spent:calendar_year': 0,
  'amount_spent:rolling_12_months': 0,
});

class Replay {
  private customers = new Map<string, CustomerState>();
  /** The rolling window's start per UTC quarter hour (every zone's offset is a whole number of them). */
  private calendar = new Map<string, string | number>();
  ordersRead = 0;
  orders = 0;
  historyOrders = 0;
  mismatched = 0;
  private totals = { actual: 0, replayed: 0, draft: 0 };
  private byRule = [new Map<string, number>(), new Map<string, number>()] as const;
  private byTier = [new Map<string | null, number>(), new Map<string | null, number>()] as const;
  private liability = { actual: 0, draft: 0 };

  /** What the tier ladders of either program need kept of each customer's credits and of the amounts spent. */
  private keepCredits: Keep;
  private keepSpent: Keep;

  constructor(
    private programs: [Program, Program],
    private zone: string,
    private pendingDays: number,
    /** The period, by placed time: `[start, end)`. */
    private start: number,
    private end: number,
    /** The longest an order read was recorded after it was placed: how far back a later judgement may look. */
    private lateness: number,
  ) {
    this.keepCredits = keepFor(programs, 'points_earned');
    this.keepSpent = keepFor(programs, 'amount_spent');
    for (const { tiers } of programs) {
      this.ladders.set(tiers, {
        rolling: tiers.some((t) => t.window === 'rolling_12_months'),
        spent: tiers.some((t) => t.qualification === 'amount_spent'),
      });
    }
  }

  /** What each program's ladder reads: a rolling window, amounts spent. */
  private ladders = new Map<ReplayTier[], { rolling: boolean; spent: boolean }>();

  /** The answers of the local days seen last: `[start, end)` → key → answer. */
  private days: { start: number; end: number; answers: Map<string, string | number> }[] = [];

  /** A calendar answer that holds for a whole local day (a period key, a calendar year's start), computed once per day. */
  private daily<T extends string | number>(key: string, at: number, compute: () => T): T {
    let day = this.days.find((d) => d.start <= at && at < d.end);
    if (!day) {
      const start = periodStart('day', new Date(at), this.zone);
      day = { start: start.getTime(), end: addPeriods('day', start, 1, this.zone).getTime(), answers: new Map() };
      this.days.unshift(day);
      if (this.days.length > 8) this.days.pop();
    }
    let v = day.answers.get(key);
    if (v === undefined) day.answers.set(key, (v = compute()));
    return v as T;
  }

  private cached<T extends string | number>(key: string, at: number, compute: () => T): T {
    const k = `${key}@${Math.floor(at / QUARTER_HOUR_MS)}`;
    let v = this.calendar.get(k);
    if (v === undefined) {
      if (this.calendar.size > 100_000) this.calendar.clear();
      v = compute();
      this.calendar.set(k, v);
    }
    return v as T;
  }

  private customer(id: string, platformId: string | null = null, excluded = false): CustomerState {
    let c = this.customers.get(id);
    if (!c) {
      c = new CustomerState(id, platformId, excluded);
      this.customers.set(id, c);
    } else if (platformId !== null) {
      c.platformId = platformId;
      c.excluded = excluded;
    }
    return c;
  }

  /** Replayed points of orders whose ledger credit is still to be read (platform order id →). */
  private awaiting = new Map<string, Awaiting>();
  /** Order credits read before their order (the order row's time is the client's clock, the credit's the database's): at, points. */
  private early = new Map<string, { customerId: string; credits: number[] }>();
  /** Small numbers for rule ids and period keys: a limit slot is one number, not a string per order. */
  private ruleNumbers = new Map<string, number>();
  private periodNumbers = new Map<string, number>();

  recordedCredit(row: CreditRow) {
    const c = this.customer(row.customer_id);
    const at = row.created_at.getTime();
    const placed = row.placed_at.getTime();
    if (row.order_id === null) {
      if (this.keepCredits !== 'nothing') c.credit(at, placed, row.points, row.points);
      return;
    }
    const award = this.awaiting.get(row.order_id);
    if (!award || award.customer !== c) {
      const early = this.early.get(row.order_id) ?? { customerId: c.id, credits: [] };
      early.credits.push(at, placed, row.points);
      this.early.set(row.order_id, early);
      return;
    }
    this.awaiting.delete(row.order_id);
    // the credit is what the ledger kept of the award (all of it, or what a refund in the return window left)
    const kept = (points: number) => (award.recorded > 0 ? Math.floor((points * row.points) / award.recorded) : 0);
    if (this.keepCredits !== 'nothing') c.credit(at, placed, kept(award.points[0]), kept(award.points[1]));
  }

  /**
   * The figures the tier judgement reads at `now` from what the customer's lane holds: credits
   * posted and orders recorded by `seen` (an order's judgement: its placed time, when the tier it
   * was judged at was the one held then; the period's end: everything read), counted in the
   * windows of their placed times up to `now`.
   */
  private metrics(c: CustomerState, lane: 0 | 1, tiers: ReplayTier[], now: number, seen = now): TierMetrics {
    const m = EMPTY_METRICS();
    if (tiers.length === 0) return m;
    const year = this.daily('year', now, () => windowStart('calendar_year', new Date(now), this.zone)!.getTime());
    // a rolling window moves with `now`: within a quarter hour (no local clock change falls inside one) it moves by as much
    const bucket = Math.floor(now / QUARTER_HOUR_MS) * QUARTER_HOUR_MS;
    const rolling = this.ladders.get(tiers)!.rolling
      ? this.cached('rolling', now, () => windowStart('rolling_12_months', new Date(bucket), this.zone)!.getTime()) + (now - bucket)
      : now;
    let lifetime = c.older[lane];
    let inYear = 0;
    let inRolling = 0;
    const credits = c.credits;
    for (let i = 0; i < credits.length; i += 4) {
      const placedAt = credits[i + 1]!;
      if (credits[i]! > seen || placedAt > now) continue;
      const points = credits[i + 2 + lane]!;
      lifetime += points;
      if (placedAt >= year) inYear += points;
      if (placedAt >= rolling) inRolling += points;
    }
    m['points_earned:lifetime'] = lifetime;
    m['points_earned:calendar_year'] = inYear;
    m['points_earned:rolling_12_months'] = inRolling;
    if (this.ladders.get(tiers)!.spent) {
      lifetime = c.olderSpent;
      inYear = 0;
      inRolling = 0;
      const spent = c.spent;
      for (let i = 0; i < spent.length; i += 4) {
        const placedAt = spent[i]!;
        if (spent[i + 2]! <= now || spent[i + 3]! > seen || placedAt > now) continue;
        const subtotal = spent[i + 1]!;
        lifetime += subtotal;
        if (placedAt >= year) inYear += subtotal;
        if (placedAt >= rolling) inRolling += subtotal;
      }
      m['amount_spent:lifetime'] = lifetime / 100;
      m['amount_spent:calendar_year'] = inYear / 100;
      m['amount_spent:rolling_12_months'] = inRolling / 100;
    }
    return m;
  }

  async order(row: OrderRow): Promise<ReplayOrder | null> {
    this.ordersRead += 1;
    const c = this.customer(row.customer_id, row.platform_id, row.excluded);
    const recordedAt = row.created_at.getTime();
    const placedAt = row.placed_at.getTime();
    // the draft is in force for the orders placed from the period's start; before it both lanes run the program as it stands
    const drafted = placedAt >= this.start;
    const inPeriod = drafted && placedAt < this.end;
    const cart = cartOf(row);
    const results: PointsCalculation[] = [];
    const tiers: (string | null)[] = [];
    for (const lane of [0, 1] as const) {
      const program = this.programs[drafted ? lane : 0];
      // the tier held when the order was placed, from what was known then
      const tier = program.tiers.length
        ? judgeStanding(program.tiers, this.metrics(c, lane, program.tiers, placedAt), row.placed_at, this.zone).current
        : null;
      tiers.push(tier?.id ?? null);
      // history imported without points earned nothing as recorded; the draft judges it as an order
      results.push(lane === 0 && row.history ? NOTHING : await this.calculate(program, c, lane, tier, cart, row));
    }
    const [replayed, draft] = results as [PointsCalculation, PointsCalculation];
    this.settle(c, row, [replayed.points, draft.points]);
    // what a later judgement may still look back to: an order recorded late is judged at its placed time
    const settled = recordedAt - this.lateness;
    if (this.keepSpent !== 'nothing') {
      c.spent.push(placedAt, cents(Number(row.subtotal)), row.refunded_at ? row.refunded_at.getTime() : Number.NaN, recordedAt);
      c.foldSpent(settled, this.keepSpent);
    }
    c.foldCredits(settled, this.keepCredits);
    const early = this.early.get(row.platform_order_id);
    if (early && early.customerId === c.id) {
      this.early.delete(row.platform_order_id);
      const credits = early.credits;
      for (let i = 0; i < credits.length; i += 3) {
        this.recordedCredit({
          id: '',
          customer_id: c.id,
          points: credits[i + 2]!,
          created_at: new Date(credits[i]!),
          placed_at: new Date(credits[i + 1]!),
          order_id: row.platform_order_id,
        });
      }
    }
    if (replayed.points !== row.points_awarded) this.mismatched += 1;
    if (!inPeriod) return null;
    if (row.history) this.historyOrders += 1;
    this.count(c, row, replayed, draft, tiers as [string | null, string | null]);
    return {
      order_id: row.platform_order_id,
      customer_id: row.customer_id,
      recorded_at: row.created_at,
      recorded: row.points_awarded,
      replayed,
      draft,
      tier_id: tiers[0]!,
      draft_tier_id: tiers[1]!,
    };
  }

  private numberOf(numbers: Map<string, number>, key: string) {
    let n = numbers.get(key);
    if (n === undefined) numbers.set(key, (n = numbers.size));
    return n;
  }

  /** The engine's award for this order in this lane: the calculator under the limit loop, slots counted in memory. */
  private calculate(program: Program, c: CustomerState, lane: 0 | 1, tier: ReplayTier | null, cart: Cart, row: OrderRow) {
    const placedAt = row.placed_at.getTime();
    const slots = new Map<string, number>();
    const usage: Record<string, number> = {};
    for (const rule of program.limited) {
      const period = this.daily(LIMIT_PERIOD[rule.limit.period], placedAt, () =>
        this.numberOf(this.periodNumbers, periodKey(rule.limit.period, row.placed_at, this.zone)),
      );
      const slot = this.numberOf(this.ruleNumbers, rule.id) * 2 ** 24 + period;
      slots.set(rule.id, slot);
      usage[rule.id] = c.used(lane, slot);
    }
    const excluded = earnsNothing({ status: row.excluded ? 'excluded' : 'member' });
    const earning: EarningProgram = {
      earningRules: excluded ? [] : program.rules,
      tierMultiplier: tier && !excluded ? tier.earnMultiplier : 1,
      tierId: excluded ? null : (tier?.id ?? null),
      tierName: tier?.name ?? null,
      boosters: excluded ? [] : program.boosters,
      usage,
      timezone: this.zone,
    };
    return awardWithin(earning, cart, row.placed_at, (rule, used) => {
      if (used >= rule.limit.count) return false;
      c.take(lane, slots.get(rule.id)!, used + 1);
      return true;
    });
  }

  /** When each lane's points count towards its tier: as the ledger credited the recorded award, or after the return window. */
  private settle(c: CustomerState, row: OrderRow, points: [number, number]) {
    if (row.points_awarded > 0) {
      this.awaiting.set(row.platform_order_id, { customer: c, points, recorded: row.points_awarded });
      return;
    }
    // nothing was recorded, so no credit to follow: the replayed points are credited when the engine would have
    // (at once, or once the return window from the placed time is over), and count from the placed time
    const placedAt = row.placed_at.getTime();
    const recordedAt = row.created_at.getTime();
    const windowEnds = placedAt + this.pendingDays * DAY_MS;
    const held = this.pendingDays > 0 && windowEnds > recordedAt;
    if (held && row.refunded_at && row.refunded_at.getTime() <= windowEnds) return;
    if (this.keepCredits !== 'nothing') c.credit(held ? windowEnds : recordedAt, placedAt, points[0], points[1]);
  }

  private count(
    c: CustomerState,
    row: OrderRow,
    replayed: PointsCalculation,
    draft: PointsCalculation,
    [tier, draftTier]: [string | null, string | null],
  ) {
    this.orders += 1;
    this.totals.actual += row.points_awarded;
    this.totals.replayed += replayed.points;
    this.totals.draft += draft.points;
    const add = <K>(map: Map<K, number>, key: K, n: number) => map.set(key, (map.get(key) ?? 0) + n);
    for (const [i, calc] of [replayed, draft].entries()) {
      for (const e of calc.breakdown) if (e.source === 'earning_rule') add(this.byRule[i]!, e.id, e.points);
    }
    add(this.byTier[0], tier, row.points_awarded);
    add(this.byTier[1], draftTier, draft.points);
    const subtotalCents = cents(Number(row.subtotal));
    const refundedCents = cents(Number(row.refunded_amount));
    const full = row.refunded_at !== null || (subtotalCents > 0 && refundedCents >= subtotalCents);
    const subtotal = Number(row.subtotal);
    const actualOwed = refundedCents > 0 ? owedFor({ subtotal, pointsAwarded: row.points_awarded }, refundedCents, full) : 0;
    const draftOwed = refundedCents > 0 ? owedFor({ subtotal, pointsAwarded: draft.points }, refundedCents, full) : 0;
    this.liability.actual += row.points_awarded - actualOwed;
    this.liability.draft += draft.points - draftOwed;
    c.issued[0] += row.points_awarded;
    c.issued[1] += draft.points;
  }

  report({
    zone,
    from,
    to,
    end,
    top,
    current,
  }: {
    zone: string;
    from: string;
    to: string;
    end: number;
    top: number;
    current: Current;
  }): ReplayReport {
    const [program, draft] = this.programs;
    const ruleNames = new Map<string, string>([...current.rules, ...program.rules, ...draft.rules].map((r) => [r.id, r.name]));
    const ruleIds = new Set([...program.rules, ...draft.rules].map((r) => r.id));
    const tierNames = new Map<string | null, string>([
      [null, 'No tier'],
      ...[...current.tiers, ...draft.tiers].map((t) => [t.id, t.name] as const),
    ]);
    const tierIds = new Set<string | null>([...this.byTier[0].keys(), ...this.byTier[1].keys()]);
    // each customer's tier at the end of the period, in each lane
    const moves = new Map<string, { from_tier_id: string | null; to_tier_id: string | null; customers: number }>();
    let moved = 0;
    const affected: ReplayCustomer[] = [];
    for (const c of this.customers.values()) {
      const judge = (p: Program, lane: 0 | 1) =>
        p.tiers.length
          ? (judgeStanding(p.tiers, this.metrics(c, lane, p.tiers, end - 1, Number.POSITIVE_INFINITY), new Date(end - 1), zone).current
              ?.id ?? null)
          : null;
      const tierA = judge(program, 0);
      const tierB = judge(draft, 1);
      if (tierA !== tierB) {
        moved += 1;
        const key = `${tierA} ${tierB}`;
        const move = moves.get(key) ?? { from_tier_id: tierA, to_tier_id: tierB, customers: 0 };
        move.customers += 1;
        moves.set(key, move);
      }
      const [actual, drafted] = c.issued;
      const difference = drafted - actual;
      if (difference !== 0 || tierA !== tierB) {
        affected.push({ id: c.id, customer_id: c.platformId, actual, draft: drafted, difference, tier_id: tierA, draft_tier_id: tierB });
      }
    }
    affected.sort((x, y) => Math.abs(y.difference) - Math.abs(x.difference) || (x.id < y.id ? -1 : 1));
    return {
      timezone: zone,
      from,
      to,
      grouped_by: 'placed',
      orders: this.orders,
      orders_read: this.ordersRead,
      history_orders: this.historyOrders,
      mismatched_orders: this.mismatched,
      issued: { ...this.totals, difference: this.totals.draft - this.totals.actual },
      by_rule: [...ruleIds].map((id) => {
        const replayed = this.byRule[0].get(id) ?? 0;
        const d = this.byRule[1].get(id) ?? 0;
        return { id, name: ruleNames.get(id) ?? id, replayed, draft: d, difference: d - replayed };
      }),
      by_tier: [...tierIds].map((id) => {
        const actual = this.byTier[0].get(id) ?? 0;
        const d = this.byTier[1].get(id) ?? 0;
        return { id, name: tierNames.get(id) ?? String(id), actual, draft: d, difference: d - actual };
      }),
      tier_changes: { customers: moved, moves: [...moves.values()].sort((x, y) => y.customers - x.customers) },
      liability: { ...this.liability, change: this.liability.draft - this.liability.actual },
      customers_most_affected: affected.slice(0, top),
    };
  }
}
