-- A customer's activity log gets what the transaction history got (migrations
-- customer_transaction_count and transaction_history_index): its total from a counter the
-- database keeps, and an index in the order it is listed, ids included, so a deep page skips
-- rows in the index alone.

-- DropIndex
DROP INDEX "activities_merchant_id_customer_id_occurred_at_idx";

-- AlterTable
ALTER TABLE "customers" ADD COLUMN     "activity_count" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "activities_merchant_id_customer_id_occurred_at_created_at_i_idx" ON "activities"("merchant_id", "customer_id", "occurred_at" DESC, "created_at" DESC, "id" DESC);

UPDATE "customers" c SET "activity_count" = a.count
  FROM (SELECT "customer_id", count(*) AS count FROM "activities" GROUP BY "customer_id") a
 WHERE c."id" = a."customer_id";

-- Statement-level, in the writer's own transaction, as points_transactions_count_changed.
CREATE FUNCTION "activities_count_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE "customers" c SET "activity_count" = c."activity_count" + n.count
      FROM (SELECT "customer_id", count(*) AS count FROM new_rows GROUP BY "customer_id") n
     WHERE c."id" = n."customer_id";
  ELSE
    UPDATE "customers" c SET "activity_count" = c."activity_count" - o.count
      FROM (SELECT "customer_id", count(*) AS count FROM old_rows GROUP BY "customer_id") o
     WHERE c."id" = o."customer_id";
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "activities_counted_on_insert" AFTER INSERT ON "activities"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "activities_count_changed"();
CREATE TRIGGER "activities_counted_on_delete" AFTER DELETE ON "activities"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "activities_count_changed"();
