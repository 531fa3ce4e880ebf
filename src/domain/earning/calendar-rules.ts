// Earning rules that pay without an event (the hourly calendar job; `loyalty calendar pay`):
// `birthday` rules on the customer's birthday and `anniversary` rules on the yearly return of
// the day the customer joined, both days of the merchant's calendar (shared/calendar.ts).
// Each award goes through recordActivity, the path a platform's own birthday event takes, so
// limits, tiers and boosters apply the same way. Its event id names the campaign type, the
// local year and the customer: the unique (merchant, event_id) index lets one award through
// however often, and on however many instances, the job runs that day.
import type { Db } from '../../db/client.js';
import { recordActivity } from '../events/activities.js';
import { eachInBatches, type Page } from '../shared/batches.js';
import { addPeriods, localDate, startOfLocalDate, yearlyMonthDays } from '../shared/calendar.js';
import { isCalendarDate } from '../shared/dates.js';
import { AppError } from '../shared/errors.js';

type CalendarCampaign = 'birthday' | 'anniversary';
const campaigns: CalendarCampaign[] = ['birthday', 'anniversary'];

export interface CalendarPayReport {
  merchants: number;
  /** Customers whose day it was (each rule type counted apart). */
  customers: number;
  /** Of them, paid by this run (the others were paid before, or earned nothing). */
  paid: number;
  points: number;
  /** Awards that failed (e.g. still being processed by another instance); the next run retries them. */
  failed: number;
}

const BATCH = 500;
/** Below every uuid: the keyset's start. */
const FIRST_ID = '00000000-0000-0000-0000-000000000000';

/** The event id of one yearly calendar award: one per customer, campaign type and local year. */
const calendarEventId = (campaign: CalendarCampaign, year: string, customerId: string) => `calendar:${campaign}:${year}:${customerId}`;

/** Customers of `merchantId` whose birthday is on the local day `today`, `after` an id (keyset pages). */
function birthdayCustomers(db: Db, merchantId: string, today: string, after: string, size: number) {
  return db.$queryRaw<{ id: string; platform_id: string }[]>`
    SELECT id::text, platform_id FROM customers
     WHERE merchant_id = ${merchantId}::uuid AND status <> 'excluded'::"CustomerStatus"
       AND birthday IS NOT NULL AND to_char(birthday, 'MM-DD') = ANY(${yearlyMonthDays(today)}::text[])
       AND id > ${after}::uuid
     ORDER BY id LIMIT ${size}`;
}

/**
 * Customers of `merchantId` who joined on this local month-day of an earlier year. The local
 * days are turned into UTC ranges here (one per past year), so the database needs no zone data.
 */
async function anniversaryCustomers(db: Db, merchantId: string, today: string, zone: string, after: string, size: number) {
  const first = await db.customer.findFirst({ where: { merchantId }, orderBy: { createdAt: 'asc' }, select: { createdAt: true } });
  if (!first) return [];
  const thisYear = Number(today.slice(0, 4));
  const firstYear = Number(localDate(first.createdAt, zone).slice(0, 4));
  // on Feb 28 of a year without Feb 29, those who joined on a Feb 29 celebrate too
  const monthDays = yearlyMonthDays(today);
  const starts: string[] = [];
  const ends: string[] = [];
  for (let year = thisYear - 1; year >= firstYear; year--) {
    for (const md of monthDays) {
      const day = `${year}-${md}`;
      if (!isCalendarDate(day)) continue; // Feb 29 of a year without one
      const start = startOfLocalDate(day, zone);
      starts.push(start.toISOString());
      ends.push(addPeriods('day', start, 1, zone).toISOString());
    }
  }
  if (starts.length === 0) return [];
  return db.$queryRaw<{ id: string; platform_id: string }[]>`
    SELECT c.id::text, c.platform_id FROM customers c
     WHERE c.merchant_id = ${merchantId}::uuid AND c.status <> 'excluded'::"CustomerStatus"
       AND c.id > ${after}::uuid
       AND EXISTS (SELECT 1 FROM unnest(${starts}::timestamptz[], ${ends}::timestamptz[]) AS r(s, e)
                    WHERE c.created_at >= r.s AND c.created_at < r.e)
     ORDER BY c.id LIMIT ${size}`;
}

/**
 * Pays the birthday and anniversary rules of every merchant whose local day `now` is.
 * Idempotent: a second run the same local day (or a concurrent one) pays nothing more.
 */
export async function payCalendarRules(db: Db, now = new Date(), opts: { merchantId?: string } = {}): Promise<CalendarPayReport> {
  const rules = await db.earningRule.findMany({
    where: { isActive: true, campaignType: { in: campaigns }, ...(opts.merchantId ? { merchantId: opts.merchantId } : {}) },
    select: { merchantId: true, campaignType: true, merchant: { select: { timezone: true } } },
  });
  const report: CalendarPayReport = {
    merchants: new Set(rules.map((r) => r.merchantId)).size,
    customers: 0,
    paid: 0,
    points: 0,
    failed: 0,
  };
  const done = new Set<string>();
  for (const rule of rules) {
    const campaign = rule.campaignType as CalendarCampaign;
    const key = `${rule.merchantId}:${campaign}`;
    if (done.has(key)) continue;
    done.add(key);
    const zone = rule.merchant.timezone;
    const today = localDate(now, zone);
    const customers: Page<{ id: string; platform_id: string }, string> = (after = FIRST_ID, size) =>
      campaign === 'birthday'
        ? birthdayCustomers(db, rule.merchantId, today, after, size)
        : anniversaryCustomers(db, rule.merchantId, today, zone, after, size);
    await eachInBatches({ size: BATCH, page: customers, keyOf: (c) => c.id }, async (customer) => {
      report.customers += 1;
      const result = await recordActivity(
        db,
        rule.merchantId,
        {
          event_id: calendarEventId(campaign, today.slice(0, 4), customer.id),
          customer_id: customer.platform_id,
          campaign_type: campaign,
          occurred_at: now,
        },
        now,
      ).catch((err: unknown) => {
        // another instance still holds this award's claim: its run pays it, or the next one
        if (err instanceof AppError && err.code === 'conflict') return null;
        throw err;
      });
      if (!result) report.failed += 1;
      else if (!result.replayed && result.points_awarded > 0) {
        report.paid += 1;
        report.points += result.points_awarded;
      }
    });
  }
  return report;
}
