-- referral.flagged: the moment a fraud signal holds a referral (status held), at registration
-- (INSERT) or when the friend's order would complete it (UPDATE). Apart from the migration
-- that adds the value 'held': a value added to an enum cannot be used in the same transaction.

-- Trigger DDL on a Citus cluster's distributed tables needs this (their triggers then fire
-- without it); plain PostgreSQL keeps it as a placeholder setting for this transaction.
SET LOCAL citus.enable_unsafe_triggers = on;

CREATE FUNCTION referrals_emit_flagged() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM loyalty_emit_event(NEW.merchant_id, 'referral.flagged', jsonb_build_object(
    'id', NEW.id, 'referrer', loyalty_customer_ref(NEW.merchant_id, NEW.referrer_id),
    'referee', loyalty_customer_ref(NEW.merchant_id, NEW.referee_id), 'referee_email', NEW.referee_email,
    'order_id', NEW.order_id, 'signals', NEW.signals,
    'created_at', loyalty_iso(NEW.created_at), 'flagged_at', loyalty_iso(NEW.held_at)));
  RETURN NULL;
END $$;

CREATE TRIGGER referrals_flagged_outbox AFTER INSERT ON referrals
  FOR EACH ROW WHEN (NEW.status = 'held') EXECUTE FUNCTION referrals_emit_flagged();
CREATE TRIGGER referrals_held_outbox AFTER UPDATE OF status ON referrals
  FOR EACH ROW WHEN (NEW.status = 'held' AND OLD.status IS DISTINCT FROM 'held') EXECUTE FUNCTION referrals_emit_flagged();
