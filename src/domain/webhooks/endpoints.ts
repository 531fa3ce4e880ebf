// Webhook endpoints of a merchant (admin API and CLI): register (the signing secret is shown
// once), update, enable/disable, rotate the secret, delete, list. A URL must pass the SSRF
// guard (url-guard.ts).
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import type { WebhookEndpoint } from '../../generated/prisma/client.js';
import { validationError } from '../shared/errors.js';
import { rowKey } from '../shared/keys.js';
import { fieldMapping } from '../shared/model-fields.js';
import { findOwn, mergePatch } from '../shared/records.js';
import { parseInput } from '../shared/validation.js';
import { webhookEventTypes } from './event-types.js';
import { newWebhookSecret } from './signature.js';
import { checkWebhookUrl } from './url-guard.js';

const MAX_ENDPOINTS = 20;

const endpointInput = z.object({
  url: z.string().trim().min(1, 'is required').max(2000, 'must be at most 2000 characters'),
  description: z.string().trim().max(500, 'must be at most 500 characters').nullish(),
  event_types: z
    .array(z.enum(webhookEventTypes, { message: `must be among ${webhookEventTypes.join(', ')}` }))
    .max(webhookEventTypes.length)
    .nullish(),
  enabled: z.boolean().nullish(),
});
const endpointFields = fieldMapping(endpointInput);

/** As clients send it (validated here): event_types are checked against the known types. */
export interface CreateEndpointInput {
  url: string;
  description?: string | null;
  event_types?: string[] | null;
  enabled?: boolean | null;
}
export type UpdateEndpointInput = Partial<CreateEndpointInput>;

type Secrets = Pick<WebhookEndpoint, 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>;

/** The secrets a delivery is signed with at `now`, newest first: the rotated-out one until its overlap ends. */
export function signingSecrets(e: Secrets, now: Date): string[] {
  return e.previousSecret && e.previousSecretExpiresAt && e.previousSecretExpiresAt > now ? [e.secret, e.previousSecret] : [e.secret];
}

/** Until when the secret the last rotation replaced still signs; null once only the current one does. */
export const replacedSecretSignsUntil = (e: Secrets, now = new Date()) =>
  signingSecrets(e, now).length > 1 ? e.previousSecretExpiresAt : null;

async function safeUrl(url: string, allowPrivate: boolean) {
  const problem = await checkWebhookUrl(url, allowPrivate);
  if (problem) throw validationError({ url: [problem] });
  return url;
}

const uniqueTypes = (types: readonly string[] | null | undefined) => [...new Set(types ?? [])];

/** An endpoint's row for a validated input: no event types is every type; enabled unless it says not. */
const endpointRow = (input: z.output<typeof endpointInput>) => ({
  ...endpointFields.data(input),
  eventTypes: uniqueTypes(input.event_types),
  enabled: input.enabled ?? true,
});

/** A new endpoint; its `secret` is shown this once (CreatedWebhookEndpoint). */
export async function createEndpoint(db: Db, merchantId: string, raw: CreateEndpointInput, allowPrivate: boolean) {
  const input = parseInput(endpointInput, raw);
  const url = await safeUrl(input.url, allowPrivate);
  if ((await db.webhookEndpoint.count({ where: { merchantId } })) >= MAX_ENDPOINTS) {
    throw validationError({ url: [`a merchant has at most ${MAX_ENDPOINTS} webhook endpoints`] });
  }
  return db.webhookEndpoint.create({ data: { merchantId, ...endpointRow(input), url, secret: newWebhookSecret() } });
}

function findEndpoint(db: Db, merchantId: string, id: string) {
  return findOwn('Webhook endpoint', id, (id) => db.webhookEndpoint.findFirst({ where: { id, merchantId } }));
}

/**
 * Changes what is given (a field given as undefined is not given; enabled: null keeps it as it
 * is); a URL given is checked again. Enabling clears the reason it was disabled and its failure
 * streak.
 */
export async function updateEndpoint(db: Db, merchantId: string, id: string, raw: UpdateEndpointInput, allowPrivate: boolean) {
  const endpoint = await findEndpoint(db, merchantId, id);
  const patch = Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined));
  const input = mergePatch(endpointInput, endpointFields.input(endpoint), patch);
  const enabled = input.enabled ?? endpoint.enabled;
  return db.webhookEndpoint.update({
    where: rowKey(merchantId, endpoint.id),
    data: {
      ...endpointRow(input),
      url: patch.url === undefined ? endpoint.url : await safeUrl(input.url, allowPrivate),
      enabled,
      ...(enabled && !endpoint.enabled ? { disabledReason: null, disabledAt: null, failingSince: null } : {}),
      ...(!enabled && endpoint.enabled ? { disabledReason: null, disabledAt: new Date() } : {}),
    },
  });
}

export async function deleteEndpoint(db: Db, merchantId: string, id: string) {
  const endpoint = await findEndpoint(db, merchantId, id);
  await db.webhookEndpoint.delete({ where: rowKey(merchantId, endpoint.id) });
  return endpoint;
}

export function listEndpoints(db: Db, merchantId: string) {
  return db.webhookEndpoint.findMany({ where: { merchantId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
}

export { findEndpoint };

/** A rotation's overlap: how long the replaced secret keeps signing, in hours. */
export const ROTATION_OVERLAP = { defaultHours: 24, maxHours: 168 } as const;

const rotateInput = z.object({
  overlap_hours: z
    .int('must be a whole number of hours')
    .min(0, 'must be 0 or more')
    .max(ROTATION_OVERLAP.maxHours, `must be at most ${ROTATION_OVERLAP.maxHours} (7 days)`)
    .nullish(),
});

/**
 * Gives the endpoint a new secret (in this answer only). For `overlap_hours` (default 24, 0 to
 * 168) every delivery is signed with the new and the replaced secret, so the receiver can
 * switch at its own pace; then only the new one signs. Rotating again within an overlap
 * replaces the secret in use: the one before it stops signing at once.
 */
export async function rotateSecret(db: Db, merchantId: string, id: string, raw: { overlap_hours?: number | null }, now = new Date()) {
  const input = parseInput(rotateInput, raw);
  const endpoint = await findEndpoint(db, merchantId, id);
  const hours = input.overlap_hours ?? ROTATION_OVERLAP.defaultHours;
  const secret = newWebhookSecret();
  return db.webhookEndpoint.update({
    where: rowKey(merchantId, endpoint.id),
    data: {
      secret,
      previousSecret: hours > 0 ? endpoint.secret : null,
      previousSecretExpiresAt: hours > 0 ? new Date(now.getTime() + hours * 3_600_000) : null,
    },
  });
}
