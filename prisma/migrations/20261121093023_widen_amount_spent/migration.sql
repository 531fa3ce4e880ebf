-- AlterTable
ALTER TABLE "customers" ALTER COLUMN "amount_spent" SET DATA TYPE DECIMAL(18,2);
