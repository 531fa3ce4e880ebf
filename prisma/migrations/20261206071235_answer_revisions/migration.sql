-- The revisions a cached storefront answer is kept under (src/http/plugins/response-cache.ts):
-- one per customer, one per merchant row and one per merchant's program. Each changes in the
-- transaction of every write that can change what a storefront is answered, so an answer cached
-- under the revisions read before it was computed is never served once they moved, on any
-- instance. Where a write already rewrites the customer's row (the ledger, tier changes,
-- profile edits, erasure, orders, and every activity or transaction added or removed, which the
-- row counts) its BEFORE trigger moves the revision without a statement of its own; the other
-- writes get a trigger each, none of them on the ledger function's path.
-- AlterTable
ALTER TABLE "merchants" ADD COLUMN     "revision" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "customers" ADD COLUMN     "revision" BIGINT NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "program_revisions" (
    "merchant_id" UUID NOT NULL,
    "revision" BIGINT NOT NULL,

    CONSTRAINT "program_revisions_pkey" PRIMARY KEY ("merchant_id")
);

-- distributed beside the program tables whose triggers write it (see ended_customer_sessions)
SELECT loyalty_distribute_beside_customers('program_revisions');

-- AddForeignKey
ALTER TABLE "program_revisions" ADD CONSTRAINT "program_revisions_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- Trigger DDL on a Citus cluster's distributed tables needs this (their triggers then fire
-- without it); plain PostgreSQL keeps it as a placeholder setting for this transaction.
SET LOCAL citus.enable_unsafe_triggers = on;

-- Every update of a customer's or a merchant's row moves its revision: no statement, the value
-- is set on the row being written. On the merchants reference table every placement computes
-- the same value.
CREATE FUNCTION loyalty_revise_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.revision := OLD.revision + 1;
  RETURN NEW;
END $$;
CREATE TRIGGER customers_revised BEFORE UPDATE ON customers FOR EACH ROW EXECUTE FUNCTION loyalty_revise_row();
CREATE TRIGGER merchants_revised BEFORE UPDATE ON merchants FOR EACH ROW EXECUTE FUNCTION loyalty_revise_row();

-- A customer's records that change without its row: the customer named by the column the
-- trigger's argument names (old and new row) is rewritten, which moves its revision.
CREATE FUNCTION loyalty_revise_customer() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE m uuid; c uuid;
BEGIN
  FOR m, c IN SELECT DISTINCT (r ->> 'merchant_id')::uuid, (r ->> TG_ARGV[0])::uuid
                FROM (VALUES (to_jsonb(OLD)), (to_jsonb(NEW))) AS v(r) WHERE r IS NOT NULL LOOP
    UPDATE customers SET revision = revision + 1 WHERE merchant_id = m AND id = c;
  END LOOP;
  RETURN NULL;
END $$;
-- the referrals a customer made (recorded, completed, rejected, a referee's email erased)
CREATE TRIGGER referrals_revise_referrer AFTER INSERT OR UPDATE OR DELETE ON referrals
  FOR EACH ROW EXECUTE FUNCTION loyalty_revise_customer('referrer_id');
-- pending points voided by a refund (approval is the ledger's, which rewrites the row itself)
CREATE TRIGGER activities_revise_on_void AFTER UPDATE OF status ON activities
  FOR EACH ROW WHEN (NEW.status = 'voided' AND OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION loyalty_revise_customer('customer_id');

-- A referral shows its referee's platform id (referral-records.ts): a change of it (an edit, an
-- erasure) moves the revisions of the customers who referred them.
CREATE FUNCTION customers_revise_referrers() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE customers c SET revision = c.revision + 1
    FROM referrals r
   WHERE r.merchant_id = NEW.merchant_id AND r.referee_id = NEW.id
     AND c.merchant_id = NEW.merchant_id AND c.id = r.referrer_id;
  RETURN NULL;
END $$;
CREATE TRIGGER customers_revise_referrers AFTER UPDATE OF platform_id ON customers
  FOR EACH ROW WHEN (OLD.platform_id IS DISTINCT FROM NEW.platform_id)
  EXECUTE FUNCTION customers_revise_referrers();

-- The program's revision, per merchant, created on first use; not while the merchant itself is
-- being deleted (its program rows go with it, and a new revision row could not refer to it).
CREATE FUNCTION loyalty_revise_program() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE m uuid := CASE WHEN TG_OP = 'DELETE' THEN OLD.merchant_id ELSE NEW.merchant_id END;
BEGIN
  IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM merchants WHERE id = m) THEN
    RETURN NULL;
  END IF;
  INSERT INTO program_revisions AS p (merchant_id, revision) VALUES (m, 1)
  ON CONFLICT (merchant_id) DO UPDATE SET revision = p.revision + 1;
  RETURN NULL;
END $$;
CREATE TRIGGER rewards_revise_program AFTER INSERT OR UPDATE OR DELETE ON rewards
  FOR EACH ROW EXECUTE FUNCTION loyalty_revise_program();
CREATE TRIGGER tiers_revise_program AFTER INSERT OR UPDATE OR DELETE ON tiers
  FOR EACH ROW EXECUTE FUNCTION loyalty_revise_program();
CREATE TRIGGER earning_rules_revise_program AFTER INSERT OR UPDATE OR DELETE ON earning_rules
  FOR EACH ROW EXECUTE FUNCTION loyalty_revise_program();
CREATE TRIGGER booster_campaigns_revise_program AFTER INSERT OR UPDATE OR DELETE ON booster_campaigns
  FOR EACH ROW EXECUTE FUNCTION loyalty_revise_program();
CREATE TRIGGER referral_programs_revise_program AFTER INSERT OR UPDATE OR DELETE ON referral_programs
  FOR EACH ROW EXECUTE FUNCTION loyalty_revise_program();
