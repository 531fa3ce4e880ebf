-- AlterTable (merchants.timezone is in the migration 20261123110222_merchant_timezone already: the
-- schema kept by 20261123110325_webhooks_outbox was made before it, so the diff repeated it)
ALTER TABLE "merchants" ADD COLUMN     "points_pending_days" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "rewards" ADD COLUMN     "referral_reward" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "tiers" ADD COLUMN     "is_active" BOOLEAN NOT NULL DEFAULT true;

-- AlterTable
ALTER TABLE "referral_programs" ADD COLUMN     "referee_reward_id" UUID;

-- AddForeignKey
ALTER TABLE "referral_programs" ADD CONSTRAINT "referral_programs_referee_reward_id_fkey" FOREIGN KEY ("referee_reward_id") REFERENCES "rewards"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- CreateIndex (partial: the approval of pending points scans only pending order activities, oldest
-- first; a WHERE clause is not expressible in schema.prisma, so it is written here)
CREATE INDEX "activities_pending_created_at_idx" ON "activities"("created_at") WHERE "status" = 'pending' AND "reference_kind" = 'order';
