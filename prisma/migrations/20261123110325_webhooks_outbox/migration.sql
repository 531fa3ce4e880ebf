-- CreateEnum
CREATE TYPE "WebhookDeliveryStatus" AS ENUM ('pending', 'succeeded', 'failed', 'cancelled');

-- CreateTable
CREATE TABLE "events" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "body" TEXT NOT NULL,
    "dedupe_key" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "dispatched_at" TIMESTAMPTZ(3),

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_endpoints" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "description" TEXT,
    "event_types" TEXT[],
    "secret" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "disabled_reason" TEXT,
    "disabled_at" TIMESTAMPTZ(3),
    "failing_since" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "event_id" UUID NOT NULL,
    "status" "WebhookDeliveryStatus" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "job_id" TEXT,
    "first_attempt_at" TIMESTAMPTZ(3),
    "last_attempt_at" TIMESTAMPTZ(3),
    "last_status" INTEGER,
    "last_response" TEXT,
    "delivered_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "events_merchant_id_created_at_idx" ON "events"("merchant_id", "created_at");

-- CreateIndex
CREATE INDEX "events_dispatched_at_created_at_idx" ON "events"("dispatched_at", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "events_merchant_id_dedupe_key_key" ON "events"("merchant_id", "dedupe_key");

-- CreateIndex
CREATE INDEX "webhook_endpoints_merchant_id_created_at_idx" ON "webhook_endpoints"("merchant_id", "created_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_merchant_id_endpoint_id_created_at_idx" ON "webhook_deliveries"("merchant_id", "endpoint_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_job_id_idx" ON "webhook_deliveries"("status", "job_id");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_endpoint_id_event_id_key" ON "webhook_deliveries"("endpoint_id", "event_id");

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The outbox's writers. Every change a webhook describes writes its event from a trigger on
-- the changed table, so the event commits or rolls back with the change itself, whichever
-- code (ledger, redemption, import, tiers, referrals, a future writer) made it. The body is
-- written once here and never changes (events_immutable).
CREATE FUNCTION "loyalty_iso"(ts timestamptz) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

-- A customer as events name them: internal id, platform id (customer_id) and email.
CREATE FUNCTION "loyalty_customer_ref"(customer uuid) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object('id', c.id, 'customer_id', c.platform_id, 'email', c.email)
    FROM customers c WHERE c.id = customer
$$;

CREATE FUNCTION "loyalty_emit_event"(merchant uuid, event_type text, data jsonb, dedupe text DEFAULT NULL)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  event_id uuid := gen_random_uuid();
  at timestamptz := now();
BEGIN
  INSERT INTO events (id, merchant_id, type, payload, body, dedupe_key, created_at)
  VALUES (event_id, merchant, event_type, data,
          jsonb_build_object('id', event_id, 'type', event_type, 'created_at', loyalty_iso(at),
                             'merchant_id', merchant, 'data', data)::text,
          dedupe, at)
  ON CONFLICT (merchant_id, dedupe_key) DO NOTHING;
END $$;

CREATE FUNCTION "events_reject_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.id <> OLD.id OR NEW.merchant_id <> OLD.merchant_id OR NEW.type <> OLD.type
     OR NEW.body <> OLD.body OR NEW.payload <> OLD.payload OR NEW.created_at <> OLD.created_at THEN
    RAISE EXCEPTION 'events are immutable (only dispatched_at changes)';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER "events_immutable" BEFORE UPDATE ON "events"
  FOR EACH ROW EXECUTE FUNCTION "events_reject_change"();

-- points.credited / points.debited for every ledger row; points.expired too for expiry.
CREATE FUNCTION "points_transactions_emit"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  customer jsonb := loyalty_customer_ref(NEW.customer_id);
BEGIN
  PERFORM loyalty_emit_event(NEW.merchant_id,
    CASE WHEN NEW.points >= 0 THEN 'points.credited' ELSE 'points.debited' END,
    jsonb_build_object(
      'transaction_id', NEW.id, 'customer', customer, 'points', NEW.points, 'type', NEW.type,
      'description', NEW.description, 'source', NEW.source, 'balance_after', NEW.balance_after,
      'reference', CASE WHEN NEW.reference_kind IS NULL THEN NULL
                        ELSE jsonb_build_object('kind', NEW.reference_kind, 'id', NEW.reference_id) END,
      'created_at', loyalty_iso(NEW.created_at)));
  IF NEW.source = 'expiry' AND NEW.points < 0 THEN
    PERFORM loyalty_emit_event(NEW.merchant_id, 'points.expired', jsonb_build_object(
      'transaction_id', NEW.id, 'customer', customer, 'points', -NEW.points,
      'balance_after', NEW.balance_after, 'expired_at', loyalty_iso(NEW.created_at)));
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "points_transactions_outbox" AFTER INSERT ON "points_transactions"
  FOR EACH ROW EXECUTE FUNCTION "points_transactions_emit"();

-- reward.redeemed: a customer reward bought with points (not one given away, e.g. a referee's).
CREATE FUNCTION "customer_rewards_emit"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM loyalty_emit_event(NEW.merchant_id, 'reward.redeemed', jsonb_build_object(
    'id', NEW.id, 'customer', loyalty_customer_ref(NEW.customer_id),
    'reward', (SELECT jsonb_build_object('id', r.id, 'name', r.name, 'reward_type', r.reward_type)
                 FROM rewards r WHERE r.id = NEW.reward_id),
    'code', NEW.code, 'status', NEW.status, 'points_spent', NEW.points_spent,
    'issued_at', loyalty_iso(NEW.issued_at), 'expires_at', loyalty_iso(NEW.expires_at)));
  RETURN NULL;
END $$;
CREATE TRIGGER "customer_rewards_outbox" AFTER INSERT ON "customer_rewards"
  FOR EACH ROW WHEN (NEW.points_spent > 0) EXECUTE FUNCTION "customer_rewards_emit"();

-- tier.changed: every new membership, with the tier it replaced.
CREATE FUNCTION "tier_memberships_emit"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM loyalty_emit_event(NEW.merchant_id, 'tier.changed', jsonb_build_object(
    'membership_id', NEW.id, 'customer', loyalty_customer_ref(NEW.customer_id),
    'tier', (SELECT jsonb_build_object('id', t.id, 'name', t.name) FROM tiers t WHERE t.id = NEW.tier_id),
    'previous_tier', (SELECT jsonb_build_object('id', t.id, 'name', t.name)
                        FROM tier_memberships m JOIN tiers t ON t.id = m.tier_id
                       WHERE m.customer_id = NEW.customer_id AND m.id <> NEW.id AND m.ended_at IS NOT NULL
                       ORDER BY m.ended_at DESC, m.started_at DESC LIMIT 1),
    'source', NEW.source, 'started_at', loyalty_iso(NEW.started_at), 'expires_at', loyalty_iso(NEW.expires_at)));
  RETURN NULL;
END $$;
CREATE TRIGGER "tier_memberships_outbox" AFTER INSERT ON "tier_memberships"
  FOR EACH ROW WHEN (NEW.status = 'active') EXECUTE FUNCTION "tier_memberships_emit"();

-- referral.completed: the moment a referral's status becomes completed.
CREATE FUNCTION "referrals_emit"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM loyalty_emit_event(NEW.merchant_id, 'referral.completed', jsonb_build_object(
    'id', NEW.id, 'referrer', loyalty_customer_ref(NEW.referrer_id),
    'referee', loyalty_customer_ref(NEW.referee_id), 'referee_email', NEW.referee_email,
    'referrer_points', NEW.referrer_points, 'order_id', NEW.order_id,
    'created_at', loyalty_iso(NEW.created_at), 'completed_at', loyalty_iso(NEW.completed_at)));
  RETURN NULL;
END $$;
CREATE TRIGGER "referrals_outbox" AFTER UPDATE OF "status" ON "referrals"
  FOR EACH ROW WHEN (NEW.status = 'completed' AND OLD.status IS DISTINCT FROM 'completed')
  EXECUTE FUNCTION "referrals_emit"();

-- customer.created
CREATE FUNCTION "customers_emit"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM loyalty_emit_event(NEW.merchant_id, 'customer.created', jsonb_build_object(
    'id', NEW.id, 'customer_id', NEW.platform_id, 'email', NEW.email,
    'first_name', NEW.first_name, 'last_name', NEW.last_name, 'status', NEW.status,
    'birthday', to_char(NEW.birthday, 'YYYY-MM-DD'), 'referral_code', NEW.referral_code,
    'created_at', loyalty_iso(NEW.created_at)));
  RETURN NULL;
END $$;
CREATE TRIGGER "customers_outbox" AFTER INSERT ON "customers"
  FOR EACH ROW EXECUTE FUNCTION "customers_emit"();

-- the dispatcher's queue: events not yet turned into deliveries, oldest first
DROP INDEX "events_dispatched_at_created_at_idx";
CREATE INDEX "events_dispatched_at_created_at_idx" ON "events"("created_at") WHERE "dispatched_at" IS NULL;
