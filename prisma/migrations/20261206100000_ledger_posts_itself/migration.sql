-- The ledger function writes everything a change of points implies itself: the customer's
-- counters in its balance UPDATE, the ledger bucket and the outbox events as single-row
-- INSERTs of values it computed (docs/scaling-out.md, "The ledger as a distributed function").
-- On a Citus worker each of those statements is a fast-path router query run locally, where
-- the statement triggers it replaces were planned and deparsed by Citus on every call (and the
-- outbox's INSERT … SELECT pulled and copied): 7.4 ms of a worker's CPU a credit before, 2.2
-- after; 1.8 and 0.75 ms on PostgreSQL (docs/scaling-out.md). Every other
-- writer of transactions and activities (redemptions, clawbacks, imports) still goes through
-- those triggers; ledger_posted marks the rows the function accounted for, so each row is
-- counted, bucketed and announced exactly once whichever backend runs its trigger. The
-- payloads of points.credited, points.debited and points.expired are built by one function
-- each, called by both paths.

-- AlterTable
ALTER TABLE "activities" ADD COLUMN "ledger_posted" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "points_transactions" ADD COLUMN "ledger_posted" BOOLEAN NOT NULL DEFAULT false;

-- Trigger DDL on a Citus cluster's distributed tables needs this (their triggers then fire
-- without it); plain PostgreSQL keeps it as a placeholder setting for this transaction.
SET LOCAL citus.enable_unsafe_triggers = on;

