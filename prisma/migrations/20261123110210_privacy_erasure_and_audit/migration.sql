-- AlterTable
ALTER TABLE "customers" ADD COLUMN     "erased_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "audit_entries" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "resource_type" TEXT,
    "resource_id" TEXT,
    "args" JSONB,
    "before" JSONB,
    "after" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_entries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "audit_entries_merchant_id_created_at_idx" ON "audit_entries"("merchant_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "audit_entries_merchant_id_resource_id_idx" ON "audit_entries"("merchant_id", "resource_id");

-- AddForeignKey
ALTER TABLE "audit_entries" ADD CONSTRAINT "audit_entries_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
