-- Customer sessions ended before their tokens expire (sign-out, renewal): every instance keeps
-- each merchant's list in memory (src/domain/access/ended-sessions.ts), loaded once and kept
-- current by a NOTIFY on loyalty_auth that the ending transaction sends itself (a trigger on a
-- distributed table cannot NOTIFY on Citus). Rows past expires_at are purged.
-- CreateTable
CREATE TABLE "ended_customer_sessions" (
    "merchant_id" UUID NOT NULL,
    "id" UUID NOT NULL,
    "customer_id" UUID NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "ended_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ended_customer_sessions_pkey" PRIMARY KEY ("merchant_id","id")
);

-- CreateIndex
CREATE INDEX "ended_customer_sessions_merchant_id_expires_at_idx" ON "ended_customer_sessions"("merchant_id", "expires_at");

-- On a database Citus already distributes, a table with a key to a distributed table must be
-- distributed beside it first; elsewhere (and before `loyalty cluster distribute` ran) this does
-- nothing, and distribute() places the table later.
CREATE FUNCTION loyalty_distribute_beside_customers(new_table regclass) RETURNS void LANGUAGE plpgsql AS $$
DECLARE distributed boolean;
BEGIN
  IF to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN RETURN; END IF;
  -- through EXECUTE: without Citus the catalog table does not exist to plan a statement against
  EXECUTE $q$SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition WHERE logicalrelid = 'customers'::regclass AND partmethod = 'h')$q$
    INTO distributed;
  IF distributed THEN
    EXECUTE format('SELECT create_distributed_table(%L, %L, colocate_with => %L)', new_table, 'merchant_id', 'customers');
  END IF;
END $$;
SELECT loyalty_distribute_beside_customers('ended_customer_sessions');

-- AddForeignKey
ALTER TABLE "ended_customer_sessions" ADD CONSTRAINT "ended_customer_sessions_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "ended_customer_sessions" ADD CONSTRAINT "ended_customer_sessions_merchant_id_customer_id_fkey" FOREIGN KEY ("merchant_id", "customer_id") REFERENCES "customers"("merchant_id", "id") ON DELETE CASCADE ON UPDATE NO ACTION;
