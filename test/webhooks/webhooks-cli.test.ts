// The webhook commands docs/webhooks.md shows, run as an operator runs them (`loyalty webhooks
// rotate-secret | ping | deliveries`, --json) on an embedded database of their own.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { cliRunner } from '../cli/run-cli.js';
import { describeOnOwnEmbedded } from '../processes.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'loyalty-webhooks-cli-'));
const cli = cliRunner({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent', DATABASE_URL: '', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describeOnOwnEmbedded('loyalty webhooks rotate-secret | ping', () => {
  it('rotates a secret with an overlap, refuses one out of bounds, and pings an endpoint', async () => {
    expect((await cli('merchants', 'create', '--slug', 'shop')).code).toBe(0);
    const created = await cli('webhooks', 'create', '--merchant', 'shop', '--url', 'http://127.0.0.1:9/hook', '--event', 'points.debited');
    expect(created.code).toBe(0);
    const id = created.json.id as string;

    const rotated = await cli('webhooks', 'rotate-secret', '--merchant', 'shop', id, '--overlap-hours', '48');
    expect(rotated.code).toBe(0);
    expect(rotated.json.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(rotated.json.secret).not.toBe(created.json.secret);
    const hours = (Date.parse(rotated.json.previous_secret_expires_at) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(47.9);
    expect(hours).toBeLessThanOrEqual(48);

    const refused = await cli('webhooks', 'rotate-secret', '--merchant', 'shop', id, '--overlap-hours', '169');
    expect(refused.code).not.toBe(0);
    expect(refused.json.error.code).toBe('validation_error');
    const listed = await cli('webhooks', 'list', '--merchant', 'shop');
    expect(listed.json[0].previous_secret_expires_at).toBe(rotated.json.previous_secret_expires_at);

    const ping = await cli('webhooks', 'ping', '--merchant', 'shop', id);
    expect(ping.code).toBe(0);
    expect(ping.json).toMatchObject({ endpoint_id: id, event_type: 'webhook.ping', status: 'pending' });
    const deliveries = await cli('webhooks', 'deliveries', '--merchant', 'shop', '--endpoint', id);
    expect(deliveries.json.data.map((d: { id: string }) => d.id)).toEqual([ping.json.id]);
  }, 240_000);
});
