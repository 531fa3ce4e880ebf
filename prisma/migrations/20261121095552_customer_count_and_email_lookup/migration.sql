-- AlterTable
ALTER TABLE "merchants" ADD COLUMN     "customer_count" INTEGER NOT NULL DEFAULT 0;

-- The merchant's customer count, kept by the database itself: every way customers are
-- written (API, admin, import, SQL) keeps it exact, and GET /customers reads its total
-- without counting 100k rows. Statement-level, so a bulk import updates it once.
UPDATE "merchants" m SET "customer_count" = (SELECT count(*) FROM "customers" c WHERE c."merchant_id" = m."id");

CREATE FUNCTION "customers_count_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE "merchants" m SET "customer_count" = m."customer_count" + n.count
      FROM (SELECT "merchant_id", count(*) AS count FROM new_rows GROUP BY "merchant_id") n
     WHERE m."id" = n."merchant_id";
  ELSE
    UPDATE "merchants" m SET "customer_count" = m."customer_count" - o.count
      FROM (SELECT "merchant_id", count(*) AS count FROM old_rows GROUP BY "merchant_id") o
     WHERE m."id" = o."merchant_id";
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "customers_counted_on_insert" AFTER INSERT ON "customers"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "customers_count_changed"();
CREATE TRIGGER "customers_counted_on_delete" AFTER DELETE ON "customers"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "customers_count_changed"();

-- Emails are matched case-insensitively: this index serves lower(email) = lower($1).
CREATE INDEX "customers_merchant_id_lower_email_idx" ON "customers" ("merchant_id", lower("email"));
