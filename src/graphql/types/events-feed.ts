// The events feed: the merchant's webhook events, read back to catch up and reconcile. Public
// face (`read:events`): `events` (REST: GET /v1/events) by page or after an event, and, on
// GraphQL only, `events_connection` (Relay). Admin face: `webhook_events`, each event with its
// deliveries.
import { findCustomer } from '../../domain/customers/customers.js';
import { lookupRule } from '../../domain/shared/fields.js';
import { eventTypeNames } from '../../domain/webhooks/event-types.js';
import {
  deliveriesOf,
  type EventDelivery,
  eventConnection,
  type FeedEvent,
  type FeedFilters,
  listEvents,
  typesRule,
} from '../../domain/webhooks/feed.js';
import { builder, type Context } from '../builder.js';
import { connectionOf, cursorArgs, listOf, pageArgs } from '../envelopes.js';
import { ruled } from '../rules.js';

const EventDeliveryRef = builder.objectRef<EventDelivery>('EventDelivery').implement({
  subGraphs: ['admin'],
  description: "One of an event's deliveries (webhook_deliveries has the whole record)",
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The delivery (redeliver_webhook takes it)' }),
    endpoint_id: t.exposeID('endpoint_id'),
    status: t.exposeString('status', { description: 'pending, succeeded, failed or cancelled' }),
    attempts: t.exposeInt('attempts'),
    last_status: t.exposeInt('last_status', { nullable: true, description: 'HTTP status of the last answer; null: no answer' }),
    last_attempt_at: t.expose('last_attempt_at', { type: 'DateTime', nullable: true }),
    delivered_at: t.expose('delivered_at', { type: 'DateTime', nullable: true }),
  }),
});

type AdminEvent = FeedEvent & { deliveries?: EventDelivery[] };

// objectRef: an event as the feed reads it from the outbox body (data, version), not the stored row
const EventRef = builder.objectRef<AdminEvent>('Event').implement({
  subGraphs: ['public', 'admin'],
  description: 'A webhook event, as its deliveries send it',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The id every delivery of the event carries: dedupe on it' }),
    type: t.exposeString('type', {
      description: `One of ${eventTypeNames.join(', ')}; webhook.ping is a ping asked for one endpoint, which no endpoint subscribes to`,
    }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    version: t.exposeInt('version', {
      description: "The body's schema version, 1 for every type today; an event written before bodies carried one is version 1",
    }),
    data: t.expose('data', { type: 'JSON', description: "The body's `data`, as delivered" }),
    deliveries: t.field({
      subGraphs: ['admin'],
      type: [EventDeliveryRef],
      description:
        'Its deliveries, one per endpoint it was sent to, oldest first; none while it waits for dispatch or when no endpoint took it',
      resolve: (e) => e.deliveries ?? [],
    }),
  }),
});

const EventList = listOf('Event', EventRef);

const filterArgs = builder.args((t) => ({
  types: t.stringList(ruled(typesRule, 'Only these types, of those Event.type lists (repeat `types`, or comma-separate them in one)')),
  customer_id: t.string(ruled(lookupRule, 'Only events about this customer (its id on the e-commerce platform)')),
  created_after: t.field({ type: 'DateTime', description: 'Only events created at or after this time' }),
  created_before: t.field({ type: 'DateTime', description: 'Only events created before this time' }),
  delivery_success: t.boolean({
    description:
      'false: events not yet dispatched or with a delivery that has not succeeded (pending, failed, cancelled); ' +
      'true: events whose every delivery succeeded. Events sent to no endpoint match neither.',
  }),
}));

const listArgs = builder.args((t) => ({
  ...filterArgs,
  starting_after: t.id({ description: "An event's id (the last of the previous page): only the events older than it" }),
  ...pageArgs,
}));

interface FilterArgs {
  types?: readonly string[] | null;
  customer_id?: string | null;
  created_after?: Date | null;
  created_before?: Date | null;
  delivery_success?: boolean | null;
}

/** The domain's filters; a customer is named by platform id (404 not_found when unknown). */
async function filtersOf(ctx: Context, args: FilterArgs): Promise<FeedFilters> {
  const customer = args.customer_id != null ? await findCustomer(ctx.db, ctx.merchantId, { customer_id: args.customer_id }) : null;
  return {
    types: args.types,
    customerId: customer?.id,
    createdAfter: args.created_after,
    createdBefore: args.created_before,
    deliverySuccess: args.delivery_success,
  };
}

const listDescription = 'Webhook events, newest first, for the retention period (at least 30 days)';

builder.queryFields((t) => ({
  events: t.field({
    subGraphs: ['public'],
    type: EventList,
    description: `${listDescription}. REST: GET /v1/events`,
    authScopes: { scope: 'read:events' },
    args: listArgs,
    resolve: async (_root, args, ctx) =>
      listEvents(ctx.db, ctx.merchantId, await filtersOf(ctx, args), { ...args, starting_after: args.starting_after?.toString() }),
  }),
  events_connection: t.field({
    subGraphs: ['graph'],
    type: connectionOf('Event', EventRef),
    description: `${listDescription}, as a Relay connection: scroll down with first/after, up with last/before`,
    authScopes: { scope: 'read:events' },
    args: { ...filterArgs, ...cursorArgs },
    resolve: async (_root, args, ctx) => eventConnection(ctx.db, ctx.merchantId, await filtersOf(ctx, args), args),
  }),
  webhook_events: t.field({
    subGraphs: ['admin'],
    type: EventList,
    description: `${listDescription}, each with its deliveries`,
    args: listArgs,
    resolve: async (_root, args, ctx) => {
      const page = await listEvents(ctx.db, ctx.merchantId, await filtersOf(ctx, args), {
        ...args,
        starting_after: args.starting_after?.toString(),
      });
      const deliveries = await deliveriesOf(
        ctx.db,
        ctx.merchantId,
        page.data.map((e) => e.id),
      );
      return { ...page, data: page.data.map((e) => ({ ...e, deliveries: deliveries.get(e.id) ?? [] })) };
    },
  }),
}));
