// How numbers, money and dates read on every page: in the merchant's language and region
// (the `locale` setting), its currency, and its time zone (the program's calendar). The one
// place that formats: pages never call toLocaleString or Intl themselves.

interface Shop {
  /** BCP 47, e.g. en-US, de-DE. */
  locale: string;
  /** ISO 4217, e.g. USD. */
  currency: string;
  /** IANA, e.g. Europe/Paris. */
  timezone: string;
}

let shop: Shop = { locale: 'en-US', currency: 'USD', timezone: 'UTC' };
const formatters = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();

/** The signed-in merchant's settings, which every later format follows. */
export function setShop(settings: Partial<Shop>) {
  shop = { ...shop, ...Object.fromEntries(Object.entries(settings).filter(([, v]) => v)) };
  formatters.clear();
}

function numberFormat(options: Intl.NumberFormatOptions = {}) {
  const key = `n${JSON.stringify(options)}`;
  let format = formatters.get(key) as Intl.NumberFormat | undefined;
  if (!format) formatters.set(key, (format = new Intl.NumberFormat(shop.locale, options)));
  return format;
}

function dateFormat(options: Intl.DateTimeFormatOptions) {
  const key = `d${JSON.stringify(options)}`;
  let format = formatters.get(key) as Intl.DateTimeFormat | undefined;
  if (!format) formatters.set(key, (format = new Intl.DateTimeFormat(shop.locale, { timeZone: shop.timezone, ...options })));
  return format;
}

export const formatNumber = (n: number) => numberFormat().format(n);
export const formatDateTime = (iso: string | null | undefined) =>
  iso ? dateFormat({ dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso)) : '—';
export const formatDate = (iso: string | null | undefined) => (iso ? dateFormat({ dateStyle: 'medium' }).format(new Date(iso)) : '—');
/** A bucket of the dashboard (its start): "Nov 24" for a day or week, "Nov 2026" for a month. */
export const formatPeriod = (iso: string, bucket: string) =>
  dateFormat(bucket === 'month' ? { month: 'short', year: 'numeric' } : { month: 'short', day: 'numeric' }).format(new Date(iso));
/** An amount of money in the shop's currency (or the one given), e.g. $15.00, 15,00 €. */
export const formatMoney = (amount: number | string | null | undefined, currency = shop.currency) =>
  amount === null || amount === undefined || amount === '' ? '—' : numberFormat({ style: 'currency', currency }).format(Number(amount));
export const formatPercent = (ratio: number) => numberFormat({ style: 'percent', maximumFractionDigits: 1 }).format(ratio);
/** The change from `previous` to `current`: "+25 %", "−10 %", "no change", or "new" when there was nothing before. */
export function formatChange(current: number, previous: number): string {
  if (current === previous) return 'no change';
  if (previous === 0) return 'new';
  return numberFormat({ style: 'percent', maximumFractionDigits: 1, signDisplay: 'exceptZero' }).format((current - previous) / previous);
}
/** A label from an API value: percentage_discount → Percentage discount. */
export const humanize = (value: string) => value.charAt(0).toUpperCase() + value.slice(1).replace(/_/g, ' ');

/** A time zone's offset from UTC now, e.g. "UTC+01:00", "UTC−07:00", "UTC". */
export function zoneOffset(zone: string, at = new Date()): string {
  const part = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
    .formatToParts(at)
    .find((p) => p.type === 'timeZoneName')?.value;
  // engines write UTC itself as "GMT" or "GMT+00:00": one spelling for all
  const offset = !part || part === 'GMT' ? 'GMT+00:00' : part;
  return offset.replace('GMT', 'UTC').replace('-', '−');
}

const units: [seconds: number, one: string][] = [
  [86_400, 'day'],
  [3600, 'hour'],
  [60, 'minute'],
  [1, 'second'],
];

/** A length of time in words: 28800 → 8 hours, 5400 → 1 hour 30 minutes, 86400 → 1 day. */
export function formatDuration(seconds: number): string {
  let left = Math.round(seconds);
  const parts: string[] = [];
  for (const [size, one] of units) {
    const n = Math.floor(left / size);
    left -= n * size;
    if (n > 0) parts.push(`${formatNumber(n)} ${one}${n === 1 ? '' : 's'}`);
  }
  return parts.join(' ') || '0 seconds';
}

/** The shop's wall clock at an instant, read as if it were UTC (milliseconds): minus the instant, the offset. */
function wallClock(at: number): number {
  const parts = Object.fromEntries(
    dateFormat({
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      hourCycle: 'h23',
    })
      .formatToParts(new Date(at))
      .map((p) => [p.type, Number(p.value)]),
  ) as Record<string, number>;
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
}

/**
 * The instant a local date (YYYY-MM-DD) starts in the shop's time zone, as ISO 8601: the first
 * moment of that day there, whatever the offset (a day may start at 01:00 where midnight is skipped).
 */
export function startOfShopDay(date: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const midnight = Date.UTC(y, m - 1, d);
  // midnight less the offset at a guess, then less the offset at that instant: across a change of
  // offset they differ, and the earlier one still on that day is its start
  const first = midnight - (wallClock(midnight) - midnight);
  const second = midnight - (wallClock(first) - first);
  const onTheDay = [first, second].filter((at) => wallClock(at) >= midnight);
  return new Date(Math.min(...onTheDay)).toISOString();
}

/** The local date (YYYY-MM-DD) after `date`. */
export const nextDate = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** Today's date in the shop's time zone, YYYY-MM-DD. */
export const shopToday = (at = Date.now()) => new Date(wallClock(at)).toISOString().slice(0, 10);
