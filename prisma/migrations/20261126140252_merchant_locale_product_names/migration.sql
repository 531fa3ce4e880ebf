-- AlterTable
ALTER TABLE "merchants" ADD COLUMN     "locale" TEXT NOT NULL DEFAULT 'en-US';

-- AlterTable
ALTER TABLE "rewards" ADD COLUMN     "product_image_url" TEXT,
ADD COLUMN     "product_name" TEXT;

-- AlterTable
ALTER TABLE "earning_rules" ADD COLUMN     "product_image_url" TEXT,
ADD COLUMN     "product_name" TEXT;
