-- CreateTable
CREATE TABLE "admin_sessions" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "id_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "admin_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "admin_sessions_id_hash_key" ON "admin_sessions"("id_hash");

-- CreateIndex
CREATE INDEX "admin_sessions_merchant_id_idx" ON "admin_sessions"("merchant_id");

-- CreateIndex
CREATE INDEX "admin_sessions_expires_at_idx" ON "admin_sessions"("expires_at");

-- CreateIndex
CREATE INDEX "customers_merchant_id_tier_id_idx" ON "customers"("merchant_id", "tier_id");

-- CreateIndex (covering: the dashboard sums points by type and source over a time range with an
-- index-only scan; INCLUDE is not expressible in schema.prisma, so it is written here)
CREATE INDEX "points_transactions_merchant_id_created_at_idx" ON "points_transactions"("merchant_id", "created_at") INCLUDE ("type", "source", "points");

-- CreateIndex
CREATE INDEX "customer_rewards_merchant_id_issued_at_idx" ON "customer_rewards"("merchant_id", "issued_at") INCLUDE ("reward_id", "points_spent");

-- AddForeignKey
ALTER TABLE "admin_sessions" ADD CONSTRAINT "admin_sessions_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
