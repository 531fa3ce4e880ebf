-- A customer's codes are read newest first (issued_at DESC, id DESC), a page at a time: the
-- panel's and GET /customers/rewards. With the index ordered by issued_at alone, a page needed
-- a sort on id, and PostgreSQL costs the ordered scan of a customer it cannot see beforehand
-- (the panel finds her by platform id) at the table's average of a few rows, the same as a
-- bitmap scan of all her codes and a sort: for a customer with thousands of codes ANALYZE's
-- sample picks between them. Ordered as the page is and holding every column a page reads, the
-- page is an index-only scan of her newest codes (as the activity log's, migration
-- customer_lists_covering). A code's row is not updated once issued, so holding its status
-- and dates in the index takes no HOT update away. INCLUDE is not expressible in
-- schema.prisma, so it is written here.

-- DropIndex
DROP INDEX "customer_rewards_merchant_id_customer_id_issued_at_idx";

-- CreateIndex
CREATE INDEX "customer_rewards_merchant_id_customer_id_issued_at_id_idx" ON "customer_rewards"("merchant_id", "customer_id", "issued_at" DESC, "id" DESC)
  INCLUDE ("reward_id", "code", "status", "points_spent", "expires_at", "used_at");
