// The events feed: a merchant's webhook events read back from the outbox (`events`), so that an
// integrator can catch up on what it missed (an endpoint disabled or down, a lost delivery) and
// reconcile. Each event is shown with the `data` of the body its deliveries send, byte for byte
// the same JSON. Newest first, ties by id; paged by page number or after an event (a keyset, so
// events written meanwhile never shift the rows that follow). Events stay readable for
// WEBHOOK_EVENT_RETENTION_DAYS (at least 30): pruneEvents (deliveries.ts) forgets only older
// dispatched events, never one whose delivery is pending.
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { rowsOf } from '../../db/sql.js';
import { Prisma } from '../../generated/prisma/client.js';
import { validationError } from '../shared/errors.js';
import { type Connection, type CursorArgs, MAX_PER_PAGE, type PageArgs, type Paginated, pageRows } from '../shared/pagination.js';
import { isUuid } from '../shared/records.js';
import { parseInput } from '../shared/validation.js';
import { eventTypeNames } from './event-types.js';

export interface FeedFilters {
  /** Event types; an entry may list several, comma-separated (`points.credited,points.debited`). */
  types?: readonly string[] | null;
  /** The internal id of the customer the events are about (the caller resolves how its face names customers). */
  customerId?: string | null;
  /** created_after <= created_at < created_before. */
  createdAfter?: Date | null;
  createdBefore?: Date | null;
  /**
   * false: events not yet dispatched, or with a delivery that has not succeeded (pending, failed,
   * cancelled); true: dispatched events with deliveries, all succeeded. Events no endpoint was
   * sent (none subscribed or enabled) match neither.
   */
  deliverySuccess?: boolean | null;
}

export interface FeedEvent {
  id: string;
  type: string;
  created_at: Date;
  /** The body's `version`; 1 for a body written before bodies carried one (webhooks.md: read them as 1). */
  version: number;
  /** The body's `data`. */
  data: unknown;
}

export interface EventDelivery {
  id: string;
  event_id: string;
  endpoint_id: string;
  status: string;
  attempts: number;
  last_status: number | null;
  last_attempt_at: Date | null;
  delivered_at: Date | null;
}

const MAX_TYPES = 50;

const filtersSchema = z
  .object({
    types: z
      .array(z.string())
      .max(MAX_TYPES, `at most ${MAX_TYPES} types`)
      .transform((types) => [...new Set(types.flatMap((t) => t.split(',')))])
      .superRefine((types, ctx) => {
        for (const type of types) {
          if (!(eventTypeNames as readonly string[]).includes(type)) {
            ctx.addIssue({ code: 'custom', message: `unknown event type "${type}" (types: ${eventTypeNames.join(', ')})` });
          }
        }
      })
      .optional(),
    created_after: z.date().optional(),
    created_before: z.date().optional(),
  })
  .refine((f) => !f.created_after || !f.created_before || f.created_after <= f.created_before, {
    path: ['created_before'],
    message: 'must not be earlier than created_after',
  });

/** The statement's condition on events `e` of the merchant for these filters (422 for bad ones). */
function feedWhere(merchantId: string, filters: FeedFilters): Prisma.Sql {
  const f = parseInput(filtersSchema, {
    types: filters.types ?? undefined,
    created_after: filters.createdAfter ?? undefined,
    created_before: filters.createdBefore ?? undefined,
  });
  const merchant = Prisma.sql`${merchantId}::uuid`;
  const conditions = [Prisma.sql`e.merchant_id = ${merchant}`];
  if (f.types?.length) conditions.push(Prisma.sql`e.type = ANY(${f.types}::text[])`);
  if (f.created_after) conditions.push(Prisma.sql`e.created_at >= ${f.created_after}`);
  if (f.created_before) conditions.push(Prisma.sql`e.created_at < ${f.created_before}`);
  if (filters.customerId) {
    // every place an event's data names a customer by internal id (the events' `customer`
    // reference; a referral's two; the customer events' own record)
    const id = filters.customerId;
    conditions.push(Prisma.sql`(e.payload #>> '{customer,id}' = ${id} OR e.payload #>> '{referrer,id}' = ${id}
      OR e.payload #>> '{referee,id}' = ${id} OR (e.type LIKE 'customer.%' AND e.payload ->> 'id' = ${id}))`);
  }
  if (filters.deliverySuccess != null) {
    const unsuccessful = Prisma.sql`EXISTS (SELECT 1 FROM webhook_deliveries d
      WHERE d.merchant_id = ${merchant} AND d.event_id = e.id AND d.status <> 'succeeded')`;
    conditions.push(
      filters.deliverySuccess
        ? Prisma.sql`e.dispatched_at IS NOT NULL AND NOT ${unsuccessful}
            AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.merchant_id = ${merchant} AND d.event_id = e.id)`
        : Prisma.sql`(e.dispatched_at IS NULL OR ${unsuccessful})`,
    );
  }
  return Prisma.join(conditions, ' AND ');
}

const columns = Prisma.sql`e.id::text AS id, e.type, e.body, e.created_at AS "createdAt"`;
const newestFirst = Prisma.sql`e.created_at DESC, e.id DESC`;

interface Row {
  id: string;
  type: string;
  body: string;
  createdAt: Date;
}

