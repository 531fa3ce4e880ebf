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
import {
  type Connection,
  type CursorArgs,
  connectionFrom,
  cursorOf,
  foreignCursor,
  ownerTag,
  type PageArgs,
  type Paginated,
  pageRows,
  readCursors,
} from '../shared/pagination.js';
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
/** Event types, comma-separated, as a JSON Schema pattern (the API's documents state the rule from it). */
const typeList = (() => {
  const type = `(${eventTypeNames.map((t) => t.replace('.', '\\.')).join('|')})`;
  return `^${type}(,${type})*$`;
})();

/** The `types` filter: repeated, or comma-separated in one value, each an event type. */
export const typesRule = z.array(z.string().meta({ pattern: typeList })).max(MAX_TYPES, `at most ${MAX_TYPES} types`);

const filtersSchema = z.object({
  types: typesRule
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
  // a window that ends before it starts is valid and holds no event, as a page past the end is empty
  created_before: z.date().optional(),
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

// A feed cursor's position is the event's time and id, not a reference to its row: it stays
// valid after its event is pruned. It is bound to the merchant's feed, not to the filters: the
// same position in a differently filtered feed is still a position.
const eventCursor = (owner: string, row: Row) => cursorOf('events', owner, `${row.createdAt.toISOString()}|${row.id}`);

/** A position as eventCursor writes it: a time outside years 1000 to 9999 (which PostgreSQL may not hold) is none. */
function eventPosition(text: string) {
  const [, at, id] = /^([1-9]\d{3}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)\|([0-9a-f-]{36})$/.exec(text) ?? [];
  const time = new Date(at ?? '');
  return id && isUuid(id) && !Number.isNaN(time.getTime()) && time.toISOString() === at ? { at: time, id } : undefined;
}

/** The position's row comparison with the events `e`: `<` older, `>` newer. */
const position = (op: '<' | '>' | '<=' | '>=', p: { at: Date; id: string }) =>
  Prisma.sql`(e.created_at, e.id) ${Prisma.raw(op)} (${p.at}::timestamptz, ${p.id}::uuid)`;

/**
 * A window of the merchant's events, newest first, as a Relay connection (`first`/`after` down
 * the feed, `last`/`before` up it; `total`: the whole filtered feed), in one statement.
 */
export async function eventConnection(db: Db, merchantId: string, filters: FeedFilters, args: CursorArgs): Promise<Connection<FeedEvent>> {
  const window = readCursors(args, 'events', eventPosition);
  const owner = ownerTag(merchantId, merchantId);
  const foreign = foreignCursor(window, owner, 'merchant');
  if (foreign) throw foreign;
  const { after, before, backward } = window;
  const where = feedWhere(merchantId, filters);
  const conditions = [where];
  if (after) conditions.push(position('<', after.position));
  if (before) conditions.push(position('>', before.position));
  // whether the feed has events at or past the cursor the window starts from (pageInfo's other side)
  const from = backward ? before && position('<=', before.position) : after && position('>=', after.position);
  const behind = from ? Prisma.sql`EXISTS (SELECT 1 FROM events e WHERE ${where} AND ${from})` : Prisma.sql`false`;
  const order = backward ? Prisma.sql`e.created_at, e.id` : newestFirst;
  // one more row than asked says whether there is more on the side read towards
  const found = await rowsOf<Row & { _total: number; _behind: boolean }>(
    db,
    Prisma.sql`
      SELECT t._total, t._behind, p.* FROM (SELECT count(*)::int AS _total, ${behind} AS _behind FROM events e WHERE ${where}) t
        LEFT JOIN LATERAL (
          SELECT ${columns}, row_number() OVER (ORDER BY ${order}) AS _n
            FROM events e WHERE ${Prisma.join(conditions, ' AND ')} ORDER BY ${order} LIMIT ${window.size + 1}
        ) p ON true
       ORDER BY p._n`,
  );
  return connectionFrom(
    window,
    found.filter((r) => r.id != null),
    found[0]?._behind ?? false,
    (row) => ({ cursor: eventCursor(owner, row), node: feedEvent(row) }),
    found[0]?._total ?? 0,
  );
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
