-- A customer's history in the order it is listed (created_at DESC, id DESC), ids included: a
-- deep page reads the rows it skips from this index alone (an index-only scan) and only its own
-- rows from the table, and the ties by id need no sort. Replaces the index without id.

-- DropIndex
DROP INDEX "points_transactions_merchant_id_customer_id_created_at_idx";

-- CreateIndex
CREATE INDEX "points_transactions_merchant_id_customer_id_created_at_id_idx" ON "points_transactions"("merchant_id", "customer_id", "created_at" DESC, "id" DESC);
