-- merchant_id in every key of a tenant table and in every relation between two, so the same
-- schema shards by merchant on a Citus cluster (docs/scaling-out.md) and stays as it was on
-- PostgreSQL and the embedded database. The triggers' functions name the merchant in every
-- statement and read their transition rows per merchant (a shard's trigger runs its statements
-- through Citus again), the customer count leaves the merchants row, every enum gets casts
-- Citus accepts, and the ledger's change becomes one function Citus can send whole to a shard.
-- `loyalty cluster distribute` then distributes the tables where Citus is installed.

-- DropForeignKey
ALTER TABLE "api_keys" DROP CONSTRAINT "api_keys_merchant_id_fkey";

-- DropForeignKey
ALTER TABLE "customers" DROP CONSTRAINT "customers_merchant_id_fkey";

-- DropForeignKey
ALTER TABLE "customers" DROP CONSTRAINT "customers_tier_id_fkey";

-- DropForeignKey
ALTER TABLE "points_transactions" DROP CONSTRAINT "points_transactions_merchant_id_fkey";

-- DropForeignKey
ALTER TABLE "points_transactions" DROP CONSTRAINT "points_transactions_customer_id_fkey";

-- DropForeignKey
ALTER TABLE "activities" DROP CONSTRAINT "activities_merchant_id_fkey";

-- DropForeignKey
ALTER TABLE "activities" DROP CONSTRAINT "activities_customer_id_fkey";

-- DropForeignKey
ALTER TABLE "rewards" DROP CONSTRAINT "rewards_merchant_id_fkey";

-- DropForeignKey
ALTER TABLE "customer_rewards" DROP CONSTRAINT "customer_rewards_merchant_id_fkey";

-- DropForeignKey
ALTER TABLE "customer_rewards" DROP CONSTRAINT "customer_rewards_customer_id_fkey";

-- DropForeignKey
ALTER TABLE "customer_rewards" DROP CONSTRAINT "customer_rewards_reward_id_fkey";

-- DropForeignKey
ALTER TABLE "earning_rules" DROP CONSTRAINT "earning_rules_merchant_id_fkey";

-- DropForeignKey
ALTER TABLE "tiers" DROP CONSTRAINT "tiers_merchant_id_fkey";

-- DropForeignKey
ALTER TABLE "tier_memberships" DROP CONSTRAINT "tier_memberships_merchant_id_fkey";

-- DropForeignKey
ALTER TABLE "tier_memberships" DROP CONSTRAINT "tier_memberships_customer_id_fkey";

-- DropForeignKey
ALTER TABLE "tier_memberships" DROP CONSTRAINT "tier_memberships_tier_id_fkey";

-- DropForeignKey
ALTER TABLE "referrals" DROP CONSTRAINT "referrals_merchant_id_fkey";

-- DropForeignKey
ALTER TABLE "referrals" DROP CONSTRAINT "referrals_referrer_id_fkey";

-- DropForeignKey
ALTER TABLE "referrals" DROP CONSTRAINT "referrals_referee_id_fkey";

-- DropForeignKey
ALTER TABLE "referral_programs" DROP CONSTRAINT "referral_programs_merchant_id_fkey";

-- DropForeignKey
ALTER TABLE "referral_programs" DROP CONSTRAINT "referral_programs_referee_reward_id_fkey";

-- DropForeignKey
ALTER TABLE "booster_campaigns" DROP CONSTRAINT "booster_campaigns_merchant_id_fkey";

-- DropForeignKey
ALTER TABLE "orders" DROP CONSTRAINT "orders_merchant_id_fkey";

-- DropForeignKey
ALTER TABLE "orders" DROP CONSTRAINT "orders_customer_id_fkey";

-- DropForeignKey
ALTER TABLE "engine_events" DROP CONSTRAINT "engine_events_merchant_id_fkey";

-- DropForeignKey
ALTER TABLE "idempotency_keys" DROP CONSTRAINT "idempotency_keys_merchant_id_fkey";

-- DropForeignKey
ALTER TABLE "admin_sessions" DROP CONSTRAINT "admin_sessions_merchant_id_fkey";

-- DropForeignKey
ALTER TABLE "storefront_settings" DROP CONSTRAINT "storefront_settings_merchant_id_fkey";

-- DropForeignKey
ALTER TABLE "persisted_operations" DROP CONSTRAINT "persisted_operations_merchant_id_fkey";

-- DropForeignKey
ALTER TABLE "events" DROP CONSTRAINT "events_merchant_id_fkey";

-- DropForeignKey
ALTER TABLE "webhook_endpoints" DROP CONSTRAINT "webhook_endpoints_merchant_id_fkey";

-- DropForeignKey
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_merchant_id_fkey";

-- DropForeignKey
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_endpoint_id_fkey";

-- DropForeignKey
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_event_id_fkey";

-- DropForeignKey
ALTER TABLE "audit_entries" DROP CONSTRAINT "audit_entries_merchant_id_fkey";

-- DropIndex
DROP INDEX "webhook_deliveries_endpoint_id_event_id_key";


