// One place per webhook event type (src/domain/webhooks/events/): the migrated database holds
// exactly the functions and triggers the files say, on every database (a migration that changes
// an emitter without its file, or a file changed without its migration, fails here), and
// `npm run db:migration` turns a changed file into the statements of its migration.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { migrationsDir } from '../../src/db/schema-engine.js';
import { splitStatements } from '../../src/db/sql-script.js';
import {
  type EventSqlUnit,
  eventSqlMigration,
  eventSqlSnapshot,
  eventSqlUnits,
  functionName,
  triggerParts,
} from '../../src/domain/webhooks/event-sql.js';
import { eventTypes } from '../../src/domain/webhooks/event-types.js';
import { type TestApp, testApp } from '../harness.js';

let app: TestApp;
beforeAll(async () => {
  app = await testApp();
});

const units = eventSqlUnits();
const functions = units.flatMap((u) => u.functions);
const triggers = units.flatMap((u) => u.triggers);

describe('the database holds what the event files say', () => {
  it('has every function of the files, as written there', async () => {
    const names = functions.map((f) => functionName(f).replace('public.', ''));
    const rows = await app.db.$queryRaw<{ name: string; definition: string }[]>`
      SELECT p.proname AS name, pg_get_functiondef(p.oid) AS definition FROM pg_proc p
       WHERE p.pronamespace = 'public'::regnamespace AND p.proname = ANY(${names})`;
    // on a Citus coordinator the distribute step sets this on every PL/pgSQL function that reads
    // tables, after the migrations (customPlans, src/db/cluster.ts): not the event files' to say
    const [{ citus }] = await app.db.$queryRaw<[{ citus: boolean }]>`
      SELECT EXISTS (SELECT FROM pg_extension WHERE extname = 'citus') AS citus`;
    const custom = "\n SET plan_cache_mode TO 'force_custom_plan'\n";
    const held = Object.fromEntries(rows.map((r) => [r.name, (citus ? r.definition.replace(custom, '\n') : r.definition).trimEnd()]));
    expect(rows.length, 'one function of each name').toBe(names.length);
    expect(held).toEqual(Object.fromEntries(names.map((n, i) => [n, functions[i]])));
  });

  it('has every trigger of the files, as written there, and no other trigger calls an event function', async () => {
    // the emitters: the files' trigger functions and any other function that writes an event
    const emitters = functions.filter((f) => / RETURNS trigger\n/.test(f)).map((f) => functionName(f).replace('public.', ''));
    // a shard's copy of a table (on a Citus node) is named after it with the shard's number
    const rows = await app.db.$queryRaw<{ name: string; definition: string }[]>`
      SELECT t.tgname AS name, pg_get_triggerdef(t.oid) AS definition
        FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid JOIN pg_class c ON c.oid = t.tgrelid
       WHERE NOT t.tgisinternal AND c.relnamespace = 'public'::regnamespace AND c.relname !~ '_[0-9]+$'
         AND (p.proname = ANY(${emitters}) OR p.prosrc ~* 'loyalty_emit_event|loyalty_event_body|INSERT INTO events\\y')`;
    expect(rows.length).toBe(triggers.length);
    expect(Object.fromEntries(rows.map((r) => [r.name, r.definition]))).toEqual(
      Object.fromEntries(triggers.map((t) => [triggerParts(t).name, t])),
    );
  });

  it('keeps its SQL in the last migration folder (npm run db:migration has nothing to write)', () => {
    const last = readdirSync(migrationsDir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort()
      .at(-1)!;
    const snapshot = readFileSync(path.join(migrationsDir, last, 'events.sql'), 'utf8');
    expect(snapshot).toBe(eventSqlSnapshot(units));
    expect(eventSqlMigration(snapshot, units)).toBe('');
  });

  it('says of every type what writes it, and owns each function and trigger in one file', () => {
    for (const type of Object.values(eventTypes)) expect(type.emittedBy, type.name).toMatch(/\S/);
    const names = [...functions.map(functionName), ...triggers.map((t) => triggerParts(t).name)];
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('npm run db:migration, from the event files', () => {
  const snapshot = eventSqlSnapshot(units);
  const changed = (name: string, change: (u: EventSqlUnit) => EventSqlUnit) => units.map((u) => (u.name === name ? change(u) : u));

  it('writes nothing when no event SQL changed', () => {
    expect(eventSqlMigration(snapshot, units)).toBe('');
  });

  /** The statements of a migration, without their leading comments. */
  const statementsOf = (sql: string) => splitStatements(sql).map((s) => s.replace(/^(\s*--[^\n]*\n)+/, '').trim());

  it('writes the CREATE OR REPLACE of a changed function, of that type only', () => {
    const edited = changed('customer.erased', (u) => ({
      ...u,
      functions: u.functions.map((f) => f.replace('END $function$', '  -- changed\nEND $function$')),
    }));
    const [set, create, ...rest] = statementsOf(eventSqlMigration(snapshot, edited));
    expect(set).toBe('SET LOCAL citus.enable_unsafe_triggers = on;');
    expect(create).toBe(`${edited.find((u) => u.name === 'customer.erased')!.functions[0]};`);
    expect(create).toMatch(/^CREATE OR REPLACE FUNCTION public.customers_emit_erased\(\)\n[\s\S]*-- changed\nEND \$function\$;$/);
    expect(rest).toEqual([]);
    // the next migration starts from the new snapshot: nothing more to write
    expect(eventSqlMigration(eventSqlSnapshot(edited), edited)).toBe('');
  });

  it('drops and creates again a changed trigger', () => {
    const trigger = (u: EventSqlUnit) => u.triggers[0]!.replace('AFTER INSERT ON', 'AFTER INSERT OR UPDATE ON');
    const edited = changed('customer.created', (u) => ({ ...u, triggers: [trigger(u)] }));
    expect(statementsOf(eventSqlMigration(snapshot, edited))).toEqual([
      'SET LOCAL citus.enable_unsafe_triggers = on;',
      'DROP TRIGGER IF EXISTS customers_outbox ON public.customers;',
      `${trigger(units.find((u) => u.name === 'customer.created')!)};`,
    ]);
  });

  it('writes every statement of a new type, and drops a trigger a type no longer has', () => {
    const added: EventSqlUnit = {
      name: 'customer.noticed',
      functions: [
        'CREATE OR REPLACE FUNCTION public.customers_emit_noticed()\n RETURNS trigger\n LANGUAGE plpgsql\nAS $function$\nBEGIN\n  RETURN NULL;\nEND $function$',
      ],
      triggers: [
        'CREATE TRIGGER customers_noticed_outbox AFTER UPDATE ON public.customers FOR EACH ROW EXECUTE FUNCTION customers_emit_noticed()',
      ],
    };
    const sql = eventSqlMigration(snapshot, [...units, added]);
    expect(sql).toContain('-- customer.noticed (new)\nCREATE OR REPLACE FUNCTION public.customers_emit_noticed()');
    expect(sql).toContain(`DROP TRIGGER IF EXISTS customers_noticed_outbox ON public.customers;\n${added.triggers[0]};`);
    expect(sql).not.toContain('customers_emit_erased');

    const withoutHeld = changed('referral.flagged', (u) => ({ ...u, triggers: u.triggers.slice(0, 1) }));
    const dropped = eventSqlMigration(snapshot, withoutHeld);
    expect(dropped).toContain('DROP TRIGGER IF EXISTS referrals_held_outbox ON public.referrals;');
    expect(dropped).not.toContain('CREATE TRIGGER referrals_held_outbox');
  });

  it('writes every statement when the last folder has no snapshot yet', () => {
    const sql = eventSqlMigration(undefined, units);
    for (const statement of [...functions, ...triggers]) expect(sql).toContain(statement);
  });
});
