-- The outbox triggers of the ledger, customers and tier memberships run once per statement over
-- its new rows (a transition table) instead of once per row: an import writes thousands of rows
-- in one statement, and 10,000 customers took twice as long with per-row triggers (whose
-- previous-tier lookup also missed the merchant's index). Same events, same bodies.
-- The delivered body: {"id","type","created_at","merchant_id","data"}, written once.
CREATE FUNCTION "loyalty_event_body"(event_id uuid, event_type text, at timestamptz, merchant uuid, data jsonb)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object('id', event_id, 'type', event_type, 'created_at', loyalty_iso(at),
                            'merchant_id', merchant, 'data', data)::text
$$;

CREATE OR REPLACE FUNCTION "loyalty_emit_event"(merchant uuid, event_type text, data jsonb, dedupe text DEFAULT NULL)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  event_id uuid := gen_random_uuid();
BEGIN
  INSERT INTO events (id, merchant_id, type, payload, body, dedupe_key, created_at)
  VALUES (event_id, merchant, event_type, data, loyalty_event_body(event_id, event_type, now(), merchant, data), dedupe, now())
  ON CONFLICT (merchant_id, dedupe_key) DO NOTHING;
END $$;

-- points.credited / points.debited for every ledger row; points.expired too for expiry. Per
-- statement, over its new rows at once (an import writes thousands in one statement).
CREATE OR REPLACE FUNCTION "points_transactions_emit"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH rows AS (
    SELECT n.*, jsonb_build_object('id', c.id, 'customer_id', c.platform_id, 'email', c.email) AS customer
      FROM new_rows n JOIN customers c ON c.id = n.customer_id
  ), emitted AS (
    SELECT merchant_id, CASE WHEN points >= 0 THEN 'points.credited' ELSE 'points.debited' END AS type,
           jsonb_build_object(
             'transaction_id', id, 'customer', customer, 'points', points, 'type', type,
             'description', description, 'source', source, 'balance_after', balance_after,
             'reference', CASE WHEN reference_kind IS NULL THEN NULL
                               ELSE jsonb_build_object('kind', reference_kind, 'id', reference_id) END,
             'created_at', loyalty_iso(created_at)) AS data, 0 AS rank, created_at, id AS row_id
      FROM rows
    UNION ALL
    SELECT merchant_id, 'points.expired',
           jsonb_build_object('transaction_id', id, 'customer', customer, 'points', -points,
                              'balance_after', balance_after, 'expired_at', loyalty_iso(created_at)), 1, created_at, id
      FROM rows WHERE source = 'expiry' AND points < 0
  ), identified AS (
    SELECT gen_random_uuid() AS id, * FROM emitted
  )
  INSERT INTO events (id, merchant_id, type, payload, body, created_at)
  SELECT id, merchant_id, type, data, loyalty_event_body(id, type, now(), merchant_id, data), now()
    FROM identified ORDER BY created_at, row_id, rank;
  RETURN NULL;
END $$;
DROP TRIGGER "points_transactions_outbox" ON "points_transactions";
CREATE TRIGGER "points_transactions_outbox" AFTER INSERT ON "points_transactions"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "points_transactions_emit"();

-- tier.changed: every new active membership, with the tier it replaced (per statement, as
-- above: an import gives thousands of customers their default tier at once).
CREATE OR REPLACE FUNCTION "tier_memberships_emit"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH changed AS (
    SELECT gen_random_uuid() AS event_id, n.merchant_id, n.id AS row_id, n.started_at, jsonb_build_object(
             'membership_id', n.id,
             'customer', jsonb_build_object('id', c.id, 'customer_id', c.platform_id, 'email', c.email),
             'tier', jsonb_build_object('id', t.id, 'name', t.name),
             'previous_tier', (SELECT jsonb_build_object('id', pt.id, 'name', pt.name)
                                 FROM tier_memberships m JOIN tiers pt ON pt.id = m.tier_id
                                WHERE m.merchant_id = n.merchant_id AND m.customer_id = n.customer_id
                                  AND m.id <> n.id AND m.ended_at IS NOT NULL
                                ORDER BY m.started_at DESC LIMIT 1),
             'source', n.source, 'started_at', loyalty_iso(n.started_at), 'expires_at', loyalty_iso(n.expires_at)) AS data
      FROM new_rows n JOIN customers c ON c.id = n.customer_id JOIN tiers t ON t.id = n.tier_id
     WHERE n.status = 'active'
  )
  INSERT INTO events (id, merchant_id, type, payload, body, created_at)
  SELECT event_id, merchant_id, 'tier.changed', data,
         loyalty_event_body(event_id, 'tier.changed', now(), merchant_id, data), now()
    FROM changed ORDER BY started_at, row_id;
  RETURN NULL;
END $$;
DROP TRIGGER "tier_memberships_outbox" ON "tier_memberships";
CREATE TRIGGER "tier_memberships_outbox" AFTER INSERT ON "tier_memberships"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "tier_memberships_emit"();

-- customer.created (per statement, as above: an import creates thousands at once)
CREATE OR REPLACE FUNCTION "customers_emit"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH created AS (
    SELECT gen_random_uuid() AS event_id, merchant_id, id AS row_id, jsonb_build_object(
             'id', id, 'customer_id', platform_id, 'email', email,
             'first_name', first_name, 'last_name', last_name, 'status', status,
             'birthday', to_char(birthday, 'YYYY-MM-DD'), 'referral_code', referral_code,
             'created_at', loyalty_iso(created_at)) AS data, created_at
      FROM new_rows
  )
  INSERT INTO events (id, merchant_id, type, payload, body, created_at)
  SELECT event_id, merchant_id, 'customer.created', data,
         loyalty_event_body(event_id, 'customer.created', now(), merchant_id, data), now()
    FROM created ORDER BY created_at, row_id;
  RETURN NULL;
END $$;
DROP TRIGGER "customers_outbox" ON "customers";
CREATE TRIGGER "customers_outbox" AFTER INSERT ON "customers"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "customers_emit"();