-- AlterTable
ALTER TABLE "customers" DROP CONSTRAINT "customers_pkey",
ADD CONSTRAINT "customers_pkey" PRIMARY KEY ("merchant_id", "id");

-- AlterTable
ALTER TABLE "points_transactions" DROP CONSTRAINT "points_transactions_pkey",
ADD CONSTRAINT "points_transactions_pkey" PRIMARY KEY ("merchant_id", "id");

-- AlterTable
ALTER TABLE "activities" DROP CONSTRAINT "activities_pkey",
ADD CONSTRAINT "activities_pkey" PRIMARY KEY ("merchant_id", "id");

-- AlterTable
ALTER TABLE "rewards" DROP CONSTRAINT "rewards_pkey",
ADD CONSTRAINT "rewards_pkey" PRIMARY KEY ("merchant_id", "id");

-- AlterTable
ALTER TABLE "customer_rewards" DROP CONSTRAINT "customer_rewards_pkey",
ADD CONSTRAINT "customer_rewards_pkey" PRIMARY KEY ("merchant_id", "id");

-- AlterTable
ALTER TABLE "earning_rules" DROP CONSTRAINT "earning_rules_pkey",
ADD CONSTRAINT "earning_rules_pkey" PRIMARY KEY ("merchant_id", "id");

-- AlterTable
ALTER TABLE "tiers" DROP CONSTRAINT "tiers_pkey",
ADD CONSTRAINT "tiers_pkey" PRIMARY KEY ("merchant_id", "id");

-- AlterTable
ALTER TABLE "tier_memberships" DROP CONSTRAINT "tier_memberships_pkey",
ADD CONSTRAINT "tier_memberships_pkey" PRIMARY KEY ("merchant_id", "id");

-- AlterTable
ALTER TABLE "referrals" DROP CONSTRAINT "referrals_pkey",
ADD CONSTRAINT "referrals_pkey" PRIMARY KEY ("merchant_id", "id");

-- AlterTable
ALTER TABLE "referral_programs" DROP CONSTRAINT "referral_programs_pkey",
ADD CONSTRAINT "referral_programs_pkey" PRIMARY KEY ("merchant_id", "id");

-- AlterTable
ALTER TABLE "booster_campaigns" DROP CONSTRAINT "booster_campaigns_pkey",
ADD CONSTRAINT "booster_campaigns_pkey" PRIMARY KEY ("merchant_id", "id");

-- AlterTable
ALTER TABLE "orders" DROP CONSTRAINT "orders_pkey",
ADD CONSTRAINT "orders_pkey" PRIMARY KEY ("merchant_id", "id");

-- AlterTable
ALTER TABLE "engine_events" DROP CONSTRAINT "engine_events_pkey",
ADD CONSTRAINT "engine_events_pkey" PRIMARY KEY ("merchant_id", "id");

-- AlterTable
ALTER TABLE "events" DROP CONSTRAINT "events_pkey",
ADD CONSTRAINT "events_pkey" PRIMARY KEY ("merchant_id", "id");

-- AlterTable
ALTER TABLE "webhook_endpoints" DROP CONSTRAINT "webhook_endpoints_pkey",
ADD CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("merchant_id", "id");

-- AlterTable
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_pkey",
ADD CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("merchant_id", "id");

-- AlterTable
ALTER TABLE "audit_entries" DROP CONSTRAINT "audit_entries_pkey",
ADD CONSTRAINT "audit_entries_pkey" PRIMARY KEY ("merchant_id", "id");

-- CreateTable
CREATE TABLE "merchant_stats" (
    "merchant_id" UUID NOT NULL,
    "customer_count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "merchant_stats_pkey" PRIMARY KEY ("merchant_id")
);

-- the counts move with their merchants (the trigger below keeps them from here on)
INSERT INTO "merchant_stats" ("merchant_id", "customer_count") SELECT "id", "customer_count" FROM "merchants";
ALTER TABLE "merchants" DROP COLUMN "customer_count";

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_merchant_id_endpoint_id_event_id_key" ON "webhook_deliveries"("merchant_id", "endpoint_id", "event_id");

