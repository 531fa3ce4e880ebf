// The README's path end to end: `npm start` on a fresh embedded database prints a working
// key; the CLI works while the server runs (it reaches the server's embedded database);
// a key revoked by the CLI is refused on its next request; SIGTERM stops cleanly.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeOnOwnEmbedded, freePort, projectRoot as root, type ServerProcess, startServerProcess } from '../processes.js';
import { cliRunner } from './run-cli.js';

const run = promisify(execFile);
const dataDir = mkdtempSync(path.join(tmpdir(), 'loyalty-e2e-'));
const port = await freePort();
const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', DATABASE_URL: '' };
const base = `http://127.0.0.1:${port}`;
let server: ServerProcess;

const cli = cliRunner(env);

const get = (key: string, p: string) => fetch(`${base}${p}`, { headers: { authorization: `Bearer ${key}` } });

beforeAll(async () => {
  // npm start's own script: builds dist/ when the sources are newer, then serves with plain node
  server = await startServerProcess(env, { args: ['scripts/start.mjs'], port });
}, 120_000);

afterAll(() => {
  server.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describeOnOwnEmbedded('npm start and the CLI', () => {
  it('prints a Full Access key on the first start that works at once', async () => {
    const key = /Full Access API key \(shown once\): (\S+)/.exec(server.output())?.[1];
    expect(key).toMatch(/^lpk_/);
    const res = await get(key!, '/v1/rewards');
    expect(res.status).toBe(200);
    expect((await res.json()).data.length).toBeGreaterThan(0);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  });

  it("gives the demo its last weeks: every chart of the admin app's dashboard has a shape", async () => {
    const token = /Admin token \(shown once\): +(\S+)/.exec(server.output())?.[1];
    expect(token).toMatch(/^lpa_/);
    const dashboard = async (range: string) => {
      const res = await fetch(`${base}/admin/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          query: `{ dashboard(range: ${range}) { points_issued points_redeemed redemptions top_rewards { name } series { issued redeemed } } }`,
        }),
      });
      return (await res.json()).data.dashboard;
    };
    const month = await dashboard('last_30_days');
    const daysWith = (series: { issued: number; redeemed: number }[]) => series.filter((p) => p.issued > 0 || p.redeemed > 0).length;
    // orders on many days of the last four weeks, and redemptions among them
    expect(daysWith(month.series)).toBeGreaterThan(15);
    expect(month.redemptions).toBeGreaterThan(3);
    expect(month.top_rewards.length).toBeGreaterThan(1);
    // the opening balances on their customers' first days, over the months before
    expect(daysWith((await dashboard('last_12_months')).series)).toBeGreaterThan(4);
  });

  it('provisions a merchant, imports a program and creates keys while the server runs', async () => {
    const merchant = await cli('merchants', 'create', '--slug', 'acme', '--name', 'Acme');
    expect(merchant.code).toBe(0);
    expect(merchant.json).toMatchObject({ slug: 'acme', name: 'Acme', id: expect.any(String) });

    const file = path.join(dataDir, 'program.json');
    writeFileSync(
      file,
      JSON.stringify({
        customers: [{ customer_id: 'c-1', email: 'c1@example.com', points_balance: 300 }],
        rewards: [{ name: '$5 off', reward_type: 'fixed_discount', points_cost: 100, reward_rule: { discount_value: 5 } }],
        referral_program: {
          referrer_reward: { points: 500 },
          referee_reward: { reward_type: 'free_shipping' },
          fraud_checks: { not_first_order: { enabled: true }, blocklist: { domains: ['mailinator.com'] } },
        },
      }),
    );
    const imported = await cli('import', '--merchant', 'acme', '--file', file);
    expect(imported.code).toBe(0);
    // the referral program's fraud checks, as the admin API reads them: the ones left out at their defaults
    const checks = await fetch(`${base}/admin/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${merchant.json.admin_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: '{ referral_program { fraud_checks { not_first_order { enabled } similar_email { similarity } blocklist { domains } } } }',
      }),
    });
    expect((await checks.json()).data.referral_program.fraud_checks).toEqual({
      not_first_order: { enabled: true },
      similar_email: { similarity: 0.8 },
      blocklist: { domains: ['mailinator.com'] },
    });

    const key = await cli(
      'keys',
      'create',
      '--merchant',
      'acme',
      '--type',
      'custom',
      '--scope',
      'customers=read',
      '--scope',
      'rewards=read',
    );
    expect(key.code).toBe(0);
    expect(key.json.scopes).toEqual(['read:customers', 'read:rewards']);
    const balance = await get(key.json.key, '/v1/customers/balance?customer_id=c-1');
    expect((await balance.json()).data.points_balance).toBe(300);
    expect((await get(key.json.key, '/v1/earning-rules')).status).toBe(403);

    // the form docs/cli.md shows: npm run cli -- … --json prints exactly one JSON document on stdout
    const viaNpm = await run('npm', ['run', 'cli', '--', 'keys', 'list', '--merchant', 'acme', '--json'], { cwd: root, env });
    const listed = { json: JSON.parse(viaNpm.stdout) };
    expect(listed.json).toHaveLength(1);
    expect(JSON.stringify(listed.json)).not.toContain(key.json.key);

    expect((await cli('keys', 'revoke', '--merchant', 'acme', key.json.id)).code).toBe(0);
    const revoked = await get(key.json.key, '/v1/rewards');
    expect(revoked.status).toBe(401);
    expect((await revoked.json()).error.code).toBe('invalid_token');
  }, 180_000);

  it('rejects an invalid import whole, listing every bad field, and bad arguments', async () => {
    const file = path.join(dataDir, 'bad.json');
    writeFileSync(
      file,
      JSON.stringify({
        customers: [
          { customer_id: 'ok-1', email: 'ok@example.com' },
          { customer_id: 'bad', email: 'nope' },
        ],
        rewards: [{ name: '', reward_type: 'fixed_discount', points_cost: 10, reward_rule: {} }],
      }),
    );
    const res = await cli('import', '--merchant', 'acme', '--file', file);
    expect(res.code).not.toBe(0);
    expect(res.json.error.code).toBe('validation_error');
    expect(Object.keys(res.json.error.details)).toEqual(expect.arrayContaining(['customers.1.email', 'rewards.0.name']));
    const key = await cli('keys', 'create', '--merchant', 'acme', '--type', 'full');
    const found = await get(key.json.key, '/v1/customers?customer_id=ok-1');
    expect((await found.json()).data).toEqual([]);

    expect((await cli('keys', 'create', '--merchant', 'acme', '--type', 'custom', '--scope', 'activities=write')).code).not.toBe(0);
    expect((await cli('keys', 'create', '--merchant', 'nobody', '--type', 'full')).json.error.code).toBe('not_found');
    expect((await cli('bogus')).code).toBe(2);
  }, 180_000);

  it("sets a merchant's pending window and approves pending points", async () => {
    const set = await cli('merchants', 'settings', '--merchant', 'acme', '--points-pending-days', '3');
    expect(set).toMatchObject({ code: 0, json: { slug: 'acme', points_pending_days: 3 } });
    expect((await cli('merchants', 'settings', '--merchant', 'acme')).code).toBe(2); // nothing to change
    expect((await cli('merchants', 'settings', '--merchant', 'acme', '--points-pending-days', 'soon')).code).toBe(2);
    const tooLong = await cli('merchants', 'settings', '--merchant', 'acme', '--points-pending-days', '400');
    expect(tooLong.json.error).toMatchObject({ code: 'validation_error', details: { points_pending_days: expect.any(Array) } });
    const approved = await cli('approve-pending');
    expect(approved).toMatchObject({ code: 0, json: { approved: 0, points: 0, customers: 0 } });
  }, 60_000);

  it("sets a merchant's time zone and runs the calendar jobs", async () => {
    const created = await cli('merchants', 'create', '--slug', 'kiwi', '--timezone', 'pacific/auckland');
    expect(created).toMatchObject({ code: 0, json: { slug: 'kiwi', timezone: 'Pacific/Auckland' } });
    const bad = await cli('merchants', 'create', '--slug', 'mars', '--timezone', 'Mars/Olympus_Mons');
    expect(bad.json.error).toMatchObject({ code: 'validation_error', details: { timezone: expect.any(Array) } });
    const changed = await cli('merchants', 'settings', '--merchant', 'kiwi', '--timezone', 'America/Los_Angeles');
    expect(changed).toMatchObject({ code: 0, json: { slug: 'kiwi', timezone: 'America/Los_Angeles' } });
    expect((await cli('merchants', 'settings', '--merchant', 'kiwi', '--timezone', 'Nowhere')).json.error.code).toBe('validation_error');

    const file = path.join(dataDir, 'birthday.json');
    writeFileSync(
      file,
      JSON.stringify({
        customers: [{ customer_id: 'b-1', email: 'b1@example.com', birthday: '1990-11-24' }],
        earning_rules: [{ name: 'Birthday', campaign_type: 'birthday', earning_rule: { type: 'fixed', value: 50 } }],
      }),
    );
    expect((await cli('import', '--merchant', 'kiwi', '--file', file)).code).toBe(0);
    // Nov 23 23:00 in Los Angeles, then Nov 24 01:00 there: paid on the local day, once
    const early = await cli('calendar', 'pay', '--merchant', 'kiwi', '--at', '2026-11-24T07:00:00Z');
    expect(early.json).toMatchObject({ customers: 0, paid: 0 });
    const paid = await cli('calendar', 'pay', '--merchant', 'kiwi', '--at', '2026-11-24T09:00:00Z');
    expect(paid.json).toMatchObject({ customers: 1, paid: 1, points: 50 });
    const again = await cli('calendar', 'pay', '--merchant', 'kiwi', '--at', '2026-11-24T10:00:00Z');
    expect(again.json).toMatchObject({ customers: 1, paid: 0 });
    expect((await cli('tiers', 'rejudge', '--merchant', 'kiwi')).json).toEqual({ merchants: 0, customers: 0, changed: 0 });
    // a time that is no date and time is refused as the API refuses it (docs/cli.md): exit 1, naming --at
    const yesterday = await cli('calendar', 'pay', '--at', 'yesterday');
    expect([yesterday.code, yesterday.json.error.code, Object.keys(yesterday.json.error.details)]).toEqual([1, 'validation_error', ['at']]);
  }, 180_000);

  it('makes new credentials for the demo when the ones shown once are lost, as the README says', async () => {
    const lost = /Admin token \(shown once\): +(\S+)/.exec(server.output())?.[1];
    const key = await cli('keys', 'create', '--merchant', 'demo', '--type', 'full');
    expect(key.code).toBe(0);
    expect((await get(key.json.key, '/v1/rewards')).status).toBe(200);
    const rotated = await cli('merchants', 'token', '--merchant', 'demo');
    expect(rotated.json.admin_token).toMatch(/^lpa_/);
    const admin = (token: string) =>
      fetch(`${base}/admin/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ merchant { slug } }' }),
      }).then((r) => r.status);
    expect(await admin(rotated.json.admin_token)).toBe(200);
    expect(await admin(lost!)).toBe(401);
  });

  it('stops on SIGTERM', async () => {
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });
});
