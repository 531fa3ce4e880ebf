// Webhooks (admin face): endpoints (the signing secret is shown once, at creation and at each
// rotation), their deliveries with status, attempts and last answer, redelivery and ping. The events themselves are
// written by the database with each change (the outbox) and delivered by the job workers.

import type { PrismaModelTypes } from '@pothos/plugin-prisma';
import { listDeliveries, pingEndpoint, redeliver } from '../../domain/webhooks/deliveries.js';
import {
  createEndpoint,
  deleteEndpoint,
  listEndpoints,
  ROTATION_OVERLAP,
  replacedSecretSignsUntil,
  rotateSecret,
  updateEndpoint,
} from '../../domain/webhooks/endpoints.js';
import { eventTypes, webhookEventTypes } from '../../domain/webhooks/event-types.js';
import { SIGNATURE_HEADER } from '../../domain/webhooks/signature.js';
import type PrismaTypes from '../../generated/pothos-types.js';
import { builder } from '../builder.js';
import { listOf, pageArgs } from '../envelopes.js';

const eventTypesDescription = `Event types: ${webhookEventTypes.join(', ')}. Empty: every type.`;

type Types = typeof builder.$inferSchemaTypes;

/** The fields an endpoint shows everywhere; never its signing secrets. */
const endpointFields = (t: PothosSchemaTypes.PrismaObjectFieldBuilder<Types, PrismaModelTypes & PrismaTypes['WebhookEndpoint']>) => ({
  id: t.exposeID('id'),
  url: t.exposeString('url'),
  description: t.exposeString('description', { nullable: true }),
  event_types: t.exposeStringList('eventTypes', { description: eventTypesDescription }),
  enabled: t.exposeBoolean('enabled'),
  disabled_reason: t.exposeString('disabledReason', {
    nullable: true,
    description: 'Why the service disabled the endpoint (it kept failing); null when enabled or disabled by the merchant',
  }),
  disabled_at: t.expose('disabledAt', { type: 'DateTime', nullable: true }),
  failing_since: t.expose('failingSince', {
    type: 'DateTime',
    nullable: true,
    description: 'First failed attempt since the last success; the endpoint is disabled after failing for the retry window (3 days)',
  }),
  previous_secret_expires_at: t.field({
    type: 'DateTime',
    nullable: true,
    description: 'Until when deliveries are also signed with the secret the last rotation replaced; null: only the current secret signs',
    resolve: (e) => replacedSecretSignsUntil(e),
  }),
  created_at: t.expose('createdAt', { type: 'DateTime' }),
  updated_at: t.expose('updatedAt', { type: 'DateTime' }),
});

const WebhookEndpointRef = builder.prismaObject('WebhookEndpoint', {
  subGraphs: ['admin'],
  description: `A URL that receives the merchant's events, signed with the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature) and the ${SIGNATURE_HEADER} header`,
  fields: (t) => endpointFields(t),
});

// a variant of the row that shows its current secret, for the answers that just set it
// (creation, rotation)
const CreatedWebhookEndpointRef = builder.prismaObject('WebhookEndpoint', {
  variant: 'CreatedWebhookEndpoint',
  subGraphs: ['admin'],
  description: 'A new endpoint, or one whose secret was just rotated: `secret` (for verifying signatures) is shown this once',
  fields: (t) => ({
    secret: t.exposeString('secret'),
    ...endpointFields(t),
  }),
});

const DeliveryStatusEnum = builder.enumType('WebhookDeliveryStatus', {
  subGraphs: ['admin'],
  values: {
    pending: { description: 'Queued or being retried' },
    succeeded: { description: 'The endpoint answered 2xx' },
    failed: { description: 'Still failing at the end of the retry window' },
    cancelled: { description: 'Not sent: the endpoint was disabled' },
  },
});

