// The privacy commands of the CLI, as an operator runs them (`loyalty customers export|erase`)
// on an embedded database: the export names the customer; the erasure removes the personal
// data, keeps the balance, is recorded in the audit log as the CLI's, and is idempotent.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { describeOnOwnEmbedded } from '../processes.js';
import { cliRunner } from './run-cli.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'loyalty-privacy-cli-'));
const env = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent', DATABASE_URL: '' };

const cli = cliRunner(env);

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describeOnOwnEmbedded('loyalty customers export | erase', () => {
  it('exports a customer, erases it once, and audits the erasure', async () => {
    expect((await cli('merchants', 'create', '--slug', 'shop')).code).toBe(0);
    const program = path.join(dataDir, 'program.json');
    writeFileSync(
      program,
      JSON.stringify({
        customers: [
          { customer_id: 'cust-ada-42', email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', points_balance: 300 },
        ],
      }),
    );
    expect((await cli('import', '--merchant', 'shop', '--file', program)).code).toBe(0);

    const out = path.join(dataDir, 'export.json');
    const written = await cli('customers', 'export', '--merchant', 'shop', 'cust-ada-42', '--file', out);
    expect(written.code).toBe(0);
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    expect(doc.customer).toMatchObject({ platform_id: 'cust-ada-42', email: 'ada@example.com', first_name: 'Ada', points_balance: 300 });
    expect(doc.ledger).toHaveLength(1);
    expect(written.json.customer_id).toBe(doc.customer.id);

    const erased = await cli('customers', 'erase', '--merchant', 'shop', 'cust-ada-42');
    expect(erased.code).toBe(0);
    expect(erased.json).toMatchObject({ id: doc.customer.id, erased_now: true, points_balance: 300 });
    const again = await cli('customers', 'erase', '--merchant', 'shop', doc.customer.id);
    expect(again.json).toEqual({ ...erased.json, erased_now: false });

    const gone = await cli('customers', 'export', '--merchant', 'shop', doc.customer.id);
    expect(gone.code).toBe(1);
    expect(gone.json.error.code).toBe('not_found');
    expect((await cli('customers', 'export', '--merchant', 'shop', 'cust-ada-42')).json.error.code).toBe('not_found');

    const key = await cli('keys', 'create', '--merchant', 'shop', '--type', 'read_only');
    expect(key.code).toBe(0);

    // the audit log holds the CLI's changes: both erasure runs (the second changed nothing),
    // naming the customer by its internal id only, and the key's creation without the key
    const { connect } = await import('../../src/db/database.js');
    const { loadConfig } = await import('../../src/config.js');
    const { db, close } = await connect(loadConfig(env));
    try {
      const entries = await db.auditEntry.findMany({ where: { action: 'erase_customer' }, orderBy: { createdAt: 'asc' } });
      expect(entries).toHaveLength(2);
      for (const entry of entries) expect(entry).toMatchObject({ actor: 'cli', resourceType: 'Customer', resourceId: doc.customer.id });
      expect((entries[0]!.before as { erasedAt: unknown }).erasedAt).toBeNull();
      expect((entries[0]!.after as { erasedAt: unknown }).erasedAt).toBe(erased.json.erased_at);
      expect(JSON.stringify(entries)).not.toMatch(/ada@example.com|cust-ada-42|Lovelace/);
      const created = await db.auditEntry.findFirstOrThrow({ where: { action: 'create_api_key' } });
      expect(created).toMatchObject({ actor: 'cli', resourceType: 'ApiKey', resourceId: key.json.id });
      expect(JSON.stringify(created)).not.toContain(key.json.key);
      const row = await db.customer.findFirstOrThrow({ where: { id: doc.customer.id } });
      expect(row).toMatchObject({ firstName: null, lastName: null, pointsBalance: 300 });
    } finally {
      await close();
    }
    // each CLI run starts the embedded database: slow on a busy machine
  }, 300_000);

  it('says what is missing', async () => {
    const res = await cli('customers', 'erase', '--merchant', 'shop');
    expect(res.code).toBe(2);
    expect(res.json.error.code).toBe('usage_error');
  }, 60_000);
});
