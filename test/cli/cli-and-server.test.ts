// The README's path end to end: `npm start` on a fresh embedded database prints a working
// key; the CLI works while the server runs (it reaches the server's embedded database);
// a key revoked by the CLI is refused on its next request; SIGTERM stops cleanly.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const dataDir = mkdtempSync(path.join(tmpdir(), 'loyalty-e2e-'));
const port = 20000 + Math.floor(Math.random() * 20000);
const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', DATABASE_URL: '' };
const base = `http://127.0.0.1:${port}`;
let server: ChildProcess;
let output = '';

async function cli(...args: string[]) {
  try {
    const { stdout } = await run(process.execPath, ['bin/loyalty.mjs', ...args, '--json'], { cwd: root, env });
    return { code: 0, json: JSON.parse(stdout) };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, json: e.stdout ? JSON.parse(e.stdout) : null, stderr: e.stderr };
  }
}

const get = (key: string, p: string) => fetch(`${base}${p}`, { headers: { authorization: `Bearer ${key}` } });

beforeAll(async () => {
  // npm start's own script: builds dist/ when the sources are newer, then serves with plain node
  server = spawn(process.execPath, ['scripts/start.mjs'], { cwd: root, env });
  server.stdout!.on('data', (d) => (output += d));
  server.stderr!.on('data', (d) => (output += d));
  const deadline = Date.now() + 90_000;
  while (!/listening on/.test(output)) {
    if (Date.now() > deadline || server.exitCode !== null) throw new Error(`server did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}, 120_000);

afterAll(() => {
  server.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start and the CLI', () => {
  it('prints a Full Access key on the first start that works at once', async () => {
    const key = /Full Access API key \(shown once\): (\S+)/.exec(output)?.[1];
    expect(key).toMatch(/^lpk_/);
    const res = await get(key!, '/v1/rewards');
    expect(res.status).toBe(200);
    expect((await res.json()).data.length).toBeGreaterThan(0);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  });

  it('provisions a merchant, imports a program and creates keys while the server runs', async () => {
    const merchant = await cli('merchants', 'create', '--slug', 'acme', '--name', 'Acme');
    expect(merchant.code).toBe(0);
    expect(merchant.json).toMatchObject({ slug: 'acme', name: 'Acme', id: expect.any(String) });

    const file = path.join(dataDir, 'program.json');
    writeFileSync(file, JSON.stringify({
      customers: [{ customer_id: 'c-1', email: 'c1@example.com', points_balance: 300 }],
      rewards: [{ name: '$5 off', reward_type: 'fixed_discount', points_cost: 100, reward_rule: { discount_value: 5 } }],
    }));
    const imported = await cli('import', '--merchant', 'acme', '--file', file);
    expect(imported.code).toBe(0);

    const key = await cli('keys', 'create', '--merchant', 'acme', '--type', 'custom', '--scope', 'customers=read', '--scope', 'rewards=read');
    expect(key.code).toBe(0);
    expect(key.json.scopes).toEqual(['read:customers', 'read:rewards']);
    const balance = await get(key.json.key, '/v1/customers/balance?customer_id=c-1');
    expect((await balance.json()).data.points_balance).toBe(300);
    expect((await get(key.json.key, '/v1/earning-rules')).status).toBe(403);

    // the README's form: npm run cli -- … --json prints exactly one JSON document on stdout
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
    writeFileSync(file, JSON.stringify({
      customers: [{ customer_id: 'ok-1', email: 'ok@example.com' }, { customer_id: 'bad', email: 'nope' }],
      rewards: [{ name: '', reward_type: 'fixed_discount', points_cost: 10, reward_rule: {} }],
    }));
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
    expect((await cli('merchants', 'settings', '--merchant', 'acme')).json.points_pending_days).toBe(3);
    expect((await cli('merchants', 'settings', '--merchant', 'acme', '--points-pending-days', 'soon')).code).toBe(2);
    const tooLong = await cli('merchants', 'settings', '--merchant', 'acme', '--points-pending-days', '400');
    expect(tooLong.json.error).toMatchObject({ code: 'validation_error', details: { points_pending_days: expect.any(Array) } });
    const approved = await cli('approve-pending');
    expect(approved).toMatchObject({ code: 0, json: { approved: 0, points: 0, customers: 0 } });
  }, 60_000);

  it('stops on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
