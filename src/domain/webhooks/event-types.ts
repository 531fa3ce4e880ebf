// The webhook event types and the body each one is delivered with, described once: the admin
// API's list of types, the OpenAPI document's `webhooks` section (openapi.ts renders these
// schemas) and the tests that validate real deliveries against it all read this table. The
// bodies themselves are written by the database (the outbox triggers of the migrations
// `webhooks_outbox`, `webhooks_standard` and `referral_flagged_event`), except points.expiring (the daily expiry job)
// and webhook.ping (ping, in deliveries.ts); a change to a payload there changes its schema here.
import { z } from 'zod';
import {
  CustomerRewardStatus,
  CustomerStatus,
  MembershipSource,
  RewardType,
  TransactionSource,
  TransactionType,
} from '../../generated/prisma/enums.js';
import { signalNames } from '../referrals/fraud-signals.js';

/** The schema version every body carries (`"version"`); bumped only when a field is removed or changes meaning. */
const EVENT_VERSION = 1;

const values = <T extends Record<string, string>>(e: T) => Object.values(e) as [T[keyof T], ...T[keyof T][]];
const timestamp = z.iso.datetime().describe('ISO 8601, UTC');
const id = z.uuid();
const customerRef = z
  .object({ id, customer_id: z.string().describe('The platform id'), email: z.string() })
  .describe('The customer: internal id, platform id and email');
const tierRef = z.object({ id, name: z.string() });

const customerProfile = {
  id,
  customer_id: z.string(),
  email: z.string(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  status: z.enum(values(CustomerStatus)),
  birthday: z.iso.date().nullable(),
  referral_code: z.string(),
};
const customerFields = ['customer_id', 'email', 'first_name', 'last_name', 'status', 'birthday', 'referral_code'] as const;

const pointsChange = z.object({
  transaction_id: id,
  customer: customerRef,
  points: z.int().describe('Signed: positive for a credit, negative for a debit'),
  type: z.enum(values(TransactionType)),
  description: z.string().nullable(),
  source: z.enum(values(TransactionSource)),
  balance_after: z.int(),
  reference: z.object({ kind: z.string(), id: z.string() }).nullable(),
  placed_at: timestamp.describe('When what moved the points happened (an order placed, an action): created_at unless it was recorded late'),
  created_at: timestamp.describe('When the ledger recorded it'),
});

interface EventType {
  /** When the event is raised. */
  when: string;
  /** Its `data`. */
  data: z.ZodObject;
  /** False: sent only when asked for (a ping), never to endpoints by their subscription. */
  subscribable: boolean;
}

/** Every event type, in the order the docs list them. */
export const eventTypes = {
  'points.credited': { when: 'A ledger row adds points: manual, order, refund, referral, import', data: pointsChange, subscribable: true },
  'points.debited': { when: 'A ledger row takes points: manual, refund, redemption, expiry', data: pointsChange, subscribable: true },
  'points.expired': {
    when: 'An expiry debit (also sent as points.debited)',
    data: z.object({
      transaction_id: id,
      customer: customerRef,
      points: z.int().positive(),
      balance_after: z.int(),
      expired_at: timestamp,
    }),
    subscribable: true,
  },
  'points.expiring': {
    when: 'POINTS_EXPIRING_DAYS before a balance expires, once per expiry date',
    data: z.object({ customer: customerRef, points: z.int(), expires_at: timestamp }),
    subscribable: true,
  },
  'reward.redeemed': {
    when: 'Points spent on a reward',
    data: z.object({
      id,
      customer: customerRef,
      reward: z.object({ id, name: z.string(), reward_type: z.enum(values(RewardType)) }),
      code: z.string(),
      status: z.enum(values(CustomerRewardStatus)),
      points_spent: z.int(),
      issued_at: timestamp,
      expires_at: timestamp.nullable(),
    }),
    subscribable: true,
  },
  'tier.changed': {
    when: 'A customer enters a tier',
    data: z.object({
      membership_id: id,
      customer: customerRef,
      tier: tierRef,
      previous_tier: tierRef.nullable(),
      source: z.enum(values(MembershipSource)),
      started_at: timestamp,
      expires_at: timestamp.nullable(),
    }),
    subscribable: true,
  },
  'referral.completed': {
    when: "A referred friend's first qualifying order",
    data: z.object({
      id,
      referrer: customerRef,
      referee: customerRef.nullable(),
      referee_email: z.string(),
      referrer_points: z.int(),
      order_id: z.string().nullable(),
      created_at: timestamp,
      completed_at: timestamp,
    }),
    subscribable: true,
  },
  'referral.flagged': {
    when: "A fraud check holds a referral for the merchant's review (at registration, or at the friend's order): nothing is issued until it is approved",
    data: z.object({
      id,
      referrer: customerRef,
      referee: customerRef.nullable().describe('The friend, once they are a customer'),
      referee_email: z.string(),
      order_id: z.string().nullable().describe("The friend's order that would have completed it, when flagged then"),
      signals: z.array(z.object({ signal: z.enum(signalNames), detail: z.string() })).min(1),
      created_at: timestamp,
      flagged_at: timestamp,
    }),
    subscribable: true,
  },
  'customer.created': {
    when: 'A new customer (any way, imports too)',
    data: z.object({ ...customerProfile, created_at: timestamp }),
    subscribable: true,
  },
  'customer.updated': {
    when: "A customer's profile fields or status change (an update that changes none of them raises nothing)",
    data: z.object({
      ...customerProfile,
      changed: z.array(z.enum(customerFields)).min(1).describe('The fields this change set'),
    }),
    subscribable: true,
  },
  'customer.erased': {
    when: "A privacy erasure removed the customer's personal data: ids only",
    data: z.object({ id, erased_at: timestamp }).strict(),
    subscribable: true,
  },
  'webhook.ping': {
    when: 'Asked for (ping_webhook_endpoint, `loyalty webhooks ping`): to that endpoint only, whatever its event types',
    data: z.object({ endpoint_id: id }).strict(),
    subscribable: false,
  },
} as const satisfies Record<string, EventType>;

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
