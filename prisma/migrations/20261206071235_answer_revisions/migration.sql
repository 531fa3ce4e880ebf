-- The revisions a cached storefront answer is kept under (src/http/plugins/response-cache.ts):
-- one per customer, one per merchant row and one per merchant's program. Each changes in the
-- transaction of every write that can change what a storefront is answered, so an answer cached
-- under the revisions read before it was computed is never served once they moved, on any
-- instance. Where a write rewrites the customer's row in its transaction (the ledger and so
-- redemptions, expiry and approvals; tier changes with their memberships; profile edits and
-- erasure; orders and refunds with the pending points they void; every activity or transaction
-- added or removed, which the row counts) its BEFORE trigger moves the revision without a
-- statement of its own. The writes that leave the row alone get a trigger each: a referral (the
-- referrer's), a referee's platform id (its referrers'), the program tables. None is on the
-- ledger function's path. test/cache/exact-answers.test.ts fails without any one of them.
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

-- The referrals a customer made (recorded, completed, rejected, a referee's email erased) change
-- without the referrer's row: it is rewritten, which moves its revision.
CREATE FUNCTION referrals_revise_referrer() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE customers SET revision = revision + 1 WHERE merchant_id = OLD.merchant_id AND id = OLD.referrer_id;
  END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.referrer_id IS DISTINCT FROM OLD.referrer_id) THEN
    UPDATE customers SET revision = revision + 1 WHERE merchant_id = NEW.merchant_id AND id = NEW.referrer_id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER referrals_revise_referrer AFTER INSERT OR UPDATE OR DELETE ON referrals
  FOR EACH ROW EXECUTE FUNCTION referrals_revise_referrer();

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
