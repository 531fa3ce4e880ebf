-- The redemption rate estimated by the job (src/domain/finance/rate-estimates.ts), one row per
-- run, read by the valuation instead of the whole ledger.
-- CreateTable
CREATE TABLE "redemption_rate_estimates" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "as_of" TIMESTAMPTZ(3) NOT NULL,
    "computed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "points_redeemed" BIGINT NOT NULL,
    "points_ended" BIGINT NOT NULL,
    "cohorts" TEXT[],

    CONSTRAINT "redemption_rate_estimates_pkey" PRIMARY KEY ("merchant_id","id")
);

-- CreateIndex
CREATE INDEX "redemption_rate_estimates_merchant_id_computed_at_idx" ON "redemption_rate_estimates"("merchant_id", "computed_at");

-- distributed beside the ledger it is estimated from (see ended_customer_sessions)
SELECT loyalty_distribute_beside_customers('redemption_rate_estimates');

-- redeemed points are some of the points that ended
ALTER TABLE "redemption_rate_estimates" ADD CONSTRAINT "redemption_rate_estimates_points_check" CHECK (points_redeemed >= 0 AND points_redeemed <= points_ended);

-- AddForeignKey
ALTER TABLE "redemption_rate_estimates" ADD CONSTRAINT "redemption_rate_estimates_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;
