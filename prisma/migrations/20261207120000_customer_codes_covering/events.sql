-- The SQL of the webhook event types as this migration leaves the database, made from
-- src/domain/webhooks/events/ by `npm run db:migration`, which compares the next one with it.

-- event: shared
CREATE OR REPLACE FUNCTION public.loyalty_iso(ts timestamp with time zone)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$function$;

CREATE OR REPLACE FUNCTION public.loyalty_customer_ref(merchant uuid, customer uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
AS $function$
BEGIN
  RETURN (SELECT jsonb_build_object('id', c.id, 'customer_id', c.platform_id, 'email', c.email)
            FROM customers c WHERE c.merchant_id = merchant AND c.id = customer);
END $function$;

CREATE OR REPLACE FUNCTION public.loyalty_event_body(event_id uuid, event_type text, at timestamp with time zone, merchant uuid, data jsonb)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT jsonb_build_object('id', event_id, 'type', event_type, 'version', 1, 'created_at', loyalty_iso(at),
                            'merchant_id', merchant, 'data', data)::text
$function$;

CREATE OR REPLACE FUNCTION public.loyalty_emit_event(merchant uuid, event_type text, data jsonb, dedupe text DEFAULT NULL::text)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  event_id uuid := gen_random_uuid();
BEGIN
  INSERT INTO events (id, merchant_id, type, payload, body, dedupe_key, created_at)
  VALUES (event_id, merchant, event_type, data, loyalty_event_body(event_id, event_type, now(), merchant, data), dedupe, now())
  ON CONFLICT (merchant_id, dedupe_key) DO NOTHING;
END $function$;

-- event: points.credited
CREATE OR REPLACE FUNCTION public.loyalty_points_event_type(points integer)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT CASE WHEN points >= 0 THEN 'points.credited' ELSE 'points.debited' END
$function$;

CREATE OR REPLACE FUNCTION public.loyalty_points_event_data(transaction_id uuid, customer jsonb, points integer, type "TransactionType", description text, source "TransactionSource", balance_after integer, reference_kind text, reference_id text, placed_at timestamp with time zone, created_at timestamp with time zone)
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
$function$;

CREATE OR REPLACE FUNCTION public.points_transactions_emit()
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
END $function$;

CREATE TRIGGER points_transactions_outbox AFTER INSERT ON public.points_transactions REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION points_transactions_emit();

-- event: points.expired
CREATE OR REPLACE FUNCTION public.loyalty_points_expired_data(transaction_id uuid, customer jsonb, points integer, balance_after integer, created_at timestamp with time zone)
 RETURNS jsonb
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT jsonb_build_object('transaction_id', transaction_id, 'customer', customer, 'points', -points,
                            'balance_after', balance_after, 'expired_at', loyalty_iso(created_at))
$function$;

-- event: reward.redeemed
CREATE OR REPLACE FUNCTION public.customer_rewards_emit()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM loyalty_emit_event(NEW.merchant_id, 'reward.redeemed', jsonb_build_object(
    'id', NEW.id, 'customer', loyalty_customer_ref(NEW.merchant_id, NEW.customer_id),
    'reward', (SELECT jsonb_build_object('id', r.id, 'name', r.name, 'reward_type', r.reward_type)
                 FROM rewards r WHERE r.merchant_id = NEW.merchant_id AND r.id = NEW.reward_id),
    'code', NEW.code, 'status', NEW.status, 'points_spent', NEW.points_spent,
    'issued_at', loyalty_iso(NEW.issued_at), 'expires_at', loyalty_iso(NEW.expires_at)));
  RETURN NULL;
END $function$;

CREATE TRIGGER customer_rewards_outbox AFTER INSERT ON public.customer_rewards FOR EACH ROW WHEN ((new.points_spent > 0)) EXECUTE FUNCTION customer_rewards_emit();

-- event: tier.changed
CREATE OR REPLACE FUNCTION public.tier_memberships_emit()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE m uuid; batch jsonb;
BEGIN
  FOR m, batch IN SELECT merchant_id, jsonb_agg(to_jsonb(n)) FROM new_rows n WHERE status = 'active' GROUP BY merchant_id LOOP
    WITH changed AS (
      SELECT gen_random_uuid() AS event_id, n.merchant_id, n.id AS row_id, n.started_at, jsonb_build_object(
               'membership_id', n.id,
               'customer', jsonb_build_object('id', c.id, 'customer_id', c.platform_id, 'email', c.email),
               'tier', jsonb_build_object('id', t.id, 'name', t.name),
               'previous_tier', (SELECT jsonb_build_object('id', pt.id, 'name', pt.name)
                                   FROM tier_memberships pm JOIN tiers pt ON pt.merchant_id = pm.merchant_id AND pt.id = pm.tier_id
                                  WHERE pm.merchant_id = m AND pm.customer_id = n.customer_id
                                    AND pm.id <> n.id AND pm.ended_at IS NOT NULL
                                  ORDER BY pm.started_at DESC LIMIT 1),
               'source', n.source, 'started_at', loyalty_iso(n.started_at), 'expires_at', loyalty_iso(n.expires_at)) AS data
        FROM jsonb_populate_recordset(NULL::tier_memberships, batch) n
        JOIN customers c ON c.merchant_id = m AND c.id = n.customer_id
        JOIN tiers t ON t.merchant_id = m AND t.id = n.tier_id
    )
    INSERT INTO events (id, merchant_id, type, payload, body, created_at)
    SELECT event_id, merchant_id, 'tier.changed', data,
           loyalty_event_body(event_id, 'tier.changed', now(), merchant_id, data), now()
      FROM changed ORDER BY started_at, row_id;
  END LOOP;
  RETURN NULL;
END $function$;

CREATE TRIGGER tier_memberships_outbox AFTER INSERT ON public.tier_memberships REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tier_memberships_emit();

-- event: referral.completed
CREATE OR REPLACE FUNCTION public.referrals_emit()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM loyalty_emit_event(NEW.merchant_id, 'referral.completed', jsonb_build_object(
    'id', NEW.id, 'referrer', loyalty_customer_ref(NEW.merchant_id, NEW.referrer_id),
    'referee', loyalty_customer_ref(NEW.merchant_id, NEW.referee_id), 'referee_email', NEW.referee_email,
    'referrer_points', NEW.referrer_points, 'order_id', NEW.order_id,
    'created_at', loyalty_iso(NEW.created_at), 'completed_at', loyalty_iso(NEW.completed_at)));
  RETURN NULL;
END $function$;

CREATE TRIGGER referrals_outbox AFTER UPDATE OF status ON public.referrals FOR EACH ROW WHEN (((new.status = 'completed'::"ReferralStatus") AND (old.status IS DISTINCT FROM 'completed'::"ReferralStatus"))) EXECUTE FUNCTION referrals_emit();

-- event: referral.flagged
CREATE OR REPLACE FUNCTION public.referrals_emit_flagged()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM loyalty_emit_event(NEW.merchant_id, 'referral.flagged', jsonb_build_object(
    'id', NEW.id, 'referrer', loyalty_customer_ref(NEW.merchant_id, NEW.referrer_id),
    'referee', loyalty_customer_ref(NEW.merchant_id, NEW.referee_id), 'referee_email', NEW.referee_email,
    'order_id', NEW.order_id, 'signals', NEW.signals,
    'created_at', loyalty_iso(NEW.created_at), 'flagged_at', loyalty_iso(NEW.held_at)));
  RETURN NULL;
END $function$;

CREATE TRIGGER referrals_flagged_outbox AFTER INSERT ON public.referrals FOR EACH ROW WHEN ((new.status = 'held'::"ReferralStatus")) EXECUTE FUNCTION referrals_emit_flagged();

CREATE TRIGGER referrals_held_outbox AFTER UPDATE OF status ON public.referrals FOR EACH ROW WHEN (((new.status = 'held'::"ReferralStatus") AND (old.status IS DISTINCT FROM 'held'::"ReferralStatus"))) EXECUTE FUNCTION referrals_emit_flagged();

-- event: customer.created
CREATE OR REPLACE FUNCTION public.customers_emit()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE m uuid; batch jsonb;
BEGIN
  FOR m, batch IN SELECT merchant_id, jsonb_agg(to_jsonb(n)) FROM new_rows n GROUP BY merchant_id LOOP
    WITH created AS (
      SELECT gen_random_uuid() AS event_id, merchant_id, id AS row_id, jsonb_build_object(
               'id', id, 'customer_id', platform_id, 'email', email,
               'first_name', first_name, 'last_name', last_name, 'status', status,
               'birthday', to_char(birthday, 'YYYY-MM-DD'), 'referral_code', referral_code,
               'created_at', loyalty_iso(created_at)) AS data, created_at
        FROM jsonb_populate_recordset(NULL::customers, batch)
    )
    INSERT INTO events (id, merchant_id, type, payload, body, created_at)
    SELECT event_id, merchant_id, 'customer.created', data,
           loyalty_event_body(event_id, 'customer.created', now(), merchant_id, data), now()
      FROM created ORDER BY created_at, row_id;
  END LOOP;
  RETURN NULL;
END $function$;

CREATE TRIGGER customers_outbox AFTER INSERT ON public.customers REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION customers_emit();

-- event: customer.updated
CREATE OR REPLACE FUNCTION public.customers_emit_updated()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM loyalty_emit_event(NEW.merchant_id, 'customer.updated', jsonb_build_object(
    'id', NEW.id, 'customer_id', NEW.platform_id, 'email', NEW.email,
    'first_name', NEW.first_name, 'last_name', NEW.last_name, 'status', NEW.status,
    'birthday', to_char(NEW.birthday, 'YYYY-MM-DD'), 'referral_code', NEW.referral_code,
    'changed', to_jsonb(array_remove(ARRAY[
      CASE WHEN NEW.platform_id IS DISTINCT FROM OLD.platform_id THEN 'customer_id' END,
      CASE WHEN NEW.email IS DISTINCT FROM OLD.email THEN 'email' END,
      CASE WHEN NEW.first_name IS DISTINCT FROM OLD.first_name THEN 'first_name' END,
      CASE WHEN NEW.last_name IS DISTINCT FROM OLD.last_name THEN 'last_name' END,
      CASE WHEN NEW.status IS DISTINCT FROM OLD.status THEN 'status' END,
      CASE WHEN NEW.birthday IS DISTINCT FROM OLD.birthday THEN 'birthday' END,
      CASE WHEN NEW.referral_code IS DISTINCT FROM OLD.referral_code THEN 'referral_code' END
    ], NULL))));
  RETURN NULL;
END $function$;

CREATE TRIGGER customers_updated_outbox AFTER UPDATE ON public.customers FOR EACH ROW WHEN (((new.erased_at IS NULL) AND ((old.platform_id IS DISTINCT FROM new.platform_id) OR (old.email IS DISTINCT FROM new.email) OR (old.first_name IS DISTINCT FROM new.first_name) OR (old.last_name IS DISTINCT FROM new.last_name) OR (old.status IS DISTINCT FROM new.status) OR (old.birthday IS DISTINCT FROM new.birthday) OR (old.referral_code IS DISTINCT FROM new.referral_code)))) EXECUTE FUNCTION customers_emit_updated();

-- event: customer.erased
CREATE OR REPLACE FUNCTION public.customers_emit_erased()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM loyalty_emit_event(NEW.merchant_id, 'customer.erased', jsonb_build_object(
    'id', NEW.id, 'erased_at', loyalty_iso(NEW.erased_at)));
  RETURN NULL;
END $function$;

CREATE TRIGGER customers_erased_outbox AFTER UPDATE OF erased_at ON public.customers FOR EACH ROW WHEN (((old.erased_at IS NULL) AND (new.erased_at IS NOT NULL))) EXECUTE FUNCTION customers_emit_erased();
