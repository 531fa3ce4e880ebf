// How numbers and dates read on the page (the browser's locale).
const numbers = new Intl.NumberFormat();
const dates = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const days = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

export const formatNumber = (n: number) => numbers.format(n);
export const formatDateTime = (iso: string | null | undefined) => (iso ? dates.format(new Date(iso)) : '—');
export const formatDate = (iso: string | null | undefined) => (iso ? days.format(new Date(iso)) : '—');
/** An amount of money in the shop's currency, e.g. $15.00. */
export const formatMoney = (amount: number | string | null | undefined, currency: string) =>
  amount === null || amount === undefined || amount === ''
    ? '—'
    : new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(Number(amount));
export const formatPercent = (ratio: number) => `${(ratio * 100).toFixed(1)} %`;
/** A label from an API value: percentage_discount → Percentage discount. */
export const humanize = (value: string) => value.charAt(0).toUpperCase() + value.slice(1).replace(/_/g, ' ');

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
