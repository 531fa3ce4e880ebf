-- A customer's pending points (the balance's points_pending, read with every balance and panel)
-- from the few activities still pending, not by filtering the customer's whole activity log: a
-- customer with ten thousand activities summed them all on every read. Partial, so the
-- activities the ledger writes approved never enter it; a WHERE clause is not expressible in
-- schema.prisma, so it is written here.

-- CreateIndex
CREATE INDEX "activities_merchant_id_customer_id_pending_idx" ON "activities"("merchant_id", "customer_id") INCLUDE ("points_change") WHERE "status" = 'pending';
