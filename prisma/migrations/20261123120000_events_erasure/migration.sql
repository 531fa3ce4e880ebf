-- A privacy erasure (src/domain/privacy/erasure.ts) is the one change an event may undergo:
-- the transaction that erases a customer sets loyalty.erasure (local to it) and scrubs their
-- personal data out of the events' payload and body. Nothing else may change an event.
CREATE OR REPLACE FUNCTION "events_reject_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.id <> OLD.id OR NEW.merchant_id <> OLD.merchant_id OR NEW.type <> OLD.type
     OR NEW.created_at <> OLD.created_at
     OR ((NEW.body <> OLD.body OR NEW.payload <> OLD.payload)
         AND coalesce(current_setting('loyalty.erasure', true), '') <> 'on') THEN
    RAISE EXCEPTION 'events are immutable (only dispatched_at changes, and a privacy erasure scrubs)';
  END IF;
  RETURN NEW;
END $$;
