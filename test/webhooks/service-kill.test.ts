// The service end to end with webhooks: the server process (its own workers) killed with
// SIGKILL right after the changes, then restarted: every event still arrives. Then a server
// with WORKERS=false delivers nothing until `loyalty worker` runs beside it. Endpoints are
// managed with the CLI while the server runs.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { verifySignature } from '../../src/domain/webhooks/signature.js';
import { cliRunner } from '../cli/run-cli.js';
import { CLI, describeOnOwnEmbedded, exitCode, freePort, SERVER, type ServerProcess, startServerProcess } from '../processes.js';
import { eventually, startReceiver } from './receiver.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'loyalty-hooks-'));
const port = await freePort();
const env = {
  ...process.env,
  DATA_DIR: dataDir,
  PORT: String(port),
  HOST: '127.0.0.1',
  LOG_LEVEL: 'info',
  DATABASE_URL: '',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  JOBS_POLL_SECONDS: '0.5',
  WEBHOOK_RETRY_DELAY_SECONDS: '1',
  WEBHOOK_DISPATCH_INTERVAL_MS: '100',
};
const base = `http://127.0.0.1:${port}`;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const processes = new Set<ServerProcess>();
const runCli = cliRunner(env);

/** Runs a CLI command that must succeed; its JSON. */
async function cli(...args: string[]) {
  const result = await runCli(...args);
  expect(result.code, result.stderr).toBe(0);
  return result.json;
}

/** Starts the server (or the CLI's `worker`) on the test's port and waits for `ready` in its output. */
async function start(args: string[], ready: RegExp, extraEnv: Record<string, string> = {}) {
  const started = await startServerProcess({ ...env, ...extraEnv }, { args, port, ready });
  processes.add(started);
  return started;
}

const credit = (key: string, points: number) =>
  fetch(`${base}/v1/customers/transactions?customer_id=c-1`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ points, description: `+${points}` }),
  });

beforeAll(async () => {
  receiver = await startReceiver();
}, 120_000);

afterAll(async () => {
  for (const started of processes) started.child.kill('SIGKILL');
  await receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describeOnOwnEmbedded('a killed service loses no event', () => {
  let key: string;
  let secret: string;

  it('delivers every event written before a SIGKILL once the service is back', async () => {
    let server = await start([SERVER], /listening on/);
    await cli('merchants', 'create', '--slug', 'hooks');
    key = (await cli('keys', 'create', '--merchant', 'hooks', '--type', 'full')).key;
    const endpoint = await cli('webhooks', 'create', '--merchant', 'hooks', '--url', receiver.url('/e2e'));
    secret = endpoint.secret;
    expect(secret).toMatch(/^whsec_/);
    expect((await cli('webhooks', 'list', '--merchant', 'hooks'))[0]).not.toHaveProperty('secret');

    const file = path.join(dataDir, 'program.json');
    writeFileSync(file, JSON.stringify({ customers: [{ customer_id: 'c-1', email: 'c1@example.com', points_balance: 100 }] }));
    await cli('import', '--merchant', 'hooks', '--file', file);
    // the receiver holds its answers, so deliveries are in flight when the server dies
    receiver.state.answer = (r) => (r.path === '/e2e' ? 503 : 200);
    for (let i = 1; i <= 5; i++) expect((await credit(key, i)).status).toBe(201);
    server.child.kill('SIGKILL');
    await exitCode(server);
    receiver.state.answer = () => 200;

    server = await start([SERVER], /listening on/);
    const received = await eventually(() => {
      const ids = new Set(receiver.received.map((r) => r.json.id));
      expect(ids.size).toBe(7); // customer.created, the import's credit, 5 credits
      return receiver.received;
      // a delivery in flight when the process died comes back only once pg-boss expires it
      // (20 s after it started) and its housekeeping (every 20 s) returns it to retry: ~40 s
    }, 90_000);
    for (const r of received) expect(verifySignature(secret, r.body, String(r.headers['loyalty-signature']))).toBe(true);
    const balance = new Map(received.map((r) => [r.json.id, r.json])).values();
    const sum = [...balance].filter((e) => e.type.startsWith('points.')).reduce((s, e) => s + e.data.points, 0);
    expect(sum).toBe(115);

    const deliveries = await cli('webhooks', 'deliveries', '--merchant', 'hooks', '--status', 'succeeded');
    expect(deliveries.meta.pagination.total).toBe(7);
    server.child.kill('SIGTERM');
    expect(await exitCode(server)).toBe(0);
  }, 240_000);

  it('WORKERS=false only serves; `loyalty worker` delivers and stops cleanly on SIGTERM', async () => {
    const server = await start([SERVER], /listening on/, { WORKERS: 'false' });
    const before = receiver.received.length;
    expect((await credit(key, 7)).status).toBe(201);
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.received.length).toBe(before);

    const worker = await start([CLI, 'worker'], /worker running/);
    await eventually(() => expect(receiver.received.length).toBe(before + 1), 30_000);
    expect(receiver.received.at(-1)!.json).toMatchObject({ type: 'points.credited', data: { points: 7, balance_after: 122 } });
    worker.child.kill('SIGTERM');
    expect(await exitCode(worker)).toBe(0);
    server.child.kill('SIGTERM');
    expect(await exitCode(server)).toBe(0);
  }, 240_000);
});
