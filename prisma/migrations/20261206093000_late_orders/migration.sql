-- Orders and activities recorded after they happened (docs/admin.md, "Late orders and activities"):
-- the ledger keeps when what moved the points happened (placed_at) beside when it posted them
-- (created_at); the program keeps its history (program_versions), so an order recorded late is
-- judged by the program in force when it was placed; a merchant sets how late an order may still
-- earn (late_earning_days); orders imported as history are marked.

-- AlterTable
ALTER TABLE "merchants" ADD COLUMN     "late_earning_days" INTEGER NOT NULL DEFAULT 365;

-- AlterTable: the rows so far happened when they were posted
ALTER TABLE "points_transactions" ADD COLUMN     "placed_at" TIMESTAMPTZ(3);
UPDATE "points_transactions" SET "placed_at" = "created_at";
ALTER TABLE "points_transactions" ALTER COLUMN "placed_at" SET NOT NULL,
ALTER COLUMN "placed_at" SET DEFAULT CURRENT_TIMESTAMP;

-- AlterTable
ALTER TABLE "orders" ADD COLUMN     "history" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "program_versions" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "record_id" UUID NOT NULL,
    "valid_from" TIMESTAMPTZ(3) NOT NULL,
    "written_at" TIMESTAMPTZ(6) NOT NULL DEFAULT clock_timestamp(),
    "record" JSONB NOT NULL,

    CONSTRAINT "program_versions_pkey" PRIMARY KEY ("merchant_id","id")
);

-- CreateIndex
CREATE INDEX "program_versions_merchant_id_kind_record_id_valid_from_idx" ON "program_versions"("merchant_id", "kind", "record_id", "valid_from");

-- CreateIndex
CREATE INDEX "orders_merchant_id_placed_at_idx" ON "orders"("merchant_id", "placed_at");

-- distributed beside the program it records (see ended_customer_sessions)
SELECT loyalty_distribute_beside_customers('program_versions');

-- AddForeignKey
ALTER TABLE "program_versions" ADD CONSTRAINT "program_versions_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- Trigger DDL on a Citus cluster's distributed tables needs this (their triggers then fire
-- without it); plain PostgreSQL keeps it as a placeholder setting for this transaction.
SET LOCAL citus.enable_unsafe_triggers = on;

-- A revision per created or changed row: the row as it then stood, in force from the change's
-- transaction time, or from a created row's created_at when that is earlier (an import dates a
-- record's creation in the system it came from). The table's name is the trigger's argument: on
-- a shard TG_TABLE_NAME names the shard. Records are never deleted (only deactivated).
CREATE FUNCTION loyalty_program_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO program_versions (id, merchant_id, kind, record_id, valid_from, record)
  VALUES (gen_random_uuid(), NEW.merchant_id, TG_ARGV[0], NEW.id,
          CASE WHEN TG_OP = 'INSERT' THEN least(NEW.created_at, now()) ELSE now() END, to_jsonb(NEW));
  RETURN NULL;
END $$;

CREATE TRIGGER earning_rules_versioned AFTER INSERT OR UPDATE ON earning_rules
  FOR EACH ROW EXECUTE FUNCTION loyalty_program_version('earning_rules');
CREATE TRIGGER booster_campaigns_versioned AFTER INSERT OR UPDATE ON booster_campaigns
  FOR EACH ROW EXECUTE FUNCTION loyalty_program_version('booster_campaigns');
CREATE TRIGGER tiers_versioned AFTER INSERT OR UPDATE ON tiers
  FOR EACH ROW EXECUTE FUNCTION loyalty_program_version('tiers');

-- the program so far: each record as it stands, from its creation (its earlier edits are not known)
INSERT INTO program_versions (id, merchant_id, kind, record_id, valid_from, record)
SELECT gen_random_uuid(), merchant_id, 'earning_rules', id, created_at, to_jsonb(r) FROM earning_rules r;
INSERT INTO program_versions (id, merchant_id, kind, record_id, valid_from, record)
SELECT gen_random_uuid(), merchant_id, 'booster_campaigns', id, created_at, to_jsonb(b) FROM booster_campaigns b;
INSERT INTO program_versions (id, merchant_id, kind, record_id, valid_from, record)
SELECT gen_random_uuid(), merchant_id, 'tiers', id, created_at, to_jsonb(t) FROM tiers t;

-- The ledger's change (migration merchant_scoped_keys) with one more argument, p_placed_at: when
-- what moves the points happened, kept on the transaction and as its activity's occurred_at
-- (default: now). Only that differs; a new argument needs DROP and CREATE, and `loyalty
-- cluster distribute` (run by migrate on a cluster) delegates the new function again.
DROP FUNCTION loyalty_apply_points(uuid, uuid, text, int, int, uuid, "TransactionType", text, "TransactionSource", text, text, uuid, text, text, text, uuid);
CREATE FUNCTION loyalty_apply_points(
  p_merchant uuid, p_customer uuid, p_platform_id text, p_points int, p_max int,
  p_transaction_id uuid, p_type "TransactionType", p_description text, p_source "TransactionSource",
  p_reference_kind text, p_reference_id text,
  p_activity_id uuid, p_activity_type text, p_activity_reference_kind text, p_activity_reference_id text,
  p_approves uuid DEFAULT NULL, p_placed_at timestamptz DEFAULT NULL,
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
    (id, merchant_id, customer_id, points, type, description, source, balance_after, reference_kind, reference_id, placed_at)
  VALUES (p_transaction_id, p_merchant, v_customer, p_points, p_type, p_description, p_source, v_balance,
          p_reference_kind, p_reference_id, coalesce(p_placed_at, now()));
  IF p_approves IS NULL THEN
    INSERT INTO activities
      (id, merchant_id, customer_id, type, description, points_change, balance_after, status,
       reference_kind, reference_id, occurred_at, created_at)
    VALUES (p_activity_id, p_merchant, v_customer, p_activity_type, p_description, p_points, v_balance, 'approved',
            p_activity_reference_kind, p_activity_reference_id, coalesce(p_placed_at, now()), now());
    activity_id := p_activity_id;
  ELSE
    UPDATE activities a SET status = 'approved', balance_after = v_balance
     WHERE a.merchant_id = p_merchant AND a.id = p_approves;
    activity_id := p_approves;
  END IF;
  balance_after := v_balance;
END $$;

-- points.credited / points.debited (migration merchant_scoped_keys) with the transaction's
-- placed_at: a field added, so the bodies stay at version 1 (webhooks/event-types.ts).
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
               'placed_at', loyalty_iso(placed_at), 'created_at', loyalty_iso(created_at)) AS data, 0 AS rank, created_at, id AS row_id
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
