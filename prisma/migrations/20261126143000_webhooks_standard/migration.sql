-- AlterTable
ALTER TABLE "webhook_endpoints" ADD COLUMN     "previous_secret" TEXT,
ADD COLUMN     "previous_secret_expires_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "webhook_deliveries" ADD COLUMN     "retry_at" TIMESTAMPTZ(3);

-- Trigger DDL on a Citus cluster's distributed tables needs this (their triggers then fire
-- without it); plain PostgreSQL keeps it as a placeholder setting for this transaction.
SET LOCAL citus.enable_unsafe_triggers = on;

-- Every event body names its schema version ("version": 1; src/domain/webhooks/event-types.ts
-- describes each type's body at that version). Bodies already written keep their bytes.
CREATE OR REPLACE FUNCTION "loyalty_event_body"(event_id uuid, event_type text, at timestamptz, merchant uuid, data jsonb)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object('id', event_id, 'type', event_type, 'version', 1, 'created_at', loyalty_iso(at),
                            'merchant_id', merchant, 'data', data)::text
$$;

-- customer.updated: a customer's profile fields or status changed. Per row, behind a WHEN that
-- compares them: the ledger rewrites the customer row (balance, counters) with every points
-- change, and those updates must not run a trigger function at all; an UPDATE that changes none
-- of these fields raises nothing. An erasure raises customer.erased instead (below).
CREATE FUNCTION customers_emit_updated() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;
CREATE TRIGGER customers_updated_outbox AFTER UPDATE ON customers
  -- one IS DISTINCT FROM per field, not of two row values: PostgreSQL would store that as nested
  -- ORs, and the trigger `loyalty cluster distribute` creates again from its definition would differ
  FOR EACH ROW WHEN (NEW.erased_at IS NULL AND (OLD.platform_id IS DISTINCT FROM NEW.platform_id
    OR OLD.email IS DISTINCT FROM NEW.email OR OLD.first_name IS DISTINCT FROM NEW.first_name
    OR OLD.last_name IS DISTINCT FROM NEW.last_name OR OLD.status IS DISTINCT FROM NEW.status
    OR OLD.birthday IS DISTINCT FROM NEW.birthday OR OLD.referral_code IS DISTINCT FROM NEW.referral_code))
  EXECUTE FUNCTION customers_emit_updated();

-- customer.erased: the moment a privacy erasure takes the customer's personal data out. Ids
-- only: the event must not carry what the erasure removes.
CREATE FUNCTION customers_emit_erased() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM loyalty_emit_event(NEW.merchant_id, 'customer.erased', jsonb_build_object(
    'id', NEW.id, 'erased_at', loyalty_iso(NEW.erased_at)));
  RETURN NULL;
END $$;
CREATE TRIGGER customers_erased_outbox AFTER UPDATE OF erased_at ON customers
  FOR EACH ROW WHEN (OLD.erased_at IS NULL AND NEW.erased_at IS NOT NULL)
  EXECUTE FUNCTION customers_emit_erased();
