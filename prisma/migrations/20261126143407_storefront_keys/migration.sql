-- CreateTable
CREATE TABLE "storefront_keys" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "storefront_keys_pkey" PRIMARY KEY ("merchant_id","id")
);

-- CreateIndex
CREATE INDEX "storefront_keys_merchant_id_created_at_idx" ON "storefront_keys"("merchant_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "storefront_keys_merchant_id_key_key" ON "storefront_keys"("merchant_id", "key");

-- AddForeignKey
ALTER TABLE "storefront_keys" ADD CONSTRAINT "storefront_keys_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;
