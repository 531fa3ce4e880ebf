// The audit log's filters through the admin API: by actor (one, or every actor of a kind), by
// time (created_after included, created_before excluded), with the others; newest first.
import { beforeAll, describe, expect, it } from 'vitest';
import { recordAudit } from '../../src/domain/audit/audit.js';
import { adminClient, newMerchant, type TestApp, testApp } from '../harness.js';

const AUDIT = `query ($actor: String, $action: String, $after: DateTime, $before: DateTime) {
  audit_log(actor: $actor, action: $action, created_after: $after, created_before: $before) {
    data { actor action created_at } meta { pagination { total } } } }`;

describe('audit_log filters', () => {
  let app: TestApp;
  let admin: ReturnType<typeof adminClient>;
  const day = (d: number) => new Date(Date.UTC(2026, 10, d, 12));

  beforeAll(async () => {
    app = await testApp();
    const merchant = await newMerchant(app, 'audit-filters');
    admin = adminClient(app, merchant.admin_token);
    const rows = [
      { actor: 'session:aaa', action: 'update_reward', at: day(1) },
      { actor: 'session:bbb', action: 'update_tier', at: day(2) },
      { actor: 'token:lpa_12345678', action: 'update_reward', at: day(3) },
      { actor: 'cli', action: 'erase_customer', at: day(4) },
    ];
    for (const row of rows) {
      const entry = await recordAudit(app.db, { merchantId: merchant.id, actor: row.actor, action: row.action });
      await app.db.auditEntry.update({ where: { merchantId_id: { merchantId: merchant.id, id: entry.id } }, data: { createdAt: row.at } });
    }
    // another shop's entry never shows
    const other = await newMerchant(app, 'audit-other');
    await recordAudit(app.db, { merchantId: other.id, actor: 'session:aaa', action: 'update_reward' });
  });

  const list = async (variables: Record<string, unknown>) => {
    const res = await admin(AUDIT, variables);
    expect(res.body.errors).toBeUndefined();
    return (res.body.data.audit_log.data as { actor: string; action: string }[]).map((e) => `${e.actor} ${e.action}`);
  };

  it('filters by one actor, by a kind of actor, and by action with it', async () => {
    expect(await list({ actor: 'session:aaa' })).toEqual(['session:aaa update_reward']);
    expect(await list({ actor: 'session' })).toEqual(['session:bbb update_tier', 'session:aaa update_reward']);
    expect(await list({ actor: 'token' })).toEqual(['token:lpa_12345678 update_reward']);
    expect(await list({ actor: 'cli' })).toEqual(['cli erase_customer']);
    // a prefix that is not a kind matches nothing: actors are matched whole
    expect(await list({ actor: 'sess' })).toEqual([]);
    expect(await list({ actor: 'session', action: 'update_reward' })).toEqual(['session:aaa update_reward']);
  });

  it('filters by time: from created_after (included) to created_before (excluded), newest first', async () => {
    expect(await list({ after: day(2).toISOString(), before: day(4).toISOString() })).toEqual([
      'token:lpa_12345678 update_reward',
      'session:bbb update_tier',
    ]);
    expect(await list({ after: day(3).toISOString() })).toEqual(['cli erase_customer', 'token:lpa_12345678 update_reward']);
    expect(await list({ before: day(2).toISOString() })).toEqual(['session:aaa update_reward']);
  });

  it('refuses a range that ends before it starts, saying which field', async () => {
    const res = await admin(AUDIT, { after: day(3).toISOString(), before: day(2).toISOString() });
    expect(res.body.errors?.[0]?.extensions).toMatchObject({
      code: 'validation_error',
      details: { created_before: [expect.stringMatching(/later than “Created after”/)] },
    });
  });
});
