// The SQL every event type's emitter calls: the ISO timestamp, a customer as events name it
// (expiry.ts calls it too), the delivered body and the one-row emit. Created before any event
// type's SQL (event-sql.ts).
import type { EventSql } from './event.js';

export const sharedSql: EventSql = {
  functions: [
    `CREATE OR REPLACE FUNCTION public.loyalty_iso(ts timestamp with time zone)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$function$`,
    `CREATE OR REPLACE FUNCTION public.loyalty_customer_ref(merchant uuid, customer uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
AS $function$
BEGIN
  RETURN (SELECT jsonb_build_object('id', c.id, 'customer_id', c.platform_id, 'email', c.email)
            FROM customers c WHERE c.merchant_id = merchant AND c.id = customer);
END $function$`,
    `CREATE OR REPLACE FUNCTION public.loyalty_event_body(event_id uuid, event_type text, at timestamp with time zone, merchant uuid, data jsonb)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT jsonb_build_object('id', event_id, 'type', event_type, 'version', 1, 'created_at', loyalty_iso(at),
                            'merchant_id', merchant, 'data', data)::text
$function$`,
    `CREATE OR REPLACE FUNCTION public.loyalty_emit_event(merchant uuid, event_type text, data jsonb, dedupe text DEFAULT NULL::text)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  event_id uuid := gen_random_uuid();
BEGIN
  INSERT INTO events (id, merchant_id, type, payload, body, dedupe_key, created_at)
  VALUES (event_id, merchant, event_type, data, loyalty_event_body(event_id, event_type, now(), merchant, data), dedupe, now())
  ON CONFLICT (merchant_id, dedupe_key) DO NOTHING;
END $function$`,
  ],
  triggers: [],
};
