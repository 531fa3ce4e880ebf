// The liability commands as an operator runs them on an embedded database: the roll-forward as
// JSON and as CSV, each customer's balance summing to the closing, and the expiry schedule.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { describeOnOwnEmbedded } from '../processes.js';
import { cliRunner, cliTextRunner } from './run-cli.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'loyalty-finance-cli-'));
const env = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent', DATABASE_URL: '' };
const cli = cliRunner(env);
const text = cliTextRunner(env);

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describeOnOwnEmbedded('loyalty liability', () => {
  it('reports the roll-forward as JSON and CSV, and the balances behind its closing', async () => {
    expect((await cli('merchants', 'create', '--slug', 'books', '--timezone', 'Europe/Paris')).code).toBe(0);
    const program = path.join(dataDir, 'program.json');
    writeFileSync(
      program,
      JSON.stringify({
        customers: [
          { customer_id: 'c-1', email: 'one@example.com', points_balance: 300 },
          { customer_id: 'c-2', email: 'two@example.com', points_balance: 1200 },
          { customer_id: 'c,3', email: 'three@example.com', points_balance: 0 },
        ],
      }),
    );
    expect((await cli('import', '--merchant', 'books', '--file', program)).code).toBe(0);
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Paris' }).format(new Date());

    const report = await cli('liability', '--merchant', 'books', '--from', today, '--to', today, '--group', 'day');
    expect(report.code).toBe(0);
    expect(report.json).toMatchObject({ timezone: 'Europe/Paris', grouping: 'day', from: today, to: today });
    expect(report.json.total).toMatchObject({ opening: 0, issued: { import: 1500, total: 1500 }, closing: 1500 });

    const csv = await text('liability', '--merchant', 'books', '--from', today, '--to', today, '--group', 'day', '--csv');
    expect(csv.code).toBe(0);
    const [header, row, ...rest] = csv.stdout.trimEnd().split('\r\n');
    expect(rest).toEqual([]);
    expect(header).toBe(
      'period,start,end,opening,issued_orders,issued_engagement,issued_referrals,issued_manual,issued_import,issued,reversed,redeemed,expired,manual_debits,closing',
    );
    expect(row!.split(',')).toEqual([
      today,
      report.json.periods[0].start,
      report.json.periods[0].end,
      '0',
      '0',
      '0',
      '0',
      '0',
      '1500',
      '1500',
      '0',
      '0',
      '0',
      '0',
      '1500',
    ]);

    const balances = await text('liability', 'balances', '--merchant', 'books', '--csv');
    const lines = balances.stdout.trimEnd().split('\r\n');
    expect(lines[0]).toBe('id,customer_id,points');
    expect(
      lines
        .slice(1)
        .map((l) => l.split(',').slice(1))
        .sort(),
    ).toEqual([
      ['c-1', '300'],
      ['c-2', '1200'],
    ]);

    const expiring = await cli('liability', 'expiring', '--merchant', 'books');
    expect(expiring.json).toMatchObject({ expiry_days: null });
  }, 240_000);

  it('replays a draft of the program over the period, as JSON and CSV, writing nothing', async () => {
    const draft = path.join(dataDir, 'draft.json');
    writeFileSync(
      draft,
      JSON.stringify({
        earning_rules: [{ name: '2 per $1', campaign_type: 'purchase', earning_rule: { type: 'variable', value: 2, per_amount: 1 } }],
      }),
    );
    const replay = await cli('replay', '--merchant', 'books', '--from', '2026-01-01', '--to', '2026-01-31', '--file', draft);
    expect(replay.code).toBe(0);
    expect(replay.json).toMatchObject({ from: '2026-01-01', to: '2026-01-31', orders: 0, issued: { actual: 0, draft: 0, difference: 0 } });
    const csv = await text('replay', '--merchant', 'books', '--from', '2026-01-01', '--to', '2026-01-31', '--file', draft, '--csv');
    expect(csv.stdout.split('\r\n')[0]).toBe('kind,id,name,actual,draft,difference');
    const bad = await cli(
      'replay',
      '--merchant',
      'books',
      '--from',
      '2026-01-01',
      '--to',
      '2026-01-31',
      '--file',
      path.join(dataDir, 'missing.json'),
    );
    expect(bad.code).toBe(2);
  }, 120_000);

  it('imports past orders as history or earning, and shows them by the time they were placed', async () => {
    const history = path.join(dataDir, 'history.json');
    writeFileSync(
      history,
      JSON.stringify({
        settings: { late_earning_days: 36500 },
        earning_rules: [{ name: '1 per €1', campaign_type: 'purchase', earning_rule: { type: 'variable', value: 1, per_amount: 1 } }],
        orders: [{ order_id: 'h-1', customer_id: 'c-1', subtotal: 30, placed_at: '2026-03-10T10:00:00Z' }],
      }),
    );
    const imported = await cli('import', '--merchant', 'books', '--file', history);
    expect(imported.json).toMatchObject({ earning_rules: 1, orders: 1, orders_skipped: 0, points_awarded: 0 });
    const earning = path.join(dataDir, 'earning.json');
    writeFileSync(
      earning,
      JSON.stringify({
        orders: [
          { order_id: 'p-1', customer_id: 'c-2', subtotal: 20, placed_at: '2026-03-12T10:00:00Z' },
          { order_id: 'h-1', customer_id: 'c-1', subtotal: 30, placed_at: '2026-03-10T10:00:00Z' },
        ],
      }),
    );
    const awarded = await cli('import', '--merchant', 'books', '--file', earning, '--award-points');
    expect(awarded.json).toMatchObject({ orders: 1, orders_skipped: 1, points_awarded: 20 });

    const march = await cli('orders', '--merchant', 'books', '--from', '2026-03-01', '--to', '2026-03-31', '--group', 'month');
    expect(march.json).toMatchObject({
      grouped_by: 'placed',
      total: { orders: 2, sales: 50, points_awarded: 20, late_orders: 1, history_orders: 1 },
    });
    const csv = await text(
      'orders',
      '--merchant',
      'books',
      '--from',
      '2026-03-01',
      '--to',
      '2026-03-31',
      '--group',
      'month',
      '--by',
      'recorded',
      '--csv',
    );
    expect(csv.stdout.trimEnd().split('\r\n')).toEqual([
      'period,start,end,orders,sales,points_awarded,late_orders,late_points,history_orders,history_sales',
      expect.stringMatching(/^2026-03-01,2026-02-28T23:00:00.000Z,2026-03-31T22:00:00.000Z,0,0,0,0,0,0,0$/),
    ]);
    const replay = path.join(dataDir, 'same.json');
    writeFileSync(replay, '{}');
    const replayed = await cli('replay', '--merchant', 'books', '--from', '2026-03-01', '--to', '2026-03-31', '--file', replay);
    expect(replayed.json).toMatchObject({
      grouped_by: 'placed',
      orders: 2,
      history_orders: 1,
      issued: { actual: 20, replayed: 20, draft: 50 },
    });
  }, 240_000);

  it('refuses a bad range or an impossible date with validation_error, and --csv where there is no table', async () => {
    const bad = await cli('liability', '--merchant', 'books', '--from', '2026-05-02', '--to', '2026-05-01');
    expect(bad.code).toBe(1);
    expect(bad.json.error).toMatchObject({ code: 'validation_error', details: { to: [expect.any(String)] } });
    // an impossible date is refused, never rolled over to the next month
    for (const args of [
      ['liability', '--from', '2026-02-30', '--to', '2026-03-31'],
      ['replay', '--from', '2026-11-01', '--to', '2026-11-31', '--file', path.join(dataDir, 'draft.json')],
    ]) {
      const impossible = await cli(...args, '--merchant', 'books');
      expect(impossible.code, args.join(' ')).toBe(1);
      expect(impossible.json.error.code).toBe('validation_error');
      expect(Object.values(impossible.json.error.details)).toEqual([
        [expect.stringMatching(/^This is not a date: (February|November) 2026 has (28|30) days\.$/)],
      ]);
    }
    const at = await cli('liability', 'balances', '--merchant', 'books', '--at', '2026-02-30T00:00:00Z');
    expect([at.code, at.json.error.code, at.json.error.details]).toEqual([
      1,
      'validation_error',
      { at: ['This is not a date: February 2026 has 28 days.'] },
    ]);
    const noOffset = await cli('tiers', 'rejudge', '--at', '2026-03-01T00:00:00');
    expect([noOffset.code, noOffset.json.error.code]).toEqual([1, 'validation_error']);
    const noTable = await text('keys', 'list', '--merchant', 'books', '--csv');
    expect(noTable.code).toBe(2);
    expect(noTable.stderr).toContain('has no --csv output');
  });
});