-- AddForeignKey
ALTER TABLE "merchant_stats" ADD CONSTRAINT "merchant_stats_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "customers" ADD CONSTRAINT "customers_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "customers" ADD CONSTRAINT "customers_merchant_id_tier_id_fkey" FOREIGN KEY ("merchant_id", "tier_id") REFERENCES "tiers"("merchant_id", "id") ON DELETE NO ACTION ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "points_transactions" ADD CONSTRAINT "points_transactions_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "points_transactions" ADD CONSTRAINT "points_transactions_merchant_id_customer_id_fkey" FOREIGN KEY ("merchant_id", "customer_id") REFERENCES "customers"("merchant_id", "id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "activities" ADD CONSTRAINT "activities_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "activities" ADD CONSTRAINT "activities_merchant_id_customer_id_fkey" FOREIGN KEY ("merchant_id", "customer_id") REFERENCES "customers"("merchant_id", "id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "rewards" ADD CONSTRAINT "rewards_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "customer_rewards" ADD CONSTRAINT "customer_rewards_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "customer_rewards" ADD CONSTRAINT "customer_rewards_merchant_id_customer_id_fkey" FOREIGN KEY ("merchant_id", "customer_id") REFERENCES "customers"("merchant_id", "id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "customer_rewards" ADD CONSTRAINT "customer_rewards_merchant_id_reward_id_fkey" FOREIGN KEY ("merchant_id", "reward_id") REFERENCES "rewards"("merchant_id", "id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "earning_rules" ADD CONSTRAINT "earning_rules_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "tiers" ADD CONSTRAINT "tiers_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "tier_memberships" ADD CONSTRAINT "tier_memberships_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "tier_memberships" ADD CONSTRAINT "tier_memberships_merchant_id_customer_id_fkey" FOREIGN KEY ("merchant_id", "customer_id") REFERENCES "customers"("merchant_id", "id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "tier_memberships" ADD CONSTRAINT "tier_memberships_merchant_id_tier_id_fkey" FOREIGN KEY ("merchant_id", "tier_id") REFERENCES "tiers"("merchant_id", "id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "referrals" ADD CONSTRAINT "referrals_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "referrals" ADD CONSTRAINT "referrals_merchant_id_referrer_id_fkey" FOREIGN KEY ("merchant_id", "referrer_id") REFERENCES "customers"("merchant_id", "id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "referrals" ADD CONSTRAINT "referrals_merchant_id_referee_id_fkey" FOREIGN KEY ("merchant_id", "referee_id") REFERENCES "customers"("merchant_id", "id") ON DELETE NO ACTION ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "referral_programs" ADD CONSTRAINT "referral_programs_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "referral_programs" ADD CONSTRAINT "referral_programs_merchant_id_referee_reward_id_fkey" FOREIGN KEY ("merchant_id", "referee_reward_id") REFERENCES "rewards"("merchant_id", "id") ON DELETE NO ACTION ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "booster_campaigns" ADD CONSTRAINT "booster_campaigns_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "orders" ADD CONSTRAINT "orders_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "orders" ADD CONSTRAINT "orders_merchant_id_customer_id_fkey" FOREIGN KEY ("merchant_id", "customer_id") REFERENCES "customers"("merchant_id", "id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "engine_events" ADD CONSTRAINT "engine_events_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "admin_sessions" ADD CONSTRAINT "admin_sessions_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "storefront_settings" ADD CONSTRAINT "storefront_settings_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "persisted_operations" ADD CONSTRAINT "persisted_operations_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_merchant_id_endpoint_id_fkey" FOREIGN KEY ("merchant_id", "endpoint_id") REFERENCES "webhook_endpoints"("merchant_id", "id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_merchant_id_event_id_fkey" FOREIGN KEY ("merchant_id", "event_id") REFERENCES "events"("merchant_id", "id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "audit_entries" ADD CONSTRAINT "audit_entries_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- The triggers' functions, in a form that runs on a shard. A trigger on a distributed table runs on the
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

-- customers.transaction_count or activity_count (the trigger's argument): each row of the
-- statement counts one for its customer, up on insert, down on delete; one UPDATE per merchant
CREATE FUNCTION loyalty_count_customer_rows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN EXECUTE format(
    'SELECT merchant_id, jsonb_agg(jsonb_build_object(''id'', customer_id, ''n'', n)) AS counts
       FROM (SELECT merchant_id, customer_id, %s * count(*) AS n FROM %I GROUP BY 1, 2) x GROUP BY 1',
    CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE -1 END, CASE WHEN TG_OP = 'INSERT' THEN 'new_rows' ELSE 'old_rows' END)
  LOOP
    EXECUTE format('UPDATE customers c SET %1$I = c.%1$I + x.n FROM jsonb_to_recordset($2) AS x(id uuid, n int)
                     WHERE c.merchant_id = $1 AND c.id = x.id', TG_ARGV[0]) USING r.merchant_id, r.counts;
  END LOOP;
  RETURN NULL;
END $$;

DROP TRIGGER points_transactions_counted_on_insert ON points_transactions;
DROP TRIGGER points_transactions_counted_on_delete ON points_transactions;
DROP TRIGGER activities_counted_on_insert ON activities;
DROP TRIGGER activities_counted_on_delete ON activities;
DROP FUNCTION points_transactions_count_changed();
DROP FUNCTION activities_count_changed();
CREATE TRIGGER points_transactions_counted_on_insert AFTER INSERT ON points_transactions
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION loyalty_count_customer_rows('transaction_count');
CREATE TRIGGER points_transactions_counted_on_delete AFTER DELETE ON points_transactions
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION loyalty_count_customer_rows('transaction_count');
CREATE TRIGGER activities_counted_on_insert AFTER INSERT ON activities
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION loyalty_count_customer_rows('activity_count');
CREATE TRIGGER activities_counted_on_delete AFTER DELETE ON activities
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION loyalty_count_customer_rows('activity_count');

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

-- Enum conversions Citus accepts. Prisma reads enum columns back as "column"::text, in
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

-- The ledger's change as one PL/pgSQL function, delegated whole to the worker that holds the
-- merchant (`loyalty cluster distribute` registers it). The customer by id or platform id
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
