-- DRAFT: not applied by the service. Turns a database at migration
-- 20261126082103_idempotency_keys_per_merchant, on a Citus coordinator, into the distributed
-- layout of docs/scaling-out.md. One transaction: all or nothing.
\set ON_ERROR_STOP on
BEGIN;
-- trigger DDL on Citus tables needs it (firing them does not)
SET LOCAL citus.enable_unsafe_triggers = on;
-- one connection per node for the whole transaction: without it the foreign keys of step 6
-- are refused ("cannot run ALTER TABLE ... ADD FOREIGN KEY command because there was a
-- parallel operation on a distributed table in the transaction")
SET LOCAL citus.multi_shard_modify_mode = 'sequential';

-- 1. Triggers and foreign keys go first: distributing copies the rows into the shards (the
-- triggers would fire on that copy), and a foreign key must name merchant_id. Both come back
-- below in their Citus form.
DROP TRIGGER customers_counted_on_insert ON customers;
DROP TRIGGER customers_counted_on_delete ON customers;
DROP TRIGGER customers_outbox ON customers;
DROP TRIGGER points_transactions_counted_on_insert ON points_transactions;
DROP TRIGGER points_transactions_counted_on_delete ON points_transactions;
DROP TRIGGER points_transactions_outbox ON points_transactions;
DROP TRIGGER activities_counted_on_insert ON activities;
DROP TRIGGER activities_counted_on_delete ON activities;
DROP TRIGGER customer_rewards_outbox ON customer_rewards;
DROP TRIGGER tier_memberships_outbox ON tier_memberships;
DROP TRIGGER referrals_outbox ON referrals;
DROP TRIGGER events_immutable ON events;
DROP TRIGGER api_keys_announce_update ON api_keys;
DROP TRIGGER api_keys_announce_delete ON api_keys;
DROP TRIGGER storefront_settings_announce_insert ON storefront_settings;
DROP TRIGGER storefront_settings_announce_update ON storefront_settings;
DROP TRIGGER storefront_settings_announce_delete ON storefront_settings;
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT conrelid::regclass AS tbl, conname FROM pg_constraint
            WHERE contype = 'f' AND connamespace = 'public'::regnamespace LOOP
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', r.tbl, r.conname);
  END LOOP;
END $$;

-- 2. merchant_id in every primary key and unique key of a tenant table
ALTER TABLE customers DROP CONSTRAINT customers_pkey, ADD CONSTRAINT customers_pkey PRIMARY KEY (merchant_id, id);
ALTER TABLE points_transactions DROP CONSTRAINT points_transactions_pkey, ADD CONSTRAINT points_transactions_pkey PRIMARY KEY (merchant_id, id);
ALTER TABLE activities DROP CONSTRAINT activities_pkey, ADD CONSTRAINT activities_pkey PRIMARY KEY (merchant_id, id);
ALTER TABLE rewards DROP CONSTRAINT rewards_pkey, ADD CONSTRAINT rewards_pkey PRIMARY KEY (merchant_id, id);
ALTER TABLE customer_rewards DROP CONSTRAINT customer_rewards_pkey, ADD CONSTRAINT customer_rewards_pkey PRIMARY KEY (merchant_id, id);
ALTER TABLE earning_rules DROP CONSTRAINT earning_rules_pkey, ADD CONSTRAINT earning_rules_pkey PRIMARY KEY (merchant_id, id);
ALTER TABLE tiers DROP CONSTRAINT tiers_pkey, ADD CONSTRAINT tiers_pkey PRIMARY KEY (merchant_id, id);
ALTER TABLE tier_memberships DROP CONSTRAINT tier_memberships_pkey, ADD CONSTRAINT tier_memberships_pkey PRIMARY KEY (merchant_id, id);
ALTER TABLE referrals DROP CONSTRAINT referrals_pkey, ADD CONSTRAINT referrals_pkey PRIMARY KEY (merchant_id, id);
ALTER TABLE referral_programs DROP CONSTRAINT referral_programs_pkey, ADD CONSTRAINT referral_programs_pkey PRIMARY KEY (merchant_id, id);
ALTER TABLE booster_campaigns DROP CONSTRAINT booster_campaigns_pkey, ADD CONSTRAINT booster_campaigns_pkey PRIMARY KEY (merchant_id, id);
ALTER TABLE orders DROP CONSTRAINT orders_pkey, ADD CONSTRAINT orders_pkey PRIMARY KEY (merchant_id, id);
ALTER TABLE engine_events DROP CONSTRAINT engine_events_pkey, ADD CONSTRAINT engine_events_pkey PRIMARY KEY (merchant_id, id);
ALTER TABLE audit_entries DROP CONSTRAINT audit_entries_pkey, ADD CONSTRAINT audit_entries_pkey PRIMARY KEY (merchant_id, id);
ALTER TABLE events DROP CONSTRAINT events_pkey, ADD CONSTRAINT events_pkey PRIMARY KEY (merchant_id, id);
ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_pkey, ADD CONSTRAINT webhook_endpoints_pkey PRIMARY KEY (merchant_id, id);
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_pkey, ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (merchant_id, id);
DROP INDEX webhook_deliveries_endpoint_id_event_id_key;
CREATE UNIQUE INDEX webhook_deliveries_merchant_id_endpoint_id_event_id_key ON webhook_deliveries (merchant_id, endpoint_id, event_id);
-- (idempotency_keys (merchant_id, key), persisted_operations (merchant_id, hash) and every other
-- unique index of a tenant table already start with merchant_id)

-- 3. The merchant's customer count moves out of merchants (a reference table: a trigger on a
-- customers shard cannot write it, "cannot execute a distributed query from a query on a
-- shard") into a co-located table of its own.
CREATE TABLE merchant_stats (
  merchant_id uuid PRIMARY KEY,
  customer_count integer NOT NULL DEFAULT 0
);
INSERT INTO merchant_stats (merchant_id, customer_count) SELECT id, customer_count FROM merchants;
ALTER TABLE merchants DROP COLUMN customer_count;

-- 4. Reference tables (a copy on every node, the coordinator included): read before the
-- merchant is known (a key's hash, an admin token, a session, a CORS origin), small, rarely
-- written.
SELECT create_reference_table('merchants');
SELECT create_reference_table('api_keys');
SELECT create_reference_table('storefront_settings');
SELECT create_reference_table('admin_sessions');

-- 5. Tenant tables: one co-location group by merchant_id (32 shards: citus.shard_count)
SELECT create_distributed_table('customers', 'merchant_id');
SELECT create_distributed_table(t, 'merchant_id', colocate_with => 'customers')
  FROM unnest(ARRAY['merchant_stats', 'points_transactions', 'activities', 'rewards', 'customer_rewards',
                    'earning_rules', 'tiers', 'tier_memberships', 'referrals', 'referral_programs',
                    'booster_campaigns', 'orders', 'engine_events', 'idempotency_keys', 'audit_entries',
                    'events', 'webhook_endpoints', 'webhook_deliveries', 'persisted_operations']) AS t;

-- 6. Foreign keys again, composite where both sides are tenant tables. ON UPDATE NO ACTION:
-- Citus refuses CASCADE/SET NULL on update when the key holds the distribution column (and
-- no id is ever updated). The three SET NULL references become NO ACTION: Citus refuses SET
-- NULL on delete with the distribution column in the key (even PostgreSQL 15's SET NULL (col)),
-- and the service never deletes a tier, a customer, or a reward a program names (the one reward
-- it deletes is one it just created and failed to adopt, referrals.ts).
ALTER TABLE merchant_stats ADD FOREIGN KEY (merchant_id) REFERENCES merchants (id) ON DELETE CASCADE;
ALTER TABLE api_keys ADD FOREIGN KEY (merchant_id) REFERENCES merchants (id) ON DELETE CASCADE;
ALTER TABLE storefront_settings ADD FOREIGN KEY (merchant_id) REFERENCES merchants (id) ON DELETE CASCADE;
ALTER TABLE admin_sessions ADD FOREIGN KEY (merchant_id) REFERENCES merchants (id) ON DELETE CASCADE;
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['customers', 'points_transactions', 'activities', 'rewards', 'customer_rewards',
                           'earning_rules', 'tiers', 'tier_memberships', 'referrals', 'referral_programs',
                           'booster_campaigns', 'orders', 'engine_events', 'idempotency_keys', 'audit_entries',
                           'events', 'webhook_endpoints', 'webhook_deliveries', 'persisted_operations'] LOOP
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I FOREIGN KEY (merchant_id) REFERENCES merchants (id) ON DELETE CASCADE',
                   t, t || '_merchant_id_fkey');
  END LOOP;
END $$;
ALTER TABLE customers ADD CONSTRAINT customers_tier_id_fkey FOREIGN KEY (merchant_id, tier_id) REFERENCES tiers (merchant_id, id);
ALTER TABLE points_transactions ADD CONSTRAINT points_transactions_customer_id_fkey FOREIGN KEY (merchant_id, customer_id) REFERENCES customers (merchant_id, id) ON DELETE CASCADE;
ALTER TABLE activities ADD CONSTRAINT activities_customer_id_fkey FOREIGN KEY (merchant_id, customer_id) REFERENCES customers (merchant_id, id) ON DELETE CASCADE;
ALTER TABLE customer_rewards ADD CONSTRAINT customer_rewards_customer_id_fkey FOREIGN KEY (merchant_id, customer_id) REFERENCES customers (merchant_id, id) ON DELETE CASCADE;
ALTER TABLE customer_rewards ADD CONSTRAINT customer_rewards_reward_id_fkey FOREIGN KEY (merchant_id, reward_id) REFERENCES rewards (merchant_id, id) ON DELETE CASCADE;
ALTER TABLE tier_memberships ADD CONSTRAINT tier_memberships_customer_id_fkey FOREIGN KEY (merchant_id, customer_id) REFERENCES customers (merchant_id, id) ON DELETE CASCADE;
ALTER TABLE tier_memberships ADD CONSTRAINT tier_memberships_tier_id_fkey FOREIGN KEY (merchant_id, tier_id) REFERENCES tiers (merchant_id, id) ON DELETE CASCADE;
ALTER TABLE referrals ADD CONSTRAINT referrals_referrer_id_fkey FOREIGN KEY (merchant_id, referrer_id) REFERENCES customers (merchant_id, id) ON DELETE CASCADE;
ALTER TABLE referrals ADD CONSTRAINT referrals_referee_id_fkey FOREIGN KEY (merchant_id, referee_id) REFERENCES customers (merchant_id, id);
ALTER TABLE referral_programs ADD CONSTRAINT referral_programs_referee_reward_id_fkey FOREIGN KEY (merchant_id, referee_reward_id) REFERENCES rewards (merchant_id, id);
ALTER TABLE orders ADD CONSTRAINT orders_customer_id_fkey FOREIGN KEY (merchant_id, customer_id) REFERENCES customers (merchant_id, id) ON DELETE CASCADE;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_endpoint_id_fkey FOREIGN KEY (merchant_id, endpoint_id) REFERENCES webhook_endpoints (merchant_id, id) ON DELETE CASCADE;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_event_id_fkey FOREIGN KEY (merchant_id, event_id) REFERENCES events (merchant_id, id) ON DELETE CASCADE;

-- 7. Triggers, in a form that runs on a shard. A trigger on a distributed table runs on the
-- worker that holds the shard, and what it runs there is planned by Citus again:
--   * a transition table cannot be joined with a Citus table ("executor could not find named
--     tuplestore"): each function reads its transition rows per merchant into jsonb first,
--     then runs one statement per merchant that names it (a router statement on that worker);
--   * every statement must name merchant_id (a query over all shards from a shard is refused:
--     "cannot execute a distributed query from a query on a shard");
--   * PL/pgSQL, not LANGUAGE sql, for what a trigger calls with parameters.

-- a customer as events name them, now by merchant too (expiry.ts calls it: pass the merchant)
DROP FUNCTION loyalty_customer_ref(uuid);
CREATE FUNCTION loyalty_customer_ref(merchant uuid, customer uuid) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT jsonb_build_object('id', c.id, 'customer_id', c.platform_id, 'email', c.email)
            FROM customers c WHERE c.merchant_id = merchant AND c.id = customer);
END $$;

-- merchant_stats.customer_count, per merchant, created on first use
CREATE OR REPLACE FUNCTION customers_count_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE m uuid; n int;
BEGIN
  IF TG_OP = 'INSERT' THEN
    FOR m, n IN SELECT merchant_id, count(*) FROM new_rows GROUP BY merchant_id LOOP
      INSERT INTO merchant_stats AS s (merchant_id, customer_count) VALUES (m, n)
      ON CONFLICT (merchant_id) DO UPDATE SET customer_count = s.customer_count + n;
    END LOOP;
  ELSE
    FOR m, n IN SELECT merchant_id, count(*) FROM old_rows GROUP BY merchant_id LOOP
      UPDATE merchant_stats SET customer_count = customer_count - n WHERE merchant_id = m;
    END LOOP;
  END IF;
  RETURN NULL;
END $$;

-- customers.transaction_count and activity_count: adds n to the column of each customer of
-- merchant m listed in counts ([{id, n}])
CREATE FUNCTION loyalty_count_customers(m uuid, col text, counts jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('UPDATE customers c SET %1$I = c.%1$I + x.n FROM jsonb_to_recordset($2) AS x(id uuid, n int)
                   WHERE c.merchant_id = $1 AND c.id = x.id', col) USING m, counts;
END $$;

CREATE OR REPLACE FUNCTION points_transactions_count_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  IF TG_OP = 'INSERT' THEN
    FOR r IN SELECT merchant_id, jsonb_agg(jsonb_build_object('id', customer_id, 'n', n)) AS counts
               FROM (SELECT merchant_id, customer_id, count(*) AS n FROM new_rows GROUP BY 1, 2) x GROUP BY 1 LOOP
      PERFORM loyalty_count_customers(r.merchant_id, 'transaction_count', r.counts);
    END LOOP;
  ELSE
    FOR r IN SELECT merchant_id, jsonb_agg(jsonb_build_object('id', customer_id, 'n', -n)) AS counts
               FROM (SELECT merchant_id, customer_id, count(*) AS n FROM old_rows GROUP BY 1, 2) x GROUP BY 1 LOOP
      PERFORM loyalty_count_customers(r.merchant_id, 'transaction_count', r.counts);
    END LOOP;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION activities_count_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  IF TG_OP = 'INSERT' THEN
    FOR r IN SELECT merchant_id, jsonb_agg(jsonb_build_object('id', customer_id, 'n', n)) AS counts
               FROM (SELECT merchant_id, customer_id, count(*) AS n FROM new_rows GROUP BY 1, 2) x GROUP BY 1 LOOP
      PERFORM loyalty_count_customers(r.merchant_id, 'activity_count', r.counts);
    END LOOP;
  ELSE
    FOR r IN SELECT merchant_id, jsonb_agg(jsonb_build_object('id', customer_id, 'n', -n)) AS counts
               FROM (SELECT merchant_id, customer_id, count(*) AS n FROM old_rows GROUP BY 1, 2) x GROUP BY 1 LOOP
      PERFORM loyalty_count_customers(r.merchant_id, 'activity_count', r.counts);
    END LOOP;
  END IF;
  RETURN NULL;
END $$;

-- the outbox: same events, same bodies, one INSERT per merchant of the statement's rows
CREATE OR REPLACE FUNCTION points_transactions_emit() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE m uuid; batch jsonb;
BEGIN
  FOR m, batch IN SELECT merchant_id, jsonb_agg(to_jsonb(n)) FROM new_rows n GROUP BY merchant_id LOOP
    WITH rows AS (
      SELECT n.*, jsonb_build_object('id', c.id, 'customer_id', c.platform_id, 'email', c.email) AS customer
        FROM jsonb_populate_recordset(NULL::points_transactions, batch) n
        JOIN customers c ON c.merchant_id = m AND c.id = n.customer_id
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
  END LOOP;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION tier_memberships_emit() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

CREATE OR REPLACE FUNCTION customers_emit() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

CREATE OR REPLACE FUNCTION customer_rewards_emit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM loyalty_emit_event(NEW.merchant_id, 'reward.redeemed', jsonb_build_object(
    'id', NEW.id, 'customer', loyalty_customer_ref(NEW.merchant_id, NEW.customer_id),
    'reward', (SELECT jsonb_build_object('id', r.id, 'name', r.name, 'reward_type', r.reward_type)
                 FROM rewards r WHERE r.merchant_id = NEW.merchant_id AND r.id = NEW.reward_id),
    'code', NEW.code, 'status', NEW.status, 'points_spent', NEW.points_spent,
    'issued_at', loyalty_iso(NEW.issued_at), 'expires_at', loyalty_iso(NEW.expires_at)));
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION referrals_emit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM loyalty_emit_event(NEW.merchant_id, 'referral.completed', jsonb_build_object(
    'id', NEW.id, 'referrer', loyalty_customer_ref(NEW.merchant_id, NEW.referrer_id),
    'referee', loyalty_customer_ref(NEW.merchant_id, NEW.referee_id), 'referee_email', NEW.referee_email,
    'referrer_points', NEW.referrer_points, 'order_id', NEW.order_id,
    'created_at', loyalty_iso(NEW.created_at), 'completed_at', loyalty_iso(NEW.completed_at)));
  RETURN NULL;
END $$;

-- NOTIFY from a reference table's trigger, only where it runs on the coordinator: a worker's
-- placement runs it inside a prepared transaction ("cannot PREPARE a transaction that has
-- executed ... NOTIFY"); the coordinator's placement is written in the coordinator's own
-- transaction, which commits normally and delivers the notification to its listeners. On a
-- database without Citus the inner test is never reached.
CREATE FUNCTION loyalty_may_notify() RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF to_regproc('pg_catalog.citus_is_coordinator') IS NULL THEN
    RETURN true;
  END IF;
  RETURN citus_is_coordinator();
END $$;

CREATE OR REPLACE FUNCTION api_keys_announce_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF loyalty_may_notify() THEN
    PERFORM pg_notify('loyalty_auth', OLD."hash");
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION storefront_settings_announce_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF loyalty_may_notify() THEN
    PERFORM pg_notify('loyalty_auth', 'storefront:' || CASE WHEN TG_OP = 'INSERT' THEN NEW."merchant_id" ELSE OLD."merchant_id" END);
  END IF;
  RETURN NULL;
END $$;

-- the same triggers as before, on the Citus tables (propagated to every shard)
CREATE TRIGGER customers_counted_on_insert AFTER INSERT ON customers
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION customers_count_changed();
CREATE TRIGGER customers_counted_on_delete AFTER DELETE ON customers
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION customers_count_changed();
CREATE TRIGGER customers_outbox AFTER INSERT ON customers
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION customers_emit();
CREATE TRIGGER points_transactions_counted_on_insert AFTER INSERT ON points_transactions
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION points_transactions_count_changed();
CREATE TRIGGER points_transactions_counted_on_delete AFTER DELETE ON points_transactions
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION points_transactions_count_changed();
CREATE TRIGGER points_transactions_outbox AFTER INSERT ON points_transactions
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION points_transactions_emit();
CREATE TRIGGER activities_counted_on_insert AFTER INSERT ON activities
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION activities_count_changed();
CREATE TRIGGER activities_counted_on_delete AFTER DELETE ON activities
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION activities_count_changed();
CREATE TRIGGER customer_rewards_outbox AFTER INSERT ON customer_rewards
  FOR EACH ROW WHEN (NEW.points_spent > 0) EXECUTE FUNCTION customer_rewards_emit();
CREATE TRIGGER tier_memberships_outbox AFTER INSERT ON tier_memberships
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tier_memberships_emit();
CREATE TRIGGER referrals_outbox AFTER UPDATE OF status ON referrals
  FOR EACH ROW WHEN (NEW.status = 'completed' AND OLD.status IS DISTINCT FROM 'completed')
  EXECUTE FUNCTION referrals_emit();
CREATE TRIGGER events_immutable BEFORE UPDATE ON events
  FOR EACH ROW EXECUTE FUNCTION events_reject_change();
CREATE TRIGGER api_keys_announce_update AFTER UPDATE OF revoked_at, scopes, hash, merchant_id ON api_keys
  FOR EACH ROW EXECUTE FUNCTION api_keys_announce_change();
CREATE TRIGGER api_keys_announce_delete AFTER DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION api_keys_announce_change();
CREATE TRIGGER storefront_settings_announce_insert AFTER INSERT ON storefront_settings
  FOR EACH ROW EXECUTE FUNCTION storefront_settings_announce_change();
CREATE TRIGGER storefront_settings_announce_update AFTER UPDATE ON storefront_settings
  FOR EACH ROW EXECUTE FUNCTION storefront_settings_announce_change();
CREATE TRIGGER storefront_settings_announce_delete AFTER DELETE ON storefront_settings
  FOR EACH ROW EXECUTE FUNCTION storefront_settings_announce_change();

-- 8. Enum conversions Citus accepts. Prisma reads enum columns back as "column"::text, in
-- RETURNING too, and writes them as CAST($1::text AS "Enum"), in ON CONFLICT DO UPDATE SET too.
-- Both are I/O conversions through enum_out/enum_in (STABLE), and Citus refuses a non-IMMUTABLE
-- function in the RETURNING of a write ("non-IMMUTABLE functions are not allowed in the
-- RETURNING clause", citusdata/citus#4161) and in DO UPDATE SET ("functions used in the DO
-- UPDATE SET clause of INSERTs on distributed tables must be marked IMMUTABLE"), reference
-- tables included. An explicit cast each way per enum, through an IMMUTABLE function, passes
-- and gives the same values and the same error for a bad one (PL/pgSQL: never inlined back into
-- the STABLE conversion). Casts are not propagated: they live on the coordinator, where Citus
-- plans; workers convert as before. Every future enum needs its two casts.
DO $$
DECLARE t record;
BEGIN
  FOR t IN SELECT oid::regtype AS name, lower(typname) AS short
             FROM pg_type WHERE typnamespace = 'public'::regnamespace AND typtype = 'e' LOOP
    EXECUTE format('CREATE FUNCTION %I(%s) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT
                      AS $f$ BEGIN RETURN textin(enum_out($1)); END $f$', 'loyalty_' || t.short || '_to_text', t.name);
    EXECUTE format('CREATE CAST (%s AS text) WITH FUNCTION %I(%s)', t.name, 'loyalty_' || t.short || '_to_text', t.name);
    EXECUTE format('CREATE FUNCTION %I(text) RETURNS %s LANGUAGE plpgsql IMMUTABLE STRICT
                      AS $f$ BEGIN RETURN enum_in(textout($1), %L::regtype); END $f$', 'loyalty_text_to_' || t.short, t.name, t.name);
    EXECUTE format('CREATE CAST (text AS %s) WITH FUNCTION %I(text)', t.name, 'loyalty_text_to_' || t.short);
  END LOOP;
END $$;

-- 9. The ledger's change as one PL/pgSQL function, delegated whole to the worker that holds the
-- merchant (force_delegation: inside a transaction block too). Same rules as the statement in ledger.ts: the customer by id or platform id
-- (unknown or erased: no row), an optional pending activity to approve (locked, still pending,
-- same points), the conditional balance update, the transaction row, the activity row (or the
-- approval). A refused change returns the customer with null balance_after.
CREATE FUNCTION loyalty_apply_points(
  p_merchant uuid, p_customer uuid, p_platform_id text, p_points int, p_max int,
  p_transaction_id uuid, p_type "TransactionType", p_description text, p_source "TransactionSource",
  p_reference_kind text, p_reference_id text,
  p_activity_id uuid, p_activity_type text, p_activity_reference_kind text, p_activity_reference_id text,
  p_approves uuid DEFAULT NULL,
  OUT customer_id uuid, OUT balance_after int, OUT activity_id uuid)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_customer uuid;
  v_balance int;
BEGIN
  IF p_customer IS NOT NULL THEN
    SELECT c.id INTO v_customer FROM customers c WHERE c.merchant_id = p_merchant AND c.id = p_customer;
  ELSE
    SELECT c.id INTO v_customer FROM customers c
     WHERE c.merchant_id = p_merchant AND c.platform_id = p_platform_id AND c.erased_at IS NULL;
  END IF;
  IF v_customer IS NULL THEN
    RETURN;
  END IF;
  customer_id := v_customer;
  IF p_approves IS NOT NULL THEN
    PERFORM 1 FROM activities a
     WHERE a.merchant_id = p_merchant AND a.id = p_approves AND a.customer_id = v_customer
       AND a.status = 'pending' AND a.points_change = p_points
       FOR UPDATE;
    IF NOT FOUND THEN
      RETURN;
    END IF;
  END IF;
  UPDATE customers c
     SET points_balance = c.points_balance + p_points,
         points_earned = c.points_earned + greatest(p_points, 0),
         points_spent = c.points_spent + greatest(-p_points, 0),
         last_activity_at = now(),
         updated_at = now()
   WHERE c.merchant_id = p_merchant AND c.id = v_customer
     AND c.points_balance + p_points::bigint BETWEEN 0 AND p_max
     AND c.points_earned + greatest(p_points, 0)::bigint <= p_max
     AND c.points_spent + greatest(-p_points, 0)::bigint <= p_max
  RETURNING c.points_balance INTO v_balance;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  INSERT INTO points_transactions
    (id, merchant_id, customer_id, points, type, description, source, balance_after, reference_kind, reference_id)
  VALUES (p_transaction_id, p_merchant, v_customer, p_points, p_type, p_description, p_source, v_balance,
          p_reference_kind, p_reference_id);
  IF p_approves IS NULL THEN
    INSERT INTO activities
      (id, merchant_id, customer_id, type, description, points_change, balance_after, status,
       reference_kind, reference_id, occurred_at, created_at)
    VALUES (p_activity_id, p_merchant, v_customer, p_activity_type, p_description, p_points, v_balance, 'approved',
            p_activity_reference_kind, p_activity_reference_id, now(), now());
    activity_id := p_activity_id;
  ELSE
    UPDATE activities a SET status = 'approved', balance_after = v_balance
     WHERE a.merchant_id = p_merchant AND a.id = p_approves;
    activity_id := p_approves;
  END IF;
  balance_after := v_balance;
END $$;
SELECT create_distributed_function(
  'loyalty_apply_points(uuid,uuid,text,int,int,uuid,"TransactionType",text,"TransactionSource",text,text,uuid,text,text,text,uuid)',
  distribution_arg_name => 'p_merchant', colocate_with => 'customers', force_delegation => true);

COMMIT;
