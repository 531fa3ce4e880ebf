-- CreateEnum
CREATE TYPE "ReferralParty" AS ENUM ('referrer', 'referee');

-- CreateEnum
CREATE TYPE "ReferralReview" AS ENUM ('approved', 'rejected');

-- AlterEnum
ALTER TYPE "ReferralStatus" ADD VALUE 'held';

-- AlterTable
ALTER TABLE "referrals" ADD COLUMN     "client_ip" TEXT,
ADD COLUMN     "device_id" TEXT,
ADD COLUMN     "held_at" TIMESTAMPTZ(3),
ADD COLUMN     "payment_fingerprint" TEXT,
ADD COLUMN     "registered_by" "ReferralParty" NOT NULL DEFAULT 'referee',
ADD COLUMN     "review" "ReferralReview",
ADD COLUMN     "reviewed_at" TIMESTAMPTZ(3),
ADD COLUMN     "shipping_address_hash" TEXT,
ADD COLUMN     "signals" JSONB NOT NULL DEFAULT '[]';

-- AlterTable
ALTER TABLE "referral_programs" ADD COLUMN     "fraud_checks" JSONB;

-- AlterTable
ALTER TABLE "orders" ADD COLUMN     "client_ip" TEXT,
ADD COLUMN     "device_id" TEXT,
ADD COLUMN     "payment_fingerprint" TEXT,
ADD COLUMN     "shipping_address_hash" TEXT;

-- CreateIndex
CREATE INDEX "referrals_merchant_id_client_ip_created_at_idx" ON "referrals"("merchant_id", "client_ip", "created_at");

-- CreateIndex
CREATE INDEX "referrals_merchant_id_status_created_at_idx" ON "referrals"("merchant_id", "status", "created_at" DESC);

-- The two casts Citus accepts, for each new enum (migration merchant_scoped_keys says why).
CREATE FUNCTION loyalty_referralparty_to_text("ReferralParty") RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT
  AS $f$ BEGIN RETURN textin(enum_out($1)); END $f$;
CREATE CAST ("ReferralParty" AS text) WITH FUNCTION loyalty_referralparty_to_text("ReferralParty");
CREATE FUNCTION loyalty_text_to_referralparty(text) RETURNS "ReferralParty" LANGUAGE plpgsql IMMUTABLE STRICT
  AS $f$ BEGIN RETURN enum_in(textout($1), '"ReferralParty"'::regtype); END $f$;
CREATE CAST (text AS "ReferralParty") WITH FUNCTION loyalty_text_to_referralparty(text);

CREATE FUNCTION loyalty_referralreview_to_text("ReferralReview") RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT
  AS $f$ BEGIN RETURN textin(enum_out($1)); END $f$;
CREATE CAST ("ReferralReview" AS text) WITH FUNCTION loyalty_referralreview_to_text("ReferralReview");
CREATE FUNCTION loyalty_text_to_referralreview(text) RETURNS "ReferralReview" LANGUAGE plpgsql IMMUTABLE STRICT
  AS $f$ BEGIN RETURN enum_in(textout($1), '"ReferralReview"'::regtype); END $f$;
CREATE CAST (text AS "ReferralReview") WITH FUNCTION loyalty_text_to_referralreview(text);
