// referral.completed: the moment a referral's status becomes completed (the friend's qualifying
// order, or the merchant's approval of a held referral).
import { z } from 'zod';
import { customerRef, eventType, id, timestamp } from './event.js';

export const referralCompleted = eventType({
  name: 'referral.completed',
  when: "A referred friend's first qualifying order",
  data: z.object({
    id,
    referrer: customerRef,
    referee: customerRef.nullable(),
    referee_email: z.string(),
    referrer_points: z.int(),
    order_id: z.string().nullable(),
    created_at: timestamp,
    completed_at: timestamp,
  }),
  subscribable: true,
  emittedBy: 'the trigger referrals_outbox',
  sql: {
    functions: [
      `CREATE OR REPLACE FUNCTION public.referrals_emit()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM loyalty_emit_event(NEW.merchant_id, 'referral.completed', jsonb_build_object(
    'id', NEW.id, 'referrer', loyalty_customer_ref(NEW.merchant_id, NEW.referrer_id),
    'referee', loyalty_customer_ref(NEW.merchant_id, NEW.referee_id), 'referee_email', NEW.referee_email,
    'referrer_points', NEW.referrer_points, 'order_id', NEW.order_id,
    'created_at', loyalty_iso(NEW.created_at), 'completed_at', loyalty_iso(NEW.completed_at)));
  RETURN NULL;
END $function$`,
    ],
    triggers: [
      `CREATE TRIGGER referrals_outbox AFTER UPDATE OF status ON public.referrals FOR EACH ROW WHEN (((new.status = 'completed'::"ReferralStatus") AND (old.status IS DISTINCT FROM 'completed'::"ReferralStatus"))) EXECUTE FUNCTION referrals_emit()`,
    ],
  },
});
