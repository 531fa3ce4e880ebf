// What a file of this folder says of its event type, and the `data` fields several types share.
import { z } from 'zod';

/**
 * The SQL that writes an event type, each statement exactly as the database prints it back
 * (pg_get_functiondef, pg_get_triggerdef): test/webhooks/event-registry.test.ts compares them
 * with the migrated database, and `npm run db:migration` writes a changed one into the next
 * migration (docs/webhooks.md, "Adding an event type").
 */
export interface EventSql {
  /** CREATE OR REPLACE FUNCTION statements, in the order they are created (a LANGUAGE sql function's callees first). */
  functions: readonly string[];
  /** CREATE TRIGGER statements. */
  triggers: readonly string[];
}

export interface EventType {
  name: string;
  /** When the event is raised. */
  when: string;
  /** Its `data`. */
  data: z.ZodObject;
  /** False: sent only when asked for (a ping), never to endpoints by their subscription. */
  subscribable: boolean;
  /** What writes it: the database (its SQL below, or another type's) or the TS code named here. */
  emittedBy: string;
  /** The SQL this type owns; none when it is written by TS or by another type's SQL. */
  sql?: EventSql;
}

/** An event type, its name kept as a literal (event-types.ts keys its table by it). */
export const eventType = <const T extends EventType>(type: T): T => type;

export const values = <T extends Record<string, string>>(e: T) => Object.values(e) as [T[keyof T], ...T[keyof T][]];
export const timestamp = z.iso.datetime().describe('ISO 8601, UTC');
export const id = z.uuid();
export const customerRef = z
  .object({ id, customer_id: z.string().describe('The platform id'), email: z.string() })
  .describe('The customer: internal id, platform id and email');
