-- AlterTable
ALTER TABLE "orders" ADD COLUMN     "refunded_amount" DECIMAL(14,2) NOT NULL DEFAULT 0;

-- Orders refunded before this column existed: a full refund is the whole subtotal.
UPDATE "orders" SET "refunded_amount" = "subtotal" WHERE "refunded_at" IS NOT NULL;
