-- An Idempotency-Key belongs to its merchant (as at Stripe, per account): two merchants may use
-- the same key. Existing rows keep their keys, which were unique across merchants.

-- AlterTable
ALTER TABLE "idempotency_keys" DROP CONSTRAINT "idempotency_keys_pkey",
ADD CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("merchant_id", "key");
