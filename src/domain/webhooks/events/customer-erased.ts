// customer.erased: a privacy erasure took the customer's personal data out. Ids only: the event
// must not carry what the erasure removes.
import { z } from 'zod';
import { eventType, id, timestamp } from './event.js';

export const customerErased = eventType({
  name: 'customer.erased',
  when: "A privacy erasure removed the customer's personal data: ids only",
  data: z.object({ id, erased_at: timestamp }).strict(),
  subscribable: true,
  emittedBy: 'the trigger customers_erased_outbox',
  sql: {
    functions: [
      `CREATE OR REPLACE FUNCTION public.customers_emit_erased()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM loyalty_emit_event(NEW.merchant_id, 'customer.erased', jsonb_build_object(
    'id', NEW.id, 'erased_at', loyalty_iso(NEW.erased_at)));
  RETURN NULL;
END $function$`,
    ],
    triggers: [
      `CREATE TRIGGER customers_erased_outbox AFTER UPDATE OF erased_at ON public.customers FOR EACH ROW WHEN (((old.erased_at IS NULL) AND (new.erased_at IS NOT NULL))) EXECUTE FUNCTION customers_emit_erased()`,
    ],
  },
});
