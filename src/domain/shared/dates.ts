// Dates and times as every face reads them (the Date and DateTime scalars, REST query strings
// and bodies, the admin API's inputs, the import file, the CLI's options): one strict reader, so
// an impossible date is refused everywhere instead of rolling over (JavaScript reads 2026-02-30
// as 2 March).
//
// - A date is YYYY-MM-DD, a day of the (proleptic Gregorian) calendar from 0001-01-01 to
//   9999-12-31: 2026-02-29 and 2026-11-31 are refused.
// - A date and time is RFC 3339's date-time, the ISO 8601 profile JSON Schema's `date-time`
//   format names: YYYY-MM-DDThh:mm:ss, optional fractional seconds (read to the millisecond),
//   then `Z` or an offset ±hh:mm (T and Z may be lower case). Hours run from 00 to 23 (no 24:00),
//   seconds to 59 (no leap second), offset hours to 23. No other ISO 8601 form is taken: no date
//   alone, no time without its offset (whose instant would depend on the server's zone), no
//   week or ordinal dates, no basic format without separators. The instant it names must fall
//   between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z.
// It imports nothing, so the admin app's bundle can include it.

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

// the instants PostgreSQL and the API's answers (YYYY in toISOString) both write with four digits
const FIRST = Date.parse('0001-01-01T00:00:00.000Z');
const LAST = Date.parse('9999-12-31T23:59:59.999Z');

const DATE_FORM = 'must be a date, YYYY-MM-DD';
const DATE_TIME_FORM = 'must be a date and time with its offset, YYYY-MM-DDThh:mm:ssZ or ±hh:mm (e.g. 2026-11-21T08:30:00Z)';

const isLeap = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);

function daysIn(year: number, month: number): number {
  if (month === 2) return isLeap(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Why YYYY-MM-DD's numbers name no day, or null. */
function dayProblem(year: number, month: number, day: number): string | null {
  if (year < 1) return 'is not a date: years run from 0001 to 9999';
  if (month < 1 || month > 12) return 'is not a date: months run from 01 to 12';
  const days = daysIn(year, month);
  if (day < 1 || day > days) return `is not a date: ${MONTHS[month - 1]} ${String(year).padStart(4, '0')} has ${days} days`;
  return null;
}

const numbers = (match: RegExpExecArray, from: number, to: number) => match.slice(from, to).map(Number);

/** Why `text` is not a date (YYYY-MM-DD, a day of the calendar), or null when it is one. */
export function dateProblem(text: unknown): string | null {
  const match = typeof text === 'string' ? DATE.exec(text) : null;
  if (!match) return DATE_FORM;
  const [year, month, day] = numbers(match, 1, 4) as [number, number, number];
  return dayProblem(year, month, day);
}

/** Whether YYYY-MM-DD names a day of the calendar (2025-02-29 does not). */
export const isCalendarDate = (text: string) => dateProblem(text) === null;

/** Why `text` is not a date and time as the API takes it (above), or null when it is one. */
export function dateTimeProblem(text: unknown): string | null {
  const match = typeof text === 'string' ? DATE_TIME.exec(text) : null;
  if (!match) return DATE_TIME_FORM;
  const date = dateProblem(match[1]);
  if (date) return date === DATE_FORM ? DATE_TIME_FORM : date;
  const [hour, minute, second] = numbers(match, 2, 5) as [number, number, number];
  if (hour > 23) return 'is not a time: hours run from 00 to 23';
  if (minute > 59) return 'is not a time: minutes run from 00 to 59';
  if (second > 59) return 'is not a time: seconds run from 00 to 59';
  if (match[6] && (Number(match[7]) > 23 || Number(match[8]) > 59)) return 'is not a UTC offset: it runs from -23:59 to +23:59';
  const at = instant(text as string).getTime();
  if (at < FIRST || at > LAST) return 'is out of range: from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z in UTC';
  return null;
}

/** The instant of a date and time that dateTimeProblem passed. */
function instant(text: string): Date {
  // upper-case T and Z, milliseconds at most: the form JavaScript's Date reads exactly
  const normalized = text.toUpperCase().replace(/(\.\d{3})\d+/, '$1');
  return new Date(normalized);
}

/** Why `text` is neither a date nor a date and time (where either is taken), or null. */
export function dateOrDateTimeProblem(text: unknown): string | null {
  if (typeof text === 'string' && DATE.test(text)) return dateProblem(text);
  const problem = dateTimeProblem(text);
  return problem === DATE_TIME_FORM ? `must be a date, YYYY-MM-DD, or ${DATE_TIME_FORM.replace(/^must be /, '')}` : problem;
}

/** `text` as an instant, or the reason it is none. */
export function readDateTime(text: unknown): Date | { problem: string } {
  const problem = dateTimeProblem(text);
  return problem ? { problem } : instant(text as string);
}

/** `text` as the UTC midnight that starts the date, or the reason it is none. */
export function readDate(text: unknown): Date | { problem: string } {
  const problem = dateProblem(text);
  return problem ? { problem } : new Date(`${text as string}T00:00:00.000Z`);
}
