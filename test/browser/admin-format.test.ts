// The admin app's formatting module (no browser needed): where a local date of the shop starts,
// as the audit log's date filters send it, across offsets that are not whole hours and changes
// of offset (a 23-hour day, a midnight that does not exist).
import { afterEach, describe, expect, it } from 'vitest';
import { nextDate, setShop, shopToday, startOfShopDay } from '../../admin-app/src/format.js';

describe("the shop's local dates as instants", () => {
  afterEach(() => setShop({ timezone: 'UTC' }));

  it.each([
    ['UTC', '2026-03-10', '2026-03-10T00:00:00.000Z'],
    ['Asia/Kathmandu', '2026-03-10', '2026-03-09T18:15:00.000Z'],
    ['America/New_York', '2026-03-08', '2026-03-08T05:00:00.000Z'],
    // the day after clocks went forward: a 23-hour day before it
    ['America/New_York', '2026-03-09', '2026-03-09T04:00:00.000Z'],
    // Chile skips from 00:00 to 01:00 on 6 September 2026: the day starts at 01:00 (UTC−3)
    ['America/Santiago', '2026-09-06', '2026-09-06T04:00:00.000Z'],
    ['America/Santiago', '2026-09-07', '2026-09-07T03:00:00.000Z'],
  ])('%s: %s starts at %s', (timezone, date, instant) => {
    setShop({ timezone });
    expect(startOfShopDay(date)).toBe(instant);
  });

  it("gives the next date and today in the shop's time zone", () => {
    expect(nextDate('2026-12-31')).toBe('2027-01-01');
    expect(nextDate('2028-02-28')).toBe('2028-02-29');
    setShop({ timezone: 'Pacific/Auckland' });
    // 20:00 UTC on 1 March is already 2 March in Auckland (UTC+13)
    expect(shopToday(Date.parse('2026-03-01T20:00:00Z'))).toBe('2026-03-02');
  });
});
