-- Each refund of an order, when it was recorded: the revenue allocated to the order's points
-- (src/domain/finance/valuation.ts) is reduced by what was refunded by the instant read.
-- CreateTable
CREATE TABLE "order_refunds" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "order_id" UUID NOT NULL,
    "amount" DECIMAL(14,2) NOT NULL,
    "points_owed" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "order_refunds_pkey" PRIMARY KEY ("merchant_id","id")
);

-- CreateIndex
CREATE INDEX "order_refunds_merchant_id_order_id_created_at_idx" ON "order_refunds"("merchant_id", "order_id", "created_at");

-- distributed beside orders before the key to them (see ended_customer_sessions)
SELECT loyalty_distribute_beside_customers('order_refunds');

-- AddForeignKey
ALTER TABLE "order_refunds" ADD CONSTRAINT "order_refunds_merchant_id_order_id_fkey" FOREIGN KEY ("merchant_id", "order_id") REFERENCES "orders"("merchant_id", "id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- Refunds recorded before this table: each one's stored result (its idempotency record, kept
-- for good) gives its amount and the points it owed, at the moment it was processed; the
-- record's id is the refund's (no volatile function for a cluster to push down).
INSERT INTO "order_refunds" ("id", "merchant_id", "order_id", "amount", "points_owed", "created_at")
SELECT e."id", e."merchant_id", o."id", (e."result"->>'refunded_amount')::numeric,
       (e."result"->>'points_to_claw_back')::int, e."created_at"
  FROM "engine_events" e
  JOIN "orders" o ON o."merchant_id" = e."merchant_id" AND o."platform_order_id" = e."result"->>'order_id'
 WHERE e."kind" = 'refund' AND e."result" IS NOT NULL
   AND ((e."result"->>'refunded_amount')::numeric > 0 OR (e."result"->>'points_to_claw_back')::int > 0);
