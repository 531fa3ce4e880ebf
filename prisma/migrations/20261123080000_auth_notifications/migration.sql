-- Every instance caches the API keys it has seen (src/domain/key-cache.ts). The database
-- itself announces any change that could revoke or narrow a key, whoever makes it (admin
-- API, CLI, SQL): each instance LISTENs on loyalty_auth and drops that key at once.
-- last_used_at changes are not announced: they change nothing a request is allowed to do.
CREATE FUNCTION "api_keys_announce_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('loyalty_auth', OLD."hash");
  RETURN NULL;
END $$;

CREATE TRIGGER "api_keys_announce_update" AFTER UPDATE OF "revoked_at", "scopes", "hash", "merchant_id" ON "api_keys"
  FOR EACH ROW EXECUTE FUNCTION "api_keys_announce_change"();
CREATE TRIGGER "api_keys_announce_delete" AFTER DELETE ON "api_keys"
  FOR EACH ROW EXECUTE FUNCTION "api_keys_announce_change"();
