-- CreateTable
CREATE TABLE "ledger_buckets" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "bucket_start" TIMESTAMPTZ(3) NOT NULL,
    "category" TEXT NOT NULL,
    "points" BIGINT NOT NULL,
    "entries" INTEGER NOT NULL,

    CONSTRAINT "ledger_buckets_pkey" PRIMARY KEY ("merchant_id","id")
);

-- CreateIndex
CREATE INDEX "ledger_buckets_merchant_id_bucket_start_idx" ON "ledger_buckets"("merchant_id", "bucket_start");

-- AddForeignKey
ALTER TABLE "ledger_buckets" ADD CONSTRAINT "ledger_buckets_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- What a ledger row is in the liability report: the one place the categories are defined (the
-- trigger below and the report's scan of a range's partial buckets both call it). Every row falls
-- in exactly one category, so opening + movements = closing by construction.
CREATE FUNCTION loyalty_ledger_category(type "TransactionType", source "TransactionSource", reference_kind text)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN source = 'redemption' THEN 'redeemed'
    WHEN source = 'expiry' THEN 'expired'
    WHEN type = 'debit' AND source = 'manual' THEN 'manual_debit'
    -- a debit of earned points: a refund's clawback, a referral taken back
    WHEN type = 'debit' THEN 'reversed'
    WHEN source = 'manual' THEN 'issued_manual'
    WHEN source = 'import' THEN 'issued_import'
    WHEN source = 'referral' THEN 'issued_referral'
    WHEN reference_kind = 'order' THEN 'issued_order'
    ELSE 'issued_engagement'
  END $$;

-- The bucket holding an instant: 15 minutes on the UTC clock.
CREATE FUNCTION loyalty_ledger_bucket(at timestamptz) RETURNS timestamptz LANGUAGE sql IMMUTABLE AS $$
  SELECT date_bin('15 minutes', at, timestamptz '2000-01-01 00:00:00+00') $$;

-- One row per merchant, bucket and category of the statement's rows; the rows reach the INSERT as
-- a jsonb value per merchant, so on a cluster each INSERT names one merchant (one shard).
CREATE FUNCTION loyalty_ledger_buckets_add() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE m uuid; sums jsonb;
BEGIN
  FOR m, sums IN
    SELECT merchant_id, jsonb_agg(jsonb_build_object('b', b, 'c', c, 'p', p, 'n', n))
      FROM (SELECT merchant_id, loyalty_ledger_bucket(created_at) AS b,
                   loyalty_ledger_category(type, source, reference_kind) AS c, sum(points) AS p, count(*) AS n
              FROM new_rows GROUP BY 1, 2, 3) x
     GROUP BY merchant_id
  LOOP
    INSERT INTO ledger_buckets (id, merchant_id, bucket_start, category, points, entries)
    SELECT gen_random_uuid(), m, x.b, x.c, x.p, x.n FROM jsonb_to_recordset(sums) AS x(b timestamptz, c text, p bigint, n int);
  END LOOP;
  RETURN NULL;
END $$;

-- trigger DDL on a table Citus distributes needs this (a placeholder setting elsewhere)
SET LOCAL citus.enable_unsafe_triggers = on;
CREATE TRIGGER points_transactions_bucketed_on_insert AFTER INSERT ON points_transactions
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION loyalty_ledger_buckets_add();

-- the ledger so far
INSERT INTO ledger_buckets (id, merchant_id, bucket_start, category, points, entries)
SELECT gen_random_uuid(), merchant_id, loyalty_ledger_bucket(created_at),
       loyalty_ledger_category(type, source, reference_kind), sum(points), count(*)
  FROM points_transactions GROUP BY merchant_id, 3, 4;
