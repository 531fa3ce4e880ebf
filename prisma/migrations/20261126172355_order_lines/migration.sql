-- Each order's line items, so a replay of history (src/domain/finance/replay.ts) hands the
-- calculator the cart the engine judged. Written in the order's own transaction.
-- CreateTable
CREATE TABLE "order_lines" (
    "merchant_id" UUID NOT NULL,
    "order_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "product_id" TEXT NOT NULL,
    "quantity" INTEGER NOT NULL,
    "price" DECIMAL(14,2) NOT NULL,

    CONSTRAINT "order_lines_pkey" PRIMARY KEY ("merchant_id","order_id","position")
);

-- distributed beside orders before the key to them (see ended_customer_sessions)
SELECT loyalty_distribute_beside_customers('order_lines');

-- AddForeignKey
ALTER TABLE "order_lines" ADD CONSTRAINT "order_lines_merchant_id_order_id_fkey" FOREIGN KEY ("merchant_id", "order_id") REFERENCES "orders"("merchant_id", "id") ON DELETE CASCADE ON UPDATE NO ACTION;
