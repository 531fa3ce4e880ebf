-- CreateIndex
CREATE INDEX "orders_merchant_id_created_at_id_idx" ON "orders"("merchant_id", "created_at", "id");