const WebhookDeliveryRef = builder.prismaObject('WebhookDelivery', {
  include: { event: { select: { type: true } } },
  subGraphs: ['admin'],
  description: 'One event to one endpoint',
  fields: (t) => ({
    id: t.exposeID('id'),
    endpoint_id: t.exposeID('endpointId'),
    event_id: t.exposeID('eventId', { description: 'The same id (and body) on every attempt and redelivery' }),
    event_type: t.string({ resolve: (d) => d.event.type }),
    status: t.expose('status', { type: DeliveryStatusEnum }),
    attempts: t.exposeInt('attempts'),
    last_attempt_at: t.expose('lastAttemptAt', { type: 'DateTime', nullable: true }),
    last_status: t.exposeInt('lastStatus', { nullable: true, description: 'HTTP status of the last answer; null: no answer' }),
    last_response: t.exposeString('lastResponse', {
      nullable: true,
      description: "The start of the last answer's body, or why there was no answer",
    }),
    delivered_at: t.expose('deliveredAt', { type: 'DateTime', nullable: true }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const WebhookDeliveryList = listOf('WebhookDelivery', WebhookDeliveryRef);

const WebhookEventTypeRef = builder.objectRef<{ type: string; description: string }>('WebhookEventType').implement({
  subGraphs: ['admin'],
  description: 'An event type an endpoint can subscribe to',
  fields: (t) => ({
    type: t.exposeString('type'),
    description: t.exposeString('description', { description: 'When it is sent' }),
  }),
});

builder.queryFields((t) => ({
  webhook_event_types: t.field({
    subGraphs: ['admin'],
    type: [WebhookEventTypeRef],
    description: 'The event types an endpoint can subscribe to (event_types), in the order the docs list them',
    resolve: () => webhookEventTypes.map((type) => ({ type, description: eventTypes[type].when })),
  }),
  webhook_endpoints: t.field({
    subGraphs: ['admin'],
    type: [WebhookEndpointRef],
    description: "The merchant's webhook endpoints, newest first (never their secrets)",
    resolve: (_root, _args, ctx) => listEndpoints(ctx.db, ctx.merchantId),
  }),
  webhook_deliveries: t.field({
    subGraphs: ['admin'],
    type: WebhookDeliveryList,
    description: 'Webhook deliveries, newest first',
    args: {
      endpoint_id: t.arg.id(),
      status: t.arg({ type: DeliveryStatusEnum }),
      ...pageArgs,
    },
    resolve: (_root, args, ctx) =>
      listDeliveries(ctx.db, ctx.merchantId, { endpointId: args.endpoint_id ? String(args.endpoint_id) : null, status: args.status }, args),
  }),
}));

builder.mutationFields((t) => ({
  create_webhook_endpoint: t.field({
    subGraphs: ['admin'],
    type: CreatedWebhookEndpointRef,
    description: 'Registers an https URL (it must not resolve to a private address). The signing secret is in this answer only.',
    args: {
      url: t.arg.string({ required: true }),
      event_types: t.arg.stringList({ description: eventTypesDescription }),
      description: t.arg.string(),
      enabled: t.arg.boolean({ description: 'Default true' }),
    },
    resolve: (_root, args, ctx) => createEndpoint(ctx.db, ctx.merchantId, args, ctx.config?.WEBHOOK_ALLOW_PRIVATE_URLS === true),
  }),
  update_webhook_endpoint: t.field({
    subGraphs: ['admin'],
    type: WebhookEndpointRef,
    description: 'Changes what is given. enabled: true re-enables a disabled endpoint and clears why it was disabled.',
    args: {
      id: t.arg.id({ required: true }),
      url: t.arg.string(),
      event_types: t.arg.stringList({ description: eventTypesDescription }),
      description: t.arg.string(),
      enabled: t.arg.boolean(),
    },
    resolve: (_root, { id, ...input }, ctx) =>
      updateEndpoint(
        ctx.db,
        ctx.merchantId,
        String(id),
        { ...input, url: input.url ?? undefined },
        ctx.config?.WEBHOOK_ALLOW_PRIVATE_URLS === true,
      ),
  }),
  delete_webhook_endpoint: t.field({
    subGraphs: ['admin'],
    type: WebhookEndpointRef,
    description: 'Deletes the endpoint and its deliveries',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => deleteEndpoint(ctx.db, ctx.merchantId, String(args.id)),
  }),
  rotate_webhook_secret: t.field({
    subGraphs: ['admin'],
    type: CreatedWebhookEndpointRef,
    description:
      'Gives the endpoint a new signing secret, in this answer only. For overlap_hours every delivery is signed with both the new and the replaced secret; then with the new one only.',
    args: {
      id: t.arg.id({ required: true }),
      overlap_hours: t.arg.int({
        description: `Hours the replaced secret keeps signing (default ${ROTATION_OVERLAP.defaultHours}, 0 to ${ROTATION_OVERLAP.maxHours}; 0: it stops at once)`,
      }),
    },
    resolve: (_root, args, ctx) => rotateSecret(ctx.db, ctx.merchantId, String(args.id), { overlap_hours: args.overlap_hours }),
  }),
  ping_webhook_endpoint: t.field({
    subGraphs: ['admin'],
    type: WebhookDeliveryRef,
    description: 'Sends a webhook.ping event to this endpoint now (whatever its event types) and returns its delivery',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => pingEndpoint(ctx.db, ctx.merchantId, String(args.id)),
  }),
  redeliver_webhook: t.field({
    subGraphs: ['admin'],
    type: WebhookDeliveryRef,
    description: 'Sends a delivery again: the same event id and body. 409 conflict while it is still queued.',
    args: { delivery_id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => redeliver(ctx.db, ctx.merchantId, String(args.delivery_id)),
  }),
}));
