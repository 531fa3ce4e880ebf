// The SQL of the event types (events/) as migrations carry it. Each migration folder keeps a
// snapshot of it (events.sql, beside schema.prisma); `npm run db:migration` compares the files
// with the last snapshot and writes into the new migration the functions and triggers that
// changed or were added, then the new snapshot.
import { splitStatements } from '../../db/sql-script.js';
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

/** A snapshot's units by name, as their statements (without the `;`). */
function parseSnapshot(snapshot: string): Map<string, string[]> {
  const units = new Map<string, string[]>();
  for (const part of snapshot.split(`\n${MARK}`).slice(1)) {
    const newline = part.indexOf('\n');
    const text = splitStatements(part.slice(newline + 1)).map((s) => s.trim().replace(/;$/, ''));
    units.set(part.slice(0, newline), text);
  }
  return units;
}

const dropTrigger = (t: { name: string; table: string }) => `DROP TRIGGER IF EXISTS ${t.name} ON ${t.table};`;

/**
 * The SQL a migration needs to bring a database whose event SQL is `previous` (a snapshot; none
 * before the first) to `units`: of each type changed or added, the functions that are new or
 * changed (CREATE OR REPLACE) and the triggers (dropped and created again), and the triggers it
 * no longer has dropped. Empty when nothing changed. A function no longer in the files, or one
 * whose result type or argument names change, needs its DROP FUNCTION written in by hand.
 */
export function eventSqlMigration(previous: string | undefined, units: EventSqlUnit[]): string {
  const before = parseSnapshot(previous ?? '');
  const gone = [...before.keys()].filter((name) => !units.some((u) => u.name === name));
  const parts: string[] = [];
  for (const unit of [...units, ...gone.map(removed)]) {
    const old = before.get(unit.name);
    const held = new Set(old);
    const triggers = unit.triggers.filter((t) => !held.has(t));
    const triggersGone = (old ?? []).filter((s) => s.startsWith('CREATE TRIGGER ') && !unit.triggers.some((t) => sameName(t, s)));
    const functionsGone = (old ?? []).filter(
      (s) => s.startsWith('CREATE OR REPLACE FUNCTION ') && !unit.functions.some((f) => sameName(f, s)),
    );
    const statements = [
      ...unit.functions.filter((f) => !held.has(f)).map((f) => `${f};`),
      ...triggersGone.map((t) => dropTrigger(triggerParts(t))),
      ...triggers.flatMap((t) => [dropTrigger(triggerParts(t)), `${t};`]),
    ];
    if (!statements.length && !functionsGone.length) continue;
    const note = functionsGone.map((f) => `-- ${functionName(f)} is no longer in the files: drop it here if nothing calls it`);
    parts.push([`-- ${unit.name}${old ? '' : ' (new)'}`, ...note, ...statements].join('\n'));
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

const removed = (name: string): EventSqlUnit => ({ name, functions: [], triggers: [] });

/** Two definitions of one function or one trigger (by name). */
function sameName(a: string, b: string) {
  const name = (s: string) => (s.startsWith('CREATE TRIGGER ') ? triggerParts(s).name : functionName(s));
  return name(a) === name(b);
}
