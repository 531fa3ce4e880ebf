-- CreateTable
CREATE TABLE "points_valuations" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "point_value" DECIMAL(18,6),
    "redemption_rate" DECIMAL(7,6),
    "effective_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "points_valuations_pkey" PRIMARY KEY ("merchant_id","id")
);

-- CreateIndex
CREATE INDEX "points_valuations_merchant_id_effective_at_idx" ON "points_valuations"("merchant_id", "effective_at");

-- a value is positive, a rate a share
ALTER TABLE "points_valuations" ADD CONSTRAINT "points_valuations_point_value_check" CHECK (point_value > 0);
ALTER TABLE "points_valuations" ADD CONSTRAINT "points_valuations_redemption_rate_check" CHECK (redemption_rate > 0 AND redemption_rate <= 1);

-- AddForeignKey
ALTER TABLE "points_valuations" ADD CONSTRAINT "points_valuations_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;
