-- AlterTable
ALTER TABLE "merchants" ADD COLUMN     "tiers_changed_at" TIMESTAMPTZ(3);
