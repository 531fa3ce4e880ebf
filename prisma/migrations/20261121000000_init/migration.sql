-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "CustomerStatus" AS ENUM ('member', 'guest', 'excluded');

-- CreateEnum
CREATE TYPE "CampaignType" AS ENUM ('purchase', 'signup', 'review', 'daily_visit', 'birthday', 'anniversary', 'twitter_follow', 'twitter_share', 'instagram_follow', 'instagram_share', 'facebook_like', 'facebook_share', 'newsletter_subscribe');

-- CreateEnum
CREATE TYPE "RewardType" AS ENUM ('fixed_discount', 'percentage_discount', 'free_shipping', 'free_product', 'store_credit');

-- CreateEnum
CREATE TYPE "TransactionType" AS ENUM ('credit', 'debit');

-- CreateEnum
CREATE TYPE "TransactionSource" AS ENUM ('manual', 'earning_rule', 'redemption', 'referral', 'expiry', 'import', 'booster');

-- CreateEnum
CREATE TYPE "ActivityStatus" AS ENUM ('approved', 'pending', 'voided');

-- CreateEnum
CREATE TYPE "CustomerRewardStatus" AS ENUM ('issued', 'used', 'expired', 'cancelled');

-- CreateEnum
CREATE TYPE "TierQualification" AS ENUM ('points_earned', 'amount_spent');

-- CreateEnum
CREATE TYPE "TierWindow" AS ENUM ('lifetime', 'calendar_year', 'rolling_12_months');

-- CreateEnum
CREATE TYPE "MembershipStatus" AS ENUM ('active', 'ended');

-- CreateEnum
CREATE TYPE "MembershipSource" AS ENUM ('earned', 'manual', 'import');

-- CreateEnum
CREATE TYPE "ReferralStatus" AS ENUM ('pending', 'completed', 'rejected', 'expired');

-- CreateEnum
CREATE TYPE "ApiKeyType" AS ENUM ('full', 'read_only', 'custom');

-- CreateTable
CREATE TABLE "merchants" (
    "id" UUID NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "admin_token_hash" TEXT,
    "admin_token_prefix" TEXT,
    "points_expiry_days" INTEGER,
    "currency" TEXT NOT NULL DEFAULT 'USD',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "merchants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "type" "ApiKeyType" NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "scopes" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "customers" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "platform_id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "first_name" TEXT,
    "last_name" TEXT,
    "status" "CustomerStatus" NOT NULL DEFAULT 'member',
    "points_balance" INTEGER NOT NULL DEFAULT 0,
    "points_earned" INTEGER NOT NULL DEFAULT 0,
    "points_spent" INTEGER NOT NULL DEFAULT 0,
    "amount_spent" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "tier_id" UUID,
    "referral_code" TEXT NOT NULL,
    "birthday" DATE,
    "last_activity_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "customers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "points_transactions" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "customer_id" UUID NOT NULL,
    "points" INTEGER NOT NULL,
    "type" "TransactionType" NOT NULL,
    "description" TEXT NOT NULL,
    "source" "TransactionSource" NOT NULL,
    "balance_after" INTEGER NOT NULL,
    "reference_kind" TEXT,
    "reference_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "points_transactions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "activities" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "customer_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "points_change" INTEGER NOT NULL DEFAULT 0,
    "balance_after" INTEGER,
    "status" "ActivityStatus" NOT NULL DEFAULT 'approved',
    "reference_kind" TEXT,
    "reference_id" TEXT,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "activities_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rewards" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "reward_type" "RewardType" NOT NULL,
    "points_cost" INTEGER NOT NULL,
    "reward_rule" JSONB NOT NULL,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "rewards_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "customer_rewards" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "customer_id" UUID NOT NULL,
    "reward_id" UUID NOT NULL,
    "code" TEXT NOT NULL,
    "status" "CustomerRewardStatus" NOT NULL DEFAULT 'issued',
    "points_spent" INTEGER NOT NULL,
    "issued_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3),
    "used_at" TIMESTAMPTZ(3),

    CONSTRAINT "customer_rewards_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "earning_rules" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "campaign_type" "CampaignType" NOT NULL,
    "earning_rule" JSONB,
    "conditions" JSONB,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "earning_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tiers" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "position" INTEGER NOT NULL,
    "threshold" INTEGER NOT NULL,
    "qualification" "TierQualification" NOT NULL DEFAULT 'points_earned',
    "window" "TierWindow" NOT NULL DEFAULT 'lifetime',
    "earn_multiplier" DECIMAL(6,3) NOT NULL DEFAULT 1,
    "benefits" TEXT[],
    "is_default" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tiers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tier_memberships" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "customer_id" UUID NOT NULL,
    "tier_id" UUID NOT NULL,
    "status" "MembershipStatus" NOT NULL DEFAULT 'active',
    "source" "MembershipSource" NOT NULL DEFAULT 'earned',
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ended_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3),

    CONSTRAINT "tier_memberships_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "referrals" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "referrer_id" UUID NOT NULL,
    "referee_email" TEXT NOT NULL,
    "referee_id" UUID,
    "status" "ReferralStatus" NOT NULL DEFAULT 'pending',
    "referrer_points" INTEGER,
    "order_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "referrals_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "referral_programs" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "referrer_points" INTEGER NOT NULL,
    "referee_reward_type" "RewardType" NOT NULL,
    "referee_reward_rule" JSONB NOT NULL,
    "min_order_subtotal" DECIMAL(14,2),
    "share_url_template" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "referral_programs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "booster_campaigns" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "multiplier" DECIMAL(6,3) NOT NULL,
    "campaign_types" "CampaignType"[],
    "starts_at" TIMESTAMPTZ(3) NOT NULL,
    "ends_at" TIMESTAMPTZ(3),
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "booster_campaigns_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "orders" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "platform_order_id" TEXT NOT NULL,
    "customer_id" UUID NOT NULL,
    "subtotal" DECIMAL(14,2) NOT NULL,
    "currency" TEXT NOT NULL,
    "points_awarded" INTEGER NOT NULL DEFAULT 0,
    "points_clawed_back" INTEGER NOT NULL DEFAULT 0,
    "placed_at" TIMESTAMPTZ(3) NOT NULL,
    "refunded_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "orders_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "engine_events" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "event_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "result" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "engine_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "merchants_slug_key" ON "merchants"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "merchants_admin_token_hash_key" ON "merchants"("admin_token_hash");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys"("hash");