CREATE FUNCTION loyalty_points_event_type(points int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN points >= 0 THEN 'points.credited' ELSE 'points.debited' END
$$;

-- points.credited / points.debited (webhooks/event-types.ts)
CREATE FUNCTION loyalty_points_event_data(
  transaction_id uuid, customer jsonb, points int, type "TransactionType", description text,
  source "TransactionSource", balance_after int, reference_kind text, reference_id text,
  placed_at timestamptz, created_at timestamptz) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object(
    'transaction_id', transaction_id, 'customer', customer, 'points', points, 'type', type,
    'description', description, 'source', source, 'balance_after', balance_after,
    'reference', CASE WHEN reference_kind IS NULL THEN NULL
                      ELSE jsonb_build_object('kind', reference_kind, 'id', reference_id) END,
    'placed_at', loyalty_iso(placed_at), 'created_at', loyalty_iso(created_at))
$$;

-- points.expired, beside the debit of an expiry
CREATE FUNCTION loyalty_points_expired_data(
  transaction_id uuid, customer jsonb, points int, balance_after int, created_at timestamptz)
  RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object('transaction_id', transaction_id, 'customer', customer, 'points', -points,
                            'balance_after', balance_after, 'expired_at', loyalty_iso(created_at))
$$;

-- the triggers: the rows of other writers only
CREATE OR REPLACE FUNCTION loyalty_count_customer_rows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  -- an inserted row the ledger function counted itself is skipped (a static query: a cached
  -- plan, where the dynamic one below is planned per call); a deleted row always counts
  IF TG_OP = 'INSERT' THEN
    IF NOT EXISTS (SELECT FROM new_rows WHERE NOT ledger_posted) THEN
      RETURN NULL;
    END IF;
  END IF;
  FOR r IN EXECUTE format(
    'SELECT merchant_id, jsonb_agg(jsonb_build_object(''id'', customer_id, ''n'', n)) AS counts
       FROM (SELECT merchant_id, customer_id, %s * count(*) AS n FROM %I WHERE %s GROUP BY 1, 2) x GROUP BY 1',
    CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE -1 END, CASE WHEN TG_OP = 'INSERT' THEN 'new_rows' ELSE 'old_rows' END,
    CASE WHEN TG_OP = 'INSERT' THEN 'NOT ledger_posted' ELSE 'true' END)
  LOOP
    EXECUTE format('UPDATE customers c SET %1$I = c.%1$I + x.n FROM jsonb_to_recordset($2) AS x(id uuid, n int)
                     WHERE c.merchant_id = $1 AND c.id = x.id', TG_ARGV[0]) USING r.merchant_id, r.counts;
  END LOOP;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION loyalty_ledger_buckets_add() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE m uuid; sums jsonb;
BEGIN
  IF NOT EXISTS (SELECT FROM new_rows WHERE NOT ledger_posted) THEN
    RETURN NULL;
  END IF;
  FOR m, sums IN
    SELECT merchant_id, jsonb_agg(jsonb_build_object('b', b, 'c', c, 'p', p, 'n', n))
      FROM (SELECT merchant_id, loyalty_ledger_bucket(created_at) AS b,
                   loyalty_ledger_category(type, source, reference_kind) AS c, sum(points) AS p, count(*) AS n
              FROM new_rows WHERE NOT ledger_posted GROUP BY 1, 2, 3) x
     GROUP BY merchant_id
  LOOP
    INSERT INTO ledger_buckets (id, merchant_id, bucket_start, category, points, entries)
    SELECT gen_random_uuid(), m, x.b, x.c, x.p, x.n FROM jsonb_to_recordset(sums) AS x(b timestamptz, c text, p bigint, n int);
  END LOOP;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION points_transactions_emit() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

-- The ledger's change (same arguments as in migration late_orders, so it stays delegated).
-- Every value is computed in PL/pgSQL before the statement that writes it (ids, payloads, the
-- bucket), so each statement holds only parameters and columns and touches one table naming
-- the merchant: on a Citus worker a fast-path router query run locally, with nothing for Citus
-- to evaluate first; on PostgreSQL a cached generic plan after the first calls. (On Citus the
-- function runs with custom plans: `loyalty cluster distribute`, src/db/cluster.ts, says why.)
CREATE OR REPLACE FUNCTION loyalty_apply_points(
  p_merchant uuid, p_customer uuid, p_platform_id text, p_points int, p_max int,
  p_transaction_id uuid, p_type "TransactionType", p_description text, p_source "TransactionSource",
  p_reference_kind text, p_reference_id text,
  p_activity_id uuid, p_activity_type text, p_activity_reference_kind text, p_activity_reference_id text,
  p_approves uuid DEFAULT NULL, p_placed_at timestamptz DEFAULT NULL,
  OUT customer_id uuid, OUT balance_after int, OUT activity_id uuid)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_now timestamptz := now();
  v_placed timestamptz := coalesce(p_placed_at, v_now);
  v_earned int := greatest(p_points, 0);
  v_spent int := greatest(-p_points, 0);
  v_activities int := CASE WHEN p_approves IS NULL THEN 1 ELSE 0 END;
  v_customer uuid;
  v_balance int;
  v_platform_id text;
  v_email text;
  v_customer_ref jsonb;
  v_id uuid;
  v_bucket timestamptz;
  v_category text;
  v_type text;
  v_data jsonb;
  v_body text;
BEGIN
  IF p_approves IS NOT NULL THEN
    -- the pending activity first, locked: an approval and a refund's void never both apply
    PERFORM 1 FROM activities a
     WHERE a.merchant_id = p_merchant AND a.id = p_approves AND a.customer_id = p_customer
       AND a.status = 'pending' AND a.points_change = p_points
       FOR UPDATE;
    IF NOT FOUND THEN
      SELECT c.id INTO customer_id FROM customers c WHERE c.merchant_id = p_merchant AND c.id = p_customer;
      RETURN;
    END IF;
  END IF;
  -- the balance, its lifetime sums and the row counts in one conditional UPDATE: under READ
  -- COMMITTED a concurrent change re-checks the condition against the row it committed
  IF p_customer IS NOT NULL THEN
    UPDATE customers c
       SET points_balance = c.points_balance + p_points,
           points_earned = c.points_earned + v_earned,
           points_spent = c.points_spent + v_spent,
           transaction_count = c.transaction_count + 1,
           activity_count = c.activity_count + v_activities,
           last_activity_at = v_now,
           updated_at = v_now
     WHERE c.merchant_id = p_merchant AND c.id = p_customer
       AND c.points_balance + p_points::bigint BETWEEN 0 AND p_max
       AND c.points_earned + v_earned::bigint <= p_max
       AND c.points_spent + v_spent::bigint <= p_max
    RETURNING c.id, c.points_balance, c.platform_id, c.email INTO v_customer, v_balance, v_platform_id, v_email;
  ELSE
    UPDATE customers c
       SET points_balance = c.points_balance + p_points,
           points_earned = c.points_earned + v_earned,
           points_spent = c.points_spent + v_spent,
           transaction_count = c.transaction_count + 1,
           activity_count = c.activity_count + v_activities,
           last_activity_at = v_now,
           updated_at = v_now
     WHERE c.merchant_id = p_merchant AND c.platform_id = p_platform_id AND c.erased_at IS NULL
       AND c.points_balance + p_points::bigint BETWEEN 0 AND p_max
       AND c.points_earned + v_earned::bigint <= p_max
       AND c.points_spent + v_spent::bigint <= p_max
    RETURNING c.id, c.points_balance, c.platform_id, c.email INTO v_customer, v_balance, v_platform_id, v_email;
  END IF;
  IF v_customer IS NULL THEN
    -- refused (the customer, with no balance) or unknown (nothing)
    IF p_customer IS NOT NULL THEN
      SELECT c.id INTO customer_id FROM customers c WHERE c.merchant_id = p_merchant AND c.id = p_customer;
    ELSE
      SELECT c.id INTO customer_id FROM customers c
       WHERE c.merchant_id = p_merchant AND c.platform_id = p_platform_id AND c.erased_at IS NULL;
    END IF;
    RETURN;
  END IF;
  customer_id := v_customer;
  balance_after := v_balance;

  INSERT INTO points_transactions
    (id, merchant_id, customer_id, points, type, description, source, balance_after, reference_kind, reference_id,
     placed_at, created_at, ledger_posted)
  VALUES (p_transaction_id, p_merchant, v_customer, p_points, p_type, p_description, p_source, v_balance,
          p_reference_kind, p_reference_id, v_placed, v_now, true);
  IF p_approves IS NULL THEN
    INSERT INTO activities
      (id, merchant_id, customer_id, type, description, points_change, balance_after, status,
       reference_kind, reference_id, occurred_at, created_at, ledger_posted)
    VALUES (p_activity_id, p_merchant, v_customer, p_activity_type, p_description, p_points, v_balance, 'approved',
            p_activity_reference_kind, p_activity_reference_id, v_placed, v_now, true);
    activity_id := p_activity_id;
  ELSE
    UPDATE activities a SET status = 'approved', balance_after = v_balance
     WHERE a.merchant_id = p_merchant AND a.id = p_approves;
    activity_id := p_approves;
  END IF;

  -- what the statement triggers do for other writers' rows, for this one
  v_id := gen_random_uuid();
  v_bucket := loyalty_ledger_bucket(v_now);
  v_category := loyalty_ledger_category(p_type, p_source, p_reference_kind);
  INSERT INTO ledger_buckets (id, merchant_id, bucket_start, category, points, entries)
  VALUES (v_id, p_merchant, v_bucket, v_category, p_points, 1);

  v_customer_ref := jsonb_build_object('id', v_customer, 'customer_id', v_platform_id, 'email', v_email);
  v_id := gen_random_uuid();
  v_type := loyalty_points_event_type(p_points);
  v_data := loyalty_points_event_data(p_transaction_id, v_customer_ref, p_points, p_type, p_description, p_source,
                                      v_balance, p_reference_kind, p_reference_id, v_placed, v_now);
  v_body := loyalty_event_body(v_id, v_type, v_now, p_merchant, v_data);
  INSERT INTO events (id, merchant_id, type, payload, body, created_at)
  VALUES (v_id, p_merchant, v_type, v_data, v_body, v_now);
  IF p_source = 'expiry' AND p_points < 0 THEN
    v_id := gen_random_uuid();
    v_type := 'points.expired';
    v_data := loyalty_points_expired_data(p_transaction_id, v_customer_ref, p_points, v_balance, v_now);
    v_body := loyalty_event_body(v_id, v_type, v_now, p_merchant, v_data);
    INSERT INTO events (id, merchant_id, type, payload, body, created_at)
    VALUES (v_id, p_merchant, v_type, v_data, v_body, v_now);
  END IF;
END $$;
