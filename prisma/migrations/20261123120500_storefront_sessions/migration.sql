-- CreateTable
CREATE TABLE "storefront_settings" (
    "merchant_id" UUID NOT NULL,
    "session_secret" BYTEA NOT NULL,
    "allowed_origins" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "persisted_only" BOOLEAN NOT NULL DEFAULT false,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "storefront_settings_pkey" PRIMARY KEY ("merchant_id")
);

-- CreateTable
CREATE TABLE "persisted_operations" (
    "merchant_id" UUID NOT NULL,
    "hash" TEXT NOT NULL,
    "query" TEXT NOT NULL,
    "name" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "persisted_operations_pkey" PRIMARY KEY ("merchant_id","hash")
);

-- AddForeignKey
ALTER TABLE "storefront_settings" ADD CONSTRAINT "storefront_settings_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "persisted_operations" ADD CONSTRAINT "persisted_operations_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A preflight names no merchant: it asks whether any merchant allows its origin.
CREATE INDEX "storefront_settings_allowed_origins_idx" ON "storefront_settings" USING GIN ("allowed_origins");

-- Every instance caches storefront settings (src/domain/storefront/storefront-settings.ts):
-- a rotated session secret must end every session everywhere at once, so the database
-- announces each change on the channel the API key cache listens to (payload
-- 'storefront:<merchant id>', which names no key hash).
CREATE FUNCTION "storefront_settings_announce_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('loyalty_auth', 'storefront:' || CASE WHEN TG_OP = 'INSERT' THEN NEW."merchant_id" ELSE OLD."merchant_id" END);
  RETURN NULL;
END $$;

-- an insert too: instances may have cached the defaults (no row, no secret)
CREATE TRIGGER "storefront_settings_announce_insert" AFTER INSERT ON "storefront_settings"
  FOR EACH ROW EXECUTE FUNCTION "storefront_settings_announce_change"();
CREATE TRIGGER "storefront_settings_announce_update" AFTER UPDATE ON "storefront_settings"
  FOR EACH ROW EXECUTE FUNCTION "storefront_settings_announce_change"();
CREATE TRIGGER "storefront_settings_announce_delete" AFTER DELETE ON "storefront_settings"
  FOR EACH ROW EXECUTE FUNCTION "storefront_settings_announce_change"();
