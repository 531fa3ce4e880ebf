// The SQL of the event types (events/) as migrations carry it. Each migration folder keeps a
// snapshot of it (events.sql, beside schema.prisma); `npm run db:migration` compares the files
// with the last snapshot and writes the statements of every event type whose SQL changed or
// was added into the new migration, then the new snapshot.
import { eventTypes } from './event-types.js';
import type { EventSql } from './events/event.js';
import { sharedSql } from './events/shared.sql.js';

/** The SQL one event type owns (or the shared helpers, named `shared`). */
export interface EventSqlUnit extends EventSql {
  name: string;
}

/** The shared helpers first (the others' LANGUAGE sql functions call them), then each type with SQL, in the docs' order. */
export const eventSqlUnits = (): EventSqlUnit[] => [
  { name: 'shared', ...sharedSql },
  ...Object.values(eventTypes).flatMap((type) => ('sql' in type ? [{ name: type.name, ...type.sql }] : [])),
];

/** A function's name as pg_get_functiondef prints it (`public.name`). */
export const functionName = (definition: string) => named(/^CREATE OR REPLACE FUNCTION (public\.\w+)\(/, definition);

/** A trigger's name and table as pg_get_triggerdef prints them. */
export const triggerParts = (definition: string) => ({
  name: named(/^CREATE TRIGGER (\w+) /, definition),
  table: named(/ ON (public\.\w+) /, definition),
});

function named(pattern: RegExp, definition: string) {
  const name = pattern.exec(definition)?.[1];
  if (!name) throw new Error(`not a statement pg_get_functiondef or pg_get_triggerdef prints: ${definition.slice(0, 80)}`);
  return name;
}

const MARK = '-- event: ';
const statements = (unit: EventSqlUnit) => [...unit.functions, ...unit.triggers].map((s) => `${s};\n`).join('\n');

/** The snapshot a migration folder keeps: every unit's statements under its `-- event: <name>` line. */
export function eventSqlSnapshot(units: EventSqlUnit[]): string {
  const header =
    '-- The SQL of the webhook event types as this migration leaves the database, made from\n' +
    '-- src/domain/webhooks/events/ by `npm run db:migration`, which compares the next one with it.\n';
  return [header, ...units.map((unit) => `${MARK}${unit.name}\n${statements(unit)}`)].join('\n');
}

/** A snapshot's units by name, as their text. */
function parseSnapshot(snapshot: string): Map<string, string> {
  const units = new Map<string, string>();
  for (const part of snapshot.split(`\n${MARK}`).slice(1)) {
    const newline = part.indexOf('\n');
    units.set(part.slice(0, newline), part.slice(newline + 1).trimEnd());
  }
  return units;
}

/**
 * The SQL a migration needs to bring a database whose event SQL is `previous` (a snapshot; none
 * before the first) to `units`: for each unit changed or added, its functions (CREATE OR REPLACE)
 * and its triggers (dropped and created again); the triggers of a unit that no longer has them
 * dropped. Empty when nothing changed. A function that no longer exists, or whose result type or
 * argument names change, needs its DROP FUNCTION written into the migration by hand.
 */
export function eventSqlMigration(previous: string | undefined, units: EventSqlUnit[]): string {
  const before = parseSnapshot(previous ?? '');
  const parts: string[] = [];
  const current = new Set<string>();
  for (const unit of units) {
    current.add(unit.name);
    const old = before.get(unit.name);
    if (old === statements(unit).trimEnd()) continue;
    const triggers = unit.triggers.map(triggerParts);
    const gone = triggersOf(old).filter((t) => !triggers.some((n) => n.name === t.name));
    parts.push(
      [
        `-- ${unit.name}${old === undefined ? ' (new)' : ''}`,
        ...unit.functions.map((f) => `${f};`),
        ...[...gone, ...triggers].map((t) => `DROP TRIGGER IF EXISTS ${t.name} ON ${t.table};`),
        ...unit.triggers.map((t) => `${t};`),
      ].join('\n'),
    );
  }
  for (const [name, old] of before) {
    if (current.has(name)) continue;
    const drops = triggersOf(old).map((t) => `DROP TRIGGER IF EXISTS ${t.name} ON ${t.table};`);
    parts.push([`-- ${name}: no longer in src/domain/webhooks/events/ (drop its functions here)`, ...drops].join('\n'));
  }
  if (!parts.length) return '';
  return [
    '-- The webhook event types whose SQL changed (src/domain/webhooks/events/). Trigger DDL on a Citus\n' +
      "-- cluster's distributed tables needs this (their triggers then fire without it); plain\n" +
      '-- PostgreSQL keeps it as a placeholder setting for this transaction.\n' +
      'SET LOCAL citus.enable_unsafe_triggers = on;',
    ...parts,
  ].join('\n\n');
}

/** The triggers a unit's snapshot text creates. */
function triggersOf(text: string | undefined) {
  return [...(text ?? '').matchAll(/^CREATE TRIGGER .*$/gm)].map((m) => triggerParts(m[0]));
}
