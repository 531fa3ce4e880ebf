// referral.flagged: the moment a fraud signal holds a referral (status held), at registration
// (INSERT) or when the friend's order would complete it (UPDATE).
import { z } from 'zod';
import { signalNames } from '../../referrals/fraud-signals.js';
import { customerRef, eventType, id, timestamp } from './event.js';

export const referralFlagged = eventType({
  name: 'referral.flagged',
  when: "A fraud check holds a referral for the merchant's review (at registration, or at the friend's order): nothing is issued until it is approved",
  data: z.object({
    id,
    referrer: customerRef,
    referee: customerRef.nullable().describe('The friend, once they are a customer'),
    referee_email: z.string(),
    order_id: z.string().nullable().describe("The friend's order that would have completed it, when flagged then"),
    signals: z.array(z.object({ signal: z.enum(signalNames), detail: z.string() })).min(1),
    created_at: timestamp,
    flagged_at: timestamp,
  }),
  subscribable: true,
  emittedBy: 'the triggers referrals_flagged_outbox (registered held) and referrals_held_outbox (held later)',
  sql: {
    functions: [
      `CREATE OR REPLACE FUNCTION public.referrals_emit_flagged()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM loyalty_emit_event(NEW.merchant_id, 'referral.flagged', jsonb_build_object(
    'id', NEW.id, 'referrer', loyalty_customer_ref(NEW.merchant_id, NEW.referrer_id),
    'referee', loyalty_customer_ref(NEW.merchant_id, NEW.referee_id), 'referee_email', NEW.referee_email,
    'order_id', NEW.order_id, 'signals', NEW.signals,
    'created_at', loyalty_iso(NEW.created_at), 'flagged_at', loyalty_iso(NEW.held_at)));
  RETURN NULL;
END $function$`,
    ],
    triggers: [
      `CREATE TRIGGER referrals_flagged_outbox AFTER INSERT ON public.referrals FOR EACH ROW WHEN ((new.status = 'held'::"ReferralStatus")) EXECUTE FUNCTION referrals_emit_flagged()`,
      `CREATE TRIGGER referrals_held_outbox AFTER UPDATE OF status ON public.referrals FOR EACH ROW WHEN (((new.status = 'held'::"ReferralStatus") AND (old.status IS DISTINCT FROM 'held'::"ReferralStatus"))) EXECUTE FUNCTION referrals_emit_flagged()`,
    ],
  },
});
