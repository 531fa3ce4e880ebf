// The webhook event types, assembled from events/: one file per type holds its name, when it
// is raised, its `data` schema and what writes it, including the SQL of its trigger and payload
// functions (docs/webhooks.md, "Adding an event type"). The admin API's list of types, the
// OpenAPI document's `webhooks` section (openapi.ts renders these schemas) and the tests that
// validate real deliveries read this table; event-sql.ts turns the SQL into migrations, and
// test/webhooks/event-registry.test.ts holds the migrated database to the files.
import { z } from 'zod';
import { customerCreated } from './events/customer-created.js';
import { customerErased } from './events/customer-erased.js';
import { customerUpdated } from './events/customer-updated.js';
import { id, timestamp } from './events/event.js';
import { pointsCredited } from './events/points-credited.js';
import { pointsDebited } from './events/points-debited.js';
import { pointsExpired } from './events/points-expired.js';
import { pointsExpiring } from './events/points-expiring.js';
import { referralCompleted } from './events/referral-completed.js';
import { referralFlagged } from './events/referral-flagged.js';
import { rewardRedeemed } from './events/reward-redeemed.js';
import { tierChanged } from './events/tier-changed.js';
import { webhookPing } from './events/webhook-ping.js';

/** The schema version every body carries (`"version"`); bumped only when a field is removed or changes meaning. */
const EVENT_VERSION = 1;

/** Every event type, in the order the docs list them. */
const all = [
  pointsCredited,
  pointsDebited,
  pointsExpired,
  pointsExpiring,
  rewardRedeemed,
  tierChanged,
  referralCompleted,
  referralFlagged,
  customerCreated,
  customerUpdated,
  customerErased,
  webhookPing,
] as const;

/** Every event type by name, in the order the docs list them. */
export const eventTypes = Object.fromEntries(all.map((type) => [type.name, type])) as {
  [T in (typeof all)[number] as T['name']]: T;
};

export type EventTypeName = keyof typeof eventTypes;

/** Every type an event may have, as the feed holds them (webhook.ping too), in the docs' order. */
export const eventTypeNames = Object.keys(eventTypes) as [EventTypeName, ...EventTypeName[]];

/** The types an endpoint subscribes to (event_types). */
export const webhookEventTypes = (Object.keys(eventTypes) as EventTypeName[]).filter((t) => eventTypes[t].subscribable) as [
  EventTypeName,
  ...EventTypeName[],
];

/** The whole delivered body of an event of `type`. */
function eventBodySchema(type: EventTypeName) {
  return z.object({
    id: id.describe('The event id: the same on every attempt and redelivery (also the webhook-id header)'),
    type: z.literal(type),
    version: z.literal(EVENT_VERSION).describe("The body's schema version"),
    created_at: timestamp,
    merchant_id: id,
    data: eventTypes[type].data,
  });
}

type Json = Record<string, unknown>;

/** Drops zod's regular expressions where a `format` (uuid, date-time, date) already says it. */
function withoutPatterns(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutPatterns);
  if (!node || typeof node !== 'object') return node;
  const entries = Object.entries(node as Json).filter(([k]) => !(k === 'pattern' && 'format' in (node as Json)) && k !== '$schema');
  return Object.fromEntries(entries.map(([k, v]) => [k, withoutPatterns(v)]));
}

/**
 * The JSON Schema (2020-12, as OpenAPI 3.1 takes it) of the body of an event of `type`. Objects
 * stay open (a later version may add fields without breaking a consumer that validates), except
 * where the table says `.strict()`.
 */
export const eventBodyJsonSchema = (type: EventTypeName) =>
  withoutPatterns(z.toJSONSchema(eventBodySchema(type), { target: 'draft-2020-12', io: 'input' })) as Json;
