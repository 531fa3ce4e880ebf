// points.credited: a ledger row that adds points. Its SQL is also points.debited's (the type is
// the sign of the row): loyalty_points_event_type and loyalty_points_event_data build the event,
// called by the ledger function loyalty_apply_points for the rows it writes itself (migration
// ledger_posts_itself) and by the statement trigger points_transactions_outbox for every other
// writer's rows (redemptions, clawbacks, imports), which also writes points.expired beside an
// expiry's debit (points-expired.ts). The trigger reads its transition rows per merchant into
// jsonb first: a transition table cannot be joined with a table on a Citus shard.
import { z } from 'zod';
import { TransactionSource, TransactionType } from '../../../generated/prisma/enums.js';
import { customerRef, eventType, id, timestamp, values } from './event.js';

/** The `data` of points.credited and points.debited. */
export const pointsChange = z.object({
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

export const pointsCredited = eventType({
  name: 'points.credited',
  when: 'A ledger row adds points: manual, order, refund, referral, import',
  data: pointsChange,
  subscribable: true,
  emittedBy: 'loyalty_apply_points (the ledger) and the trigger points_transactions_outbox (other writers of points_transactions)',
  sql: {
    functions: [
      `CREATE OR REPLACE FUNCTION public.loyalty_points_event_type(points integer)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT CASE WHEN points >= 0 THEN 'points.credited' ELSE 'points.debited' END
$function$`,
      `CREATE OR REPLACE FUNCTION public.loyalty_points_event_data(transaction_id uuid, customer jsonb, points integer, type "TransactionType", description text, source "TransactionSource", balance_after integer, reference_kind text, reference_id text, placed_at timestamp with time zone, created_at timestamp with time zone)
 RETURNS jsonb
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT jsonb_build_object(
    'transaction_id', transaction_id, 'customer', customer, 'points', points, 'type', type,
    'description', description, 'source', source, 'balance_after', balance_after,
    'reference', CASE WHEN reference_kind IS NULL THEN NULL
                      ELSE jsonb_build_object('kind', reference_kind, 'id', reference_id) END,
    'placed_at', loyalty_iso(placed_at), 'created_at', loyalty_iso(created_at))
$function$`,
      `CREATE OR REPLACE FUNCTION public.points_transactions_emit()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE m uuid; batch jsonb;
BEGIN
  IF NOT EXISTS (SELECT FROM new_rows WHERE NOT ledger_posted) THEN
    RETURN NULL;
  END IF;
  FOR m, batch IN SELECT merchant_id, jsonb_agg(to_jsonb(n)) FROM new_rows n WHERE NOT n.ledger_posted GROUP BY merchant_id LOOP
    WITH rows AS (
      SELECT n.*, jsonb_build_object('id', c.id, 'customer_id', c.platform_id, 'email', c.email) AS customer
        FROM jsonb_populate_recordset(NULL::points_transactions, batch) n
        JOIN customers c ON c.merchant_id = m AND c.id = n.customer_id
    ), emitted AS (
      SELECT merchant_id, loyalty_points_event_type(points) AS type,
             loyalty_points_event_data(id, customer, points, type, description, source, balance_after,
                                       reference_kind, reference_id, placed_at, created_at) AS data,
             0 AS rank, created_at, id AS row_id
        FROM rows
      UNION ALL
      SELECT merchant_id, 'points.expired', loyalty_points_expired_data(id, customer, points, balance_after, created_at),
             1, created_at, id
        FROM rows WHERE source = 'expiry' AND points < 0
    ), identified AS (
      SELECT gen_random_uuid() AS id, * FROM emitted
    )
    INSERT INTO events (id, merchant_id, type, payload, body, created_at)
    SELECT id, merchant_id, type, data, loyalty_event_body(id, type, now(), merchant_id, data), now()
      FROM identified ORDER BY created_at, row_id, rank;
  END LOOP;
  RETURN NULL;
END $function$`,
    ],
    triggers: [
      `CREATE TRIGGER points_transactions_outbox AFTER INSERT ON public.points_transactions REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION points_transactions_emit()`,
    ],
  },
});