-- CreateIndex
CREATE INDEX "api_keys_merchant_id_created_at_idx" ON "api_keys"("merchant_id", "created_at");

-- CreateIndex
CREATE INDEX "customers_merchant_id_created_at_idx" ON "customers"("merchant_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "customers_merchant_id_platform_id_key" ON "customers"("merchant_id", "platform_id");

-- CreateIndex
CREATE UNIQUE INDEX "customers_merchant_id_email_key" ON "customers"("merchant_id", "email");

-- CreateIndex
CREATE UNIQUE INDEX "customers_merchant_id_referral_code_key" ON "customers"("merchant_id", "referral_code");

-- CreateIndex
CREATE INDEX "points_transactions_merchant_id_customer_id_created_at_idx" ON "points_transactions"("merchant_id", "customer_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "activities_merchant_id_customer_id_occurred_at_idx" ON "activities"("merchant_id", "customer_id", "occurred_at" DESC);

-- CreateIndex
CREATE INDEX "rewards_merchant_id_is_active_created_at_idx" ON "rewards"("merchant_id", "is_active", "created_at" DESC);

-- CreateIndex
CREATE INDEX "customer_rewards_merchant_id_customer_id_issued_at_idx" ON "customer_rewards"("merchant_id", "customer_id", "issued_at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "customer_rewards_merchant_id_code_key" ON "customer_rewards"("merchant_id", "code");

-- CreateIndex
CREATE INDEX "earning_rules_merchant_id_is_active_created_at_idx" ON "earning_rules"("merchant_id", "is_active", "created_at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "tiers_merchant_id_position_key" ON "tiers"("merchant_id", "position");

-- CreateIndex
CREATE INDEX "tier_memberships_merchant_id_customer_id_started_at_idx" ON "tier_memberships"("merchant_id", "customer_id", "started_at" DESC);

-- CreateIndex
CREATE INDEX "referrals_merchant_id_referrer_id_created_at_idx" ON "referrals"("merchant_id", "referrer_id", "created_at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "referrals_merchant_id_referee_email_key" ON "referrals"("merchant_id", "referee_email");

-- CreateIndex
CREATE UNIQUE INDEX "referral_programs_merchant_id_key" ON "referral_programs"("merchant_id");

-- CreateIndex
CREATE INDEX "booster_campaigns_merchant_id_is_active_starts_at_idx" ON "booster_campaigns"("merchant_id", "is_active", "starts_at");

-- CreateIndex
CREATE INDEX "orders_merchant_id_customer_id_placed_at_idx" ON "orders"("merchant_id", "customer_id", "placed_at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "orders_merchant_id_platform_order_id_key" ON "orders"("merchant_id", "platform_order_id");

-- CreateIndex
CREATE UNIQUE INDEX "engine_events_merchant_id_event_id_key" ON "engine_events"("merchant_id", "event_id");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customers" ADD CONSTRAINT "customers_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customers" ADD CONSTRAINT "customers_tier_id_fkey" FOREIGN KEY ("tier_id") REFERENCES "tiers"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "points_transactions" ADD CONSTRAINT "points_transactions_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "points_transactions" ADD CONSTRAINT "points_transactions_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "activities" ADD CONSTRAINT "activities_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "activities" ADD CONSTRAINT "activities_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "rewards" ADD CONSTRAINT "rewards_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customer_rewards" ADD CONSTRAINT "customer_rewards_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customer_rewards" ADD CONSTRAINT "customer_rewards_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customer_rewards" ADD CONSTRAINT "customer_rewards_reward_id_fkey" FOREIGN KEY ("reward_id") REFERENCES "rewards"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "earning_rules" ADD CONSTRAINT "earning_rules_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tiers" ADD CONSTRAINT "tiers_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tier_memberships" ADD CONSTRAINT "tier_memberships_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tier_memberships" ADD CONSTRAINT "tier_memberships_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tier_memberships" ADD CONSTRAINT "tier_memberships_tier_id_fkey" FOREIGN KEY ("tier_id") REFERENCES "tiers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "referrals" ADD CONSTRAINT "referrals_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "referrals" ADD CONSTRAINT "referrals_referrer_id_fkey" FOREIGN KEY ("referrer_id") REFERENCES "customers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "referrals" ADD CONSTRAINT "referrals_referee_id_fkey" FOREIGN KEY ("referee_id") REFERENCES "customers"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "referral_programs" ADD CONSTRAINT "referral_programs_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "booster_campaigns" ADD CONSTRAINT "booster_campaigns_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "orders" ADD CONSTRAINT "orders_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "orders" ADD CONSTRAINT "orders_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "engine_events" ADD CONSTRAINT "engine_events_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Points are money: a balance can never go negative, even through a bug.
ALTER TABLE "customers" ADD CONSTRAINT "customers_points_balance_non_negative" CHECK ("points_balance" >= 0);