function feedEvent(row: Row): FeedEvent {
  const body = JSON.parse(row.body) as { data?: unknown; version?: unknown; created_at?: unknown };
  return {
    id: row.id,
    type: row.type,
    // as delivered: on a cluster the row's own time may differ from the body's by a millisecond
    created_at: typeof body.created_at === 'string' ? new Date(body.created_at) : row.createdAt,
    version: typeof body.version === 'number' ? body.version : 1,
    data: body.data ?? null,
  };
}

/** The rows older than (created_at, id) in the feed's order. */
const olderThan = (at: Date, id: string) => Prisma.sql`(e.created_at, e.id) < (${at}::timestamptz, ${id}::uuid)`;

/**
 * A page of the merchant's events, newest first. `starting_after` (an event id, e.g. the last
 * of the previous page) makes the list the events older than that one: paging on by it never
 * repeats or skips an event, however many are written meanwhile.
 */
export async function listEvents(
  db: Db,
  merchantId: string,
  filters: FeedFilters,
  args: PageArgs & { starting_after?: string | null },
): Promise<Paginated<FeedEvent>> {
  let where = feedWhere(merchantId, filters);
  if (args.starting_after != null) {
    const [from] = isUuid(args.starting_after)
      ? await rowsOf<{ createdAt: Date }>(
          db,
          Prisma.sql`SELECT created_at AS "createdAt" FROM events WHERE merchant_id = ${merchantId}::uuid AND id = ${args.starting_after}::uuid`,
        )
      : [];
    if (!from) {
      throw validationError({ starting_after: ['names no event of this merchant (unknown, or older than the retention period)'] });
    }
    where = Prisma.sql`${where} AND ${olderThan(from.createdAt, args.starting_after)}`;
  }
  const page = await pageRows<Row>(db, args, { columns, from: Prisma.sql`events e`, where, order: newestFirst });
  return { ...page, data: page.data.map(feedEvent) };
}

// A connection's cursor holds the position itself (time and id), so it stays valid after its
// event is pruned.
const cursorOf = (row: Row) => Buffer.from(`event:${row.createdAt.toISOString()}|${row.id}`).toString('base64url');

const cursorSchema = z.object({
  first: z
    .number()
    .int()
    .min(1, `must be between 1 and ${MAX_PER_PAGE}`)
    .max(MAX_PER_PAGE, `must be between 1 and ${MAX_PER_PAGE}`)
    .default(20),
  after: z
    .string()
    .transform((s) => {
      const [, at, id] = /^event:([^|]+)\|([0-9a-f-]{36})$/.exec(Buffer.from(s, 'base64url').toString()) ?? [];
      const time = new Date(at ?? '');
      return at && id && isUuid(id) && !Number.isNaN(time.getTime()) ? { at: time, id } : undefined;
    })
    .refine((c) => c !== undefined, 'is not a cursor of this list')
    .optional(),
});

/** The merchant's events after a cursor, newest first, as a Relay connection (`total`: the whole filtered feed). */
export async function eventConnection(db: Db, merchantId: string, filters: FeedFilters, args: CursorArgs): Promise<Connection<FeedEvent>> {
  const { first, after } = parseInput(cursorSchema, { first: args.first ?? undefined, after: args.after ?? undefined });
  const where = feedWhere(merchantId, filters);
  const windowed = after ? Prisma.sql`${where} AND ${olderThan(after.at, after.id)}` : where;
  // one more row than asked says whether there is a next page; the total beside it, one statement
  const found = await rowsOf<Row & { _total: number }>(
    db,
    Prisma.sql`
      SELECT t._total, p.* FROM (SELECT count(*)::int AS _total FROM events e WHERE ${where}) t
        LEFT JOIN LATERAL (SELECT ${columns} FROM events e WHERE ${windowed} ORDER BY ${newestFirst} LIMIT ${first + 1}) p ON true
       ORDER BY p."createdAt" DESC, p.id DESC`,
  );
  const rows = found.filter((r) => r.id != null);
  const edges = rows.slice(0, first).map((row) => ({ cursor: cursorOf(row), node: feedEvent(row) }));
  return {
    edges,
    pageInfo: { hasNextPage: rows.length > first, endCursor: edges.at(-1)?.cursor ?? null },
    total: found[0]?._total ?? 0,
  };
}

/** The deliveries of these events of the merchant, oldest first, by event id. */
export async function deliveriesOf(db: Db, merchantId: string, eventIds: readonly string[]): Promise<Map<string, EventDelivery[]>> {
  const byEvent = new Map<string, EventDelivery[]>(eventIds.map((id) => [id, []]));
  if (eventIds.length === 0) return byEvent;
  const rows = await rowsOf<EventDelivery>(
    db,
    Prisma.sql`SELECT id::text AS id, event_id::text AS event_id, endpoint_id::text AS endpoint_id, status::text AS status,
                      attempts, last_status, last_attempt_at, delivered_at
                 FROM webhook_deliveries
                WHERE merchant_id = ${merchantId}::uuid AND event_id = ANY(${[...eventIds]}::uuid[])
                ORDER BY created_at, id`,
  );
  for (const row of rows) byEvent.get(row.event_id)?.push(row);
  return byEvent;
}
