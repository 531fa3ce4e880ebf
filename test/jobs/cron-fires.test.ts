// pg-boss's scheduler, as patched (patches/pg-boss+10.4.2.patch): it remembers each expression's
// last fire time until the next one passes, instead of parsing every expression on every pass.
// Judged against the unpatched rule (a fresh parse: did the expression fire in the last minute?)
// at every pass a scheduler makes through the hours where the crons of the registry fire or a
// clock changes, passes landing on a fire's exact millisecond included.
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { schedules } from '../../src/jobs/schedules.js';
import { deadline } from '../load.js';

const require = createRequire(import.meta.url);
const Timekeeper = require('pg-boss/src/timekeeper.js') as new (
  db: unknown,
  config: object,
) => { clockSkew: number; shouldSendIt(cron: string, tz: string, fires?: Map<string, unknown>): boolean };

// the very module object pg-boss's scheduler requires, so a spy on it sees the scheduler's parses
const cronParser = require('cron-parser') as { parseExpression(cron: string, o: { tz: string; currentDate: Date }): { prev(): Date } };

const firedInLastMinute = (cron: string, tz: string, now: number) =>
  now -
    cronParser
      .parseExpression(cron, { tz, currentDate: new Date(now) })
      .prev()
      .getTime() <
  60_000;

afterEach(() => vi.restoreAllMocks());

// seconds of cron parsing and no database: the run on the embedded database covers it, the runs
// on PostgreSQL and Citus leave it out
describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))('scheduled jobs fire as an unpatched pg-boss would fire them', () => {
  const config = loadConfig({});
  const crons = [...new Set(schedules.map((s) => s.cron(config))), '*/15 9-17 * * 1-5'];

  // Monday 2 November 2026 09:00 UTC opens the weekday cron's first window; the daily crons fire
  // at 03:00 and 04:30. New York leaves daylight saving at 06:00 UTC on Sunday 1 November, so its
  // 01:00-02:00 comes twice (cron-parser in a time zone is slow: one window there). CPU-bound:
  // the deadline grows with how busy the machine is (test/load.ts)
  it.for([
    [
      'UTC',
      [
        ['2026-11-02T08:50:00Z', 0.5],
        ['2026-11-03T02:50:00Z', 2],
      ],
    ],
    ['America/New_York', [['2026-11-01T04:50:00Z', 1.5]]],
  ] as const)('%s', { timeout: deadline(10_000) }, ([tz, windows]) => {
    const clock = vi.spyOn(Date, 'now');
    const keeper = new Timekeeper(null, { schema: 'pgboss', clockMonitorIntervalSeconds: 600, cronMonitorIntervalSeconds: 30 });
    let fired = 0;
    for (const [from, hours] of windows) {
      const end = Date.parse(from) + hours * 3_600_000;
      // passes 30-36 s apart (one scheduler's cadence, give or take a busy loop), so some land on a
      // whole minute exactly
      for (let now = Date.parse(from); now < end; now += 30_000 + (now % 7) * 1_000) {
        clock.mockReturnValue(now);
        const fires = new Map<string, unknown>();
        for (const cron of crons) {
          const expected = firedInLastMinute(cron, tz, now);
          expect(keeper.shouldSendIt(cron, tz, fires), `${cron} at ${new Date(now).toISOString()}`).toBe(expected);
          if (expected) fired += 1;
        }
        (keeper as unknown as { fires: Map<string, unknown> }).fires = fires;
      }
    }
    expect(fired).toBeGreaterThan(60); // the every-minute job alone fires on most passes
  });
});

describe("pg-boss's scheduler, as patched", () => {
  it('parses an expression when its last fire time can have changed, not on every pass', () => {
    const clock = vi.spyOn(Date, 'now');
    const parses = vi.spyOn(cronParser, 'parseExpression');
    const keeper = new Timekeeper(null, { schema: 'pgboss', clockMonitorIntervalSeconds: 600, cronMonitorIntervalSeconds: 30 });
    const pass = (at: string) => {
      clock.mockReturnValue(Date.parse(at));
      const fires = new Map<string, unknown>();
      const fired = keeper.shouldSendIt('5 * * * *', 'UTC', fires);
      (keeper as unknown as { fires: Map<string, unknown> }).fires = fires;
      return { fired, remembered: fires.size };
    };
    expect(pass('2026-11-02T10:05:10Z')).toEqual({ fired: true, remembered: 1 });
    const afterFirst = parses.mock.calls.length;
    expect(afterFirst).toBeGreaterThan(0);
    // the passes until the next fire (11:05) reuse what the first remembered; unpatched, the
    // scheduler keeps nothing between passes and parses the expression on each one
    expect(pass('2026-11-02T10:05:40Z')).toEqual({ fired: true, remembered: 1 });
    expect(pass('2026-11-02T10:30:00Z')).toEqual({ fired: false, remembered: 1 });
    expect(pass('2026-11-02T11:04:59Z')).toEqual({ fired: false, remembered: 1 });
    expect(parses.mock.calls.length).toBe(afterFirst);
    // once the next fire has passed, it is parsed again
    expect(pass('2026-11-02T11:05:20Z')).toEqual({ fired: true, remembered: 1 });
    expect(parses.mock.calls.length).toBeGreaterThan(afterFirst);
  });
});
