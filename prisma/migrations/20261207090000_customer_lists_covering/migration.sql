-- A customer's activity log and points history are read newest first, a page at a time, from
-- their ordered indexes. With only the keys in the index, PostgreSQL costs that ordered scan of
-- a customer it cannot see (the panel's lists, beside the customer the statement finds) at the
-- table's average of a few rows: the same as a bitmap scan of all her rows and a sort, and either
-- wins by the sample ANALYZE drew; for a customer with 20,000 activities the bitmap plan reads
-- them all (10-16 ms against 0.5 ms a panel). With every column a page reads in the index, the
-- page is an index-only scan, which costs half the bitmap plan on a table autovacuum keeps (its
-- visibility map set) and reads no table page at all. Each index keeps its name and keys
-- (schema.prisma); INCLUDE is not expressible there, so it is written here.

-- DropIndex
DROP INDEX "activities_merchant_id_customer_id_occurred_at_created_at_i_idx";

-- CreateIndex
CREATE INDEX "activities_merchant_id_customer_id_occurred_at_created_at_i_idx" ON "activities"("merchant_id", "customer_id", "occurred_at" DESC, "created_at" DESC, "id" DESC)
  INCLUDE ("type", "description", "points_change", "balance_after", "status", "reference_kind", "reference_id");

-- DropIndex
DROP INDEX "points_transactions_merchant_id_customer_id_created_at_id_idx";

-- CreateIndex
CREATE INDEX "points_transactions_merchant_id_customer_id_created_at_id_idx" ON "points_transactions"("merchant_id", "customer_id", "created_at" DESC, "id" DESC)
  INCLUDE ("points", "type", "description", "source", "balance_after", "reference_kind", "reference_id", "placed_at");
