-- AlterTable
ALTER TABLE "customers" ADD COLUMN     "transaction_count" INTEGER NOT NULL DEFAULT 0;

-- Each customer's number of points transactions, kept by the database itself as merchants'
-- customer_count is: every way a transaction is written (ledger, redemption, import, SQL) keeps
-- it exact, in the writer's own transaction, so a history page and its total, read in one
-- statement, agree. Statement-level, so a bulk insert updates each customer once.
UPDATE "customers" c SET "transaction_count" = t.count
  FROM (SELECT "customer_id", count(*) AS count FROM "points_transactions" GROUP BY "customer_id") t
 WHERE c."id" = t."customer_id";

CREATE FUNCTION "points_transactions_count_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE "customers" c SET "transaction_count" = c."transaction_count" + n.count
      FROM (SELECT "customer_id", count(*) AS count FROM new_rows GROUP BY "customer_id") n
     WHERE c."id" = n."customer_id";
  ELSE
    UPDATE "customers" c SET "transaction_count" = c."transaction_count" - o.count
      FROM (SELECT "customer_id", count(*) AS count FROM old_rows GROUP BY "customer_id") o
     WHERE c."id" = o."customer_id";
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "points_transactions_counted_on_insert" AFTER INSERT ON "points_transactions"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "points_transactions_count_changed"();
CREATE TRIGGER "points_transactions_counted_on_delete" AFTER DELETE ON "points_transactions"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "points_transactions_count_changed"();
