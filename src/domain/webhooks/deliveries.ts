// Webhook deliveries: the dispatcher turns outbox events into one delivery per matching
// enabled endpoint and queues a job for each in the same transaction (so an event is never
// marked dispatched without its jobs); a job attempts its delivery (send.ts) and records the
// outcome; the merchant lists deliveries and redelivers one.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/client.js';
import type { Prisma, WebhookDeliveryStatus } from '../../generated/prisma/client.js';
import { eachInBatches, type Page } from '../shared/batches.js';
import { AppError, validationError } from '../shared/errors.js';
import { rowKey } from '../shared/keys.js';
import { newestFirst, type PageArgs, paginate } from '../shared/pagination.js';
import { findOwn, isUuid } from '../shared/records.js';
import { findEndpoint, signingSecrets } from './endpoints.js';
import { type Attempt, isSuccess, type WebhookRequest } from './send.js';

/** A pg connection (`pg.PoolClient`), for the dispatcher's transactions. */
export interface SqlClient {
  // biome-ignore lint/suspicious/noExplicitAny: pg's own row type; each statement names its columns
  query(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
}

/** A delivery and its merchant, as a job names them. */
export interface DeliveryKey {
  merchantId: string;
  deliveryId: string;
}

/** A delivery's job: `startAfter` when the receiver asked to be retried later (Retry-After). */
type DeliveryJob = DeliveryKey & { jobId: string; startAfter?: Date };

/** Queues one job per delivery on `client`, inside its open transaction. */
export type Enqueue = (jobs: DeliveryJob[], client: SqlClient) => Promise<void>;

export interface DispatchOptions {
  /** Merchants served per pass, the longest waiting first. */
  merchants?: number;
  /** Events fanned out per merchant and pass. */
  batch?: number;
  /** A merchant whose pass failed: the others go on. */
  onError?: (merchantId: string, err: unknown) => void;
}

/**
 * One dispatcher pass: finds the merchants with undispatched events or deliveries without a
 * job, then serves each in its own transaction (dispatchMerchant), so every statement that
 * locks or writes names one merchant (Citus runs it on that merchant's shard) and one
 * merchant's failure leaves the others dispatched. Returns what it did, and whether it stopped
 * at a limit (`more`: another pass now would find work).
 */
export async function dispatchOutbox(client: SqlClient, enqueue: Enqueue, { merchants = 50, batch = 200, onError }: DispatchOptions = {}) {
  // read-only, without locks, the oldest work first so a merchant's backlog starves none; deliveries
  // without a job too, as a redelivery has no undispatched event
  const waiting = await client.query(
    `SELECT merchant_id FROM (
       SELECT merchant_id, created_at FROM events WHERE dispatched_at IS NULL
       UNION ALL
       SELECT merchant_id, created_at FROM webhook_deliveries WHERE status = 'pending' AND job_id IS NULL
     ) w GROUP BY merchant_id ORDER BY min(created_at) LIMIT $1`,
    [merchants],
  );
  const done = { events: 0, queued: 0, more: waiting.rows.length >= merchants };
  for (const { merchant_id: merchantId } of waiting.rows as { merchant_id: string }[]) {
    try {
      const pass = await dispatchMerchant(client, enqueue, merchantId, batch);
      done.events += pass.events;
      done.queued += pass.queued;
      done.more ||= pass.more;
    } catch (err) {
      onError?.(merchantId, err);
    }
  }
  return done;
}

/**
 * One merchant's pass: fans up to `batch` of its undispatched events out to deliveries, then
 * queues every delivery of its that has no job yet (new ones, redeliveries). One transaction:
 * the events are dispatched, and the deliveries queued, together or not at all.
 */
async function dispatchMerchant(client: SqlClient, enqueue: Enqueue, merchantId: string, batch: number) {
  const deliveries = batch * 4; // deliveries queued per pass: an event may fan out to several endpoints
  await client.query('BEGIN');
  try {
    const fanned = await client.query(
      `WITH ev AS (
         SELECT id, type FROM events
          WHERE merchant_id = $1::uuid AND dispatched_at IS NULL ORDER BY created_at, id LIMIT $2 FOR UPDATE SKIP LOCKED
       ), fan AS (
         INSERT INTO webhook_deliveries (id, merchant_id, endpoint_id, event_id, updated_at)
         SELECT gen_random_uuid(), $1::uuid, e.id, ev.id, now()
           FROM ev JOIN webhook_endpoints e
             ON e.merchant_id = $1::uuid AND e.enabled
            AND (cardinality(e.event_types) = 0 OR ev.type = ANY(e.event_types))
         ON CONFLICT (merchant_id, endpoint_id, event_id) DO NOTHING
         RETURNING id
       ), done AS (
         UPDATE events SET dispatched_at = now() WHERE merchant_id = $1::uuid AND id IN (SELECT id FROM ev) RETURNING id
       )
       SELECT (SELECT count(*) FROM done)::int AS events`,
      [merchantId, batch],
    );
    const waiting = await client.query(
      `SELECT id, retry_at FROM webhook_deliveries WHERE merchant_id = $1::uuid AND status = 'pending' AND job_id IS NULL
        ORDER BY created_at, id LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [merchantId, deliveries],
    );
    const jobs: DeliveryJob[] = waiting.rows.map((r: { id: string; retry_at: Date | null }) => ({
      jobId: randomUUID(),
      merchantId,
      deliveryId: r.id,
      ...(r.retry_at ? { startAfter: r.retry_at } : {}),
    }));
    if (jobs.length) {
      await enqueue(jobs, client);
      await client.query(
        `UPDATE webhook_deliveries d SET job_id = j.job_id, updated_at = now()
           FROM unnest($2::uuid[], $3::text[]) AS j(id, job_id) WHERE d.merchant_id = $1::uuid AND d.id = j.id`,
        [merchantId, jobs.map((j) => j.deliveryId), jobs.map((j) => j.jobId)],
      );
    }
    await client.query('COMMIT');
    const events = Number(fanned.rows[0]?.events ?? 0);
    return { events, queued: jobs.length, more: events >= batch || jobs.length >= deliveries };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}

export interface AttemptOptions {
  send: (req: Omit<WebhookRequest, 'timeoutMs' | 'allowPrivate'>) => Promise<Attempt>;
  /** The queue job attempting it: a job the delivery no longer names (it was rescheduled or redelivered since) sends nothing. */
  jobId?: string;
  /** How long a delivery, and an endpoint, may keep failing (3 days). */
  windowMs: number;
  /** The queue has no retry left: this attempt is the last. */
  lastTry?: boolean;
  now?: () => Date;
}

/** 'rescheduled': failed, and a new job tries again when the receiver's Retry-After said. */
export type AttemptOutcome = 'succeeded' | 'retry' | 'rescheduled' | 'failed' | 'skipped';

/** The longest Retry-After honoured: a receiver cannot park a delivery for most of its window. */
export const RETRY_AFTER_MAX_SECONDS = 3600;

/**
 * When a 429 or 503 answer asks to be tried again (Retry-After: seconds, or an HTTP date), at
 * least a second and at most RETRY_AFTER_MAX_SECONDS from `now`; undefined: no usable header.
 */
function retryAfterTime(attempt: Attempt, now: Date): Date | undefined {
  if ((attempt.status !== 429 && attempt.status !== 503) || !attempt.retryAfter) return undefined;
  const value = attempt.retryAfter.trim();
  const ms = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - now.getTime();
  if (Number.isNaN(ms)) return undefined;
  return new Date(now.getTime() + Math.min(Math.max(ms, 1000), RETRY_AFTER_MAX_SECONDS * 1000));
}

/** The merchant of a delivery known by its id alone (undefined: none). */
export async function deliveryMerchant(db: Db, deliveryId: string) {
  return (await db.webhookDelivery.findFirst({ where: { id: deliveryId }, select: { merchantId: true } }))?.merchantId;
}

/** One attempt of a delivery job; 'retry' asks the queue to try again later (backoff). */
export async function attemptDelivery(db: Db, { merchantId, deliveryId }: DeliveryKey, opts: AttemptOptions): Promise<AttemptOutcome> {
  const delivery = await db.webhookDelivery.findUnique({
    where: rowKey(merchantId, deliveryId),
    include: { endpoint: true, event: { select: { id: true, type: true, body: true } } },
  });
  if (delivery?.status !== 'pending') return 'skipped';
  if (opts.jobId && delivery.jobId && delivery.jobId !== opts.jobId) return 'skipped';
  const { endpoint, event } = delivery;
  if (!endpoint.enabled) {
    await db.webhookDelivery.updateMany({
      where: { merchantId, id: delivery.id, status: 'pending' },
      data: { status: 'cancelled', lastResponse: 'not sent: the endpoint is disabled' },
    });
    return 'skipped';
  }
  const attempt = await opts.send({
    url: endpoint.url,
    secrets: signingSecrets(endpoint, opts.now?.() ?? new Date()),
    eventId: event.id,
    eventType: event.type,
    deliveryId: delivery.id,
    body: event.body,
  });
  const now = opts.now?.() ?? new Date();
  const recorded = {
    attempts: { increment: 1 },
    lastAttemptAt: now,
    lastStatus: attempt.status,
    lastResponse: attempt.response,
    retryAt: null,
  };
  if (isSuccess(attempt)) {
    await db.$transaction([
      db.webhookDelivery.update({ where: rowKey(merchantId, delivery.id), data: { ...recorded, status: 'succeeded', deliveredAt: now } }),
      db.webhookEndpoint.updateMany({ where: { merchantId, id: endpoint.id, failingSince: { not: null } }, data: { failingSince: null } }),
    ]);
    return 'succeeded';
  }
  if (attempt.status === 410) {
    // Gone: the receiver says the URL is no more; retrying it would only be refused again
    await db.$transaction([
      db.webhookDelivery.update({ where: rowKey(merchantId, delivery.id), data: { ...recorded, status: 'failed' } }),
      db.webhookEndpoint.updateMany({
        where: { merchantId, id: endpoint.id, enabled: true },
        data: {
          enabled: false,
          disabledAt: now,
          disabledReason: `Disabled at once: the endpoint answered 410 Gone at ${now.toISOString()}`,
        },
      }),
    ]);
    return 'failed';
  }
  const firstAttemptAt = delivery.firstAttemptAt ?? now;
  const failingSince = endpoint.failingSince ?? now;
  const expired = (since: Date) => now.getTime() - since.getTime() >= opts.windowMs;
  const giveUp = expired(firstAttemptAt) || opts.lastTry === true;
  const why = attempt.status === null ? attempt.response : `HTTP ${attempt.status}`;
  // a Retry-After is honoured by a new job that starts then (the dispatcher queues it), not by the queue's backoff
  const retryAt = giveUp ? undefined : retryAfterTime(attempt, now);
  const writes: Prisma.PrismaPromise<unknown>[] = [
    db.webhookDelivery.update({
      where: rowKey(merchantId, delivery.id),
      data: {
        ...recorded,
        firstAttemptAt,
        ...(giveUp ? { status: 'failed' as const } : {}),
        ...(retryAt ? { retryAt, jobId: null } : {}),
      },
    }),
    db.webhookEndpoint.updateMany({ where: { merchantId, id: endpoint.id, failingSince: null }, data: { failingSince: now } }),
  ];
  if (expired(failingSince)) {
    writes.push(
      db.webhookEndpoint.updateMany({
        where: { merchantId, id: endpoint.id, enabled: true },
        data: {
          enabled: false,
          disabledAt: now,
          disabledReason: `Disabled after failing since ${failingSince.toISOString()}; the last attempt: ${why}`.slice(0, 1000),
        },
      }),
    );
  }
  await db.$transaction(writes);
  return giveUp ? 'failed' : retryAt ? 'rescheduled' : 'retry';
}

/** A delivery as it is shown: with its event's type (the WebhookDelivery type's include). */
const withEventType = { event: { select: { type: true } } } as const;

export function listDeliveries(
  db: Db,
  merchantId: string,
  filter: { endpointId?: string | null; status?: WebhookDeliveryStatus | null },
  args: PageArgs,
) {
  if (filter.endpointId && !isUuid(filter.endpointId)) throw validationError({ endpoint_id: ['must be a uuid'] });
  const where = {
    merchantId,
    ...(filter.endpointId ? { endpointId: filter.endpointId } : {}),
    ...(filter.status ? { status: filter.status } : {}),
  };
  return paginate(
    args,
    (p) => db.webhookDelivery.findMany({ where, orderBy: newestFirst, include: withEventType, ...p }),
    () => db.webhookDelivery.count({ where }),
  );
}

/** Queues a delivery again (the dispatcher picks it up): the same event id, the same body. */
export async function redeliver(db: Db, merchantId: string, deliveryId: string) {
  const delivery = await findOwn('Webhook delivery', deliveryId, (id) =>
    db.webhookDelivery.findFirst({ where: { id, merchantId }, include: { endpoint: { select: { enabled: true } } } }),
  );
  if (!delivery.endpoint.enabled) throw validationError({ id: ['its endpoint is disabled: enable it first'] });
  const { count } = await db.webhookDelivery.updateMany({
    where: { merchantId, id: delivery.id, status: { not: 'pending' } },
    data: { status: 'pending', jobId: null, firstAttemptAt: null },
  });
  if (count === 0) throw new AppError('conflict', 'The delivery is already queued');
  return db.webhookDelivery.findUniqueOrThrow({ where: rowKey(merchantId, delivery.id), include: withEventType });
}

/**
 * Sends a `webhook.ping` to one endpoint now, through the outbox like every event: the event is
 * written already dispatched (so no other endpoint gets it, and this one whatever its event
 * types) together with its one delivery, which the dispatcher queues as it queues a redelivery.
 */
export async function pingEndpoint(db: Db, merchantId: string, endpointId: string) {
  const endpoint = await findEndpoint(db, merchantId, endpointId);
  if (!endpoint.enabled) throw validationError({ id: ['the endpoint is disabled: enable it first'] });
  const eventId = randomUUID();
  const deliveryId = randomUUID();
  const data = JSON.stringify({ endpoint_id: endpoint.id });
  await db.$transaction([
    db.$executeRaw`INSERT INTO events (id, merchant_id, type, payload, body, created_at, dispatched_at)
      VALUES (${eventId}::uuid, ${merchantId}::uuid, 'webhook.ping', ${data}::jsonb,
              loyalty_event_body(${eventId}::uuid, 'webhook.ping', now(), ${merchantId}::uuid, ${data}::jsonb), now(), now())`,
    db.webhookDelivery.create({ data: { id: deliveryId, merchantId, endpointId: endpoint.id, eventId } }),
  ]);
  return db.webhookDelivery.findUniqueOrThrow({ where: rowKey(merchantId, deliveryId), include: withEventType });
}

/** Merchants read per page by the prune's walk. */
const PRUNE_MERCHANT_BATCH = 500;

/**
 * Forgets events dispatched more than `days` ago (their deliveries with them), unless a
 * delivery of theirs is still pending. Merchant by merchant, as the calendar jobs walk them:
 * each DELETE names its merchant, so on a sharded cluster it runs on that merchant's shard
 * alone. Returns how many went.
 */
export async function pruneEvents(db: Db, days: number, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - days * 86_400_000);
  const merchants: Page<{ id: string }, string> = (after, take) =>
    db.merchant.findMany({ where: after ? { id: { gt: after } } : {}, orderBy: { id: 'asc' }, take, select: { id: true } });
  let pruned = 0;
  await eachInBatches({ size: PRUNE_MERCHANT_BATCH, page: merchants, keyOf: (m) => m.id }, async ({ id }) => {
    pruned += await db.$executeRaw`
      DELETE FROM events e
       WHERE e.merchant_id = ${id}::uuid
         AND e.dispatched_at < ${before}::timestamptz
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.merchant_id = e.merchant_id AND d.event_id = e.id AND d.status = 'pending')`;
  });
  return pruned;
}
