// The merchant's calendar: every calendar notion of the program (limit periods,
// rule dates, tier windows, expiry dates, dashboard buckets, birthdays) is computed here, in
// the merchant's IANA time zone, with @date-fns/tz over date-fns: no offset arithmetic of our
// own, so a daylight-saving change neither creates nor loses a day (a local day is 23 or 25
// hours long then). Everything goes in and out as UTC instants (`Date`); only the local
// calendar in between is zoned.
import { TZDate, tz } from '@date-fns/tz';
import {
  addDays,
  addMonths,
  addQuarters,
  addWeeks,
  addYears,
  format,
  startOfDay,
  startOfMonth,
  startOfQuarter,
  startOfWeek,
  startOfYear,
} from 'date-fns';
import { z } from 'zod';

export const DEFAULT_TIMEZONE = 'UTC';

/** The canonical spelling of an IANA zone name, or null when the platform does not know it. */
function canonicalTimeZone(name: string): string | null {
  // zone names only: Node 24 also takes offsets like "+01:00", which are not a place's calendar
  if (name !== 'UTC' && !/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** A time zone as the admin API, the CLI and the import take it: stored in its canonical spelling. */
export const timeZoneSchema = z
  .string()
  .trim()
  .transform((name, ctx) => {
    const zone = canonicalTimeZone(name);
    if (zone) return zone;
    ctx.addIssue({ code: 'custom', message: 'is not a known IANA time zone, e.g. America/Los_Angeles' });
    return z.NEVER;
  });

export type CalendarPeriod = 'day' | 'week' | 'month' | 'quarter' | 'year';

const inZone = (zone: string) => ({ in: tz(zone) });
const instant = (d: Date) => new Date(d.getTime());

/** The local calendar date of `at` in `zone`, as YYYY-MM-DD. */
export function localDate(at: Date, zone: string): string {
  return format(at, 'yyyy-MM-dd', inZone(zone));
}

/** The instant a local calendar date (YYYY-MM-DD) starts in `zone`. */
export function startOfLocalDate(date: string, zone: string): Date {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return instant(startOfDay(new TZDate(y, m - 1, d, 12, zone)));
}

/** The start of the local day, week (Monday), month, quarter or year holding `at`. */
export function periodStart(period: CalendarPeriod, at: Date, zone: string): Date {
  const opts = inZone(zone);
  switch (period) {
    case 'day':
      return instant(startOfDay(at, opts));
    case 'week':
      return instant(startOfWeek(at, { ...opts, weekStartsOn: 1 }));
    case 'month':
      return instant(startOfMonth(at, opts));
    case 'quarter':
      return instant(startOfQuarter(at, opts));
    case 'year':
      return instant(startOfYear(at, opts));
  }
}

/** `at` moved by `n` local days, weeks, months, quarters or years (the local time of day is kept). */
export function addPeriods(period: CalendarPeriod, at: Date, n: number, zone: string): Date {
  const opts = inZone(zone);
  const add = { day: addDays, week: addWeeks, month: addMonths, quarter: addQuarters, year: addYears }[period];
  return instant(add(at, n, opts));
}

/**
 * The start of the local day `n` days from the day of `at`: moving a day start keeps its time of
 * day, which is 01:00 where a daylight-saving change skips midnight, so the day's own start is taken.
 */
export const dayStartFrom = (at: Date, n: number, zone: string) =>
  periodStart('day', addPeriods('day', periodStart('day', at, zone), n, zone), zone);

/**
 * The period holding `at` as a key, named by its first local date: 2026-11-21, week-2026-11-16
 * (its Monday), 2026-11, 2026-Q4, 2026.
 */
export function periodKey(period: CalendarPeriod, at: Date, zone: string): string {
  const start = localDate(periodStart(period, at, zone), zone);
  switch (period) {
    case 'day':
      return start;
    case 'week':
      return `week-${start}`;
    case 'month':
      return start.slice(0, 7);
    case 'quarter':
      return `${start.slice(0, 4)}-Q${Math.floor(Number(start.slice(5, 7)) / 3) + 1}`;
    case 'year':
      return start.slice(0, 4);
  }
}

/** The starts of the consecutive local periods from the one holding `from` up to `to` (inclusive). */
export function periodStarts(period: CalendarPeriod, from: Date, to: Date, zone: string): Date[] {
  const first = periodStart(period, from, zone);
  const starts: Date[] = [];
  // each start from the first by whole periods, so a short month or a DST day cannot drift
  for (let n = 0; ; n++) {
    const start = periodStart(period, addPeriods(period, first, n, zone), zone);
    if (start > to) return starts;
    starts.push(start);
  }
}

/**
 * The month-days (MM-DD) whose yearly return the local date `today` (YYYY-MM-DD) is, e.g. for
 * birthdays: February 29 comes back on February 28 in years without it.
 */
export function yearlyMonthDays(today: string): string[] {
  const year = Number(today.slice(0, 4));
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const monthDay = today.slice(5);
  return monthDay === '02-28' && !leap ? ['02-28', '02-29'] : [monthDay];
}

// ---- what a read derives from the calendar, kept per local day ----
// A panel asks for the same few instants again and again (the tier windows' starts, the
// expiry of a balance last active on some day), and date-fns/tz costs tens of microseconds a
// call. Each answer depends only on the local day of its argument, or moves with it by the
// same amount, so each zone keeps its recent local days with what was derived from each.

const DAY_MS = 86_400_000;
const DAYS_KEPT_PER_ZONE = 64;

interface LocalDay {
  start: number;
  end: number;
  derived: Map<string, number>;
}

const daysByZone = new Map<string, LocalDay[]>();

/** The local day holding `at` in `zone`. */
function localDay(at: Date, zone: string): LocalDay {
  const t = at.getTime();
  let days = daysByZone.get(zone);
  if (!days) daysByZone.set(zone, (days = []));
  for (const day of days) if (t >= day.start && t < day.end) return day;
  const start = periodStart('day', at, zone);
  const day = { start: start.getTime(), end: periodStart('day', addPeriods('day', start, 1, zone), zone).getTime(), derived: new Map() };
  if (days.length >= DAYS_KEPT_PER_ZONE) days.shift();
  days.push(day);
  return day;
}

/** What `compute` answers for `day` (one answer for any instant of the day), computed once. */
function derived(day: LocalDay, key: string, compute: () => Date): number {
  let value = day.derived.get(key);
  if (value === undefined) day.derived.set(key, (value = compute().getTime()));
  return value;
}

/** `periodStart('year', at, zone)`. */
export function yearStart(at: Date, zone: string): Date {
  return new Date(derived(localDay(at, zone), 'year', () => periodStart('year', at, zone)));
}

/** The start of the local year after the one holding `at`. */
export function nextYearStart(at: Date, zone: string): Date {
  return new Date(derived(localDay(at, zone), 'next-year', () => addPeriods('year', periodStart('year', at, zone), 1, zone)));
}

/** `addPeriods('month', at, -12, zone)`: the same local time twelve months before. */
export function yearBefore(at: Date, zone: string): Date {
  const day = localDay(at, zone);
  // on a day of 24 hours whose twin a year before lasts 24 hours too, no clock change falls in
  // either: the local time of day moves with `at` instant for instant
  if (day.end - day.start === DAY_MS) {
    const from = derived(day, 'year-before', () => addPeriods('month', new Date(day.start), -12, zone));
    const to = derived(day, 'year-before-end', () => addPeriods('month', new Date(day.end), -12, zone));
    if (to - from === DAY_MS) return new Date(from + (at.getTime() - day.start));
  }
  return addPeriods('month', at, -12, zone);
}

/** The next local midnight after `at`: `dayStartFrom(at, 1, zone)`. */
export function localDayEnd(at: Date, zone: string): Date {
  return new Date(localDay(at, zone).end);
}

/** `compute(at)`, for anything that depends on `at`'s local day alone (`key` names what it is). */
export function perLocalDay(at: Date, zone: string, key: string, compute: (at: Date) => Date): Date {
  return new Date(derived(localDay(at, zone), key, () => compute(at)));
}
