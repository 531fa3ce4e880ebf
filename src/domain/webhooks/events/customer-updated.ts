// customer.updated: a customer's profile fields or status changed. Per row, behind a WHEN that
// compares them: the ledger rewrites the customer row (balance, counters) with every points
// change, and those updates must not run a trigger function at all. An erasure raises
// customer.erased instead.
import { z } from 'zod';
import { customerProfile } from './customer-created.js';
import { eventType } from './event.js';

const customerFields = ['customer_id', 'email', 'first_name', 'last_name', 'status', 'birthday', 'referral_code'] as const;

export const customerUpdated = eventType({
  name: 'customer.updated',
  when: "A customer's profile fields or status change (an update that changes none of them raises nothing)",
  data: z.object({
    ...customerProfile,
    changed: z.array(z.enum(customerFields)).min(1).describe('The fields this change set'),
  }),
  subscribable: true,
  emittedBy: 'the trigger customers_updated_outbox',
  sql: {
    functions: [
      `CREATE OR REPLACE FUNCTION public.customers_emit_updated()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM loyalty_emit_event(NEW.merchant_id, 'customer.updated', jsonb_build_object(
    'id', NEW.id, 'customer_id', NEW.platform_id, 'email', NEW.email,
    'first_name', NEW.first_name, 'last_name', NEW.last_name, 'status', NEW.status,
    'birthday', to_char(NEW.birthday, 'YYYY-MM-DD'), 'referral_code', NEW.referral_code,
    'changed', to_jsonb(array_remove(ARRAY[
      CASE WHEN NEW.platform_id IS DISTINCT FROM OLD.platform_id THEN 'customer_id' END,
      CASE WHEN NEW.email IS DISTINCT FROM OLD.email THEN 'email' END,
      CASE WHEN NEW.first_name IS DISTINCT FROM OLD.first_name THEN 'first_name' END,
      CASE WHEN NEW.last_name IS DISTINCT FROM OLD.last_name THEN 'last_name' END,
      CASE WHEN NEW.status IS DISTINCT FROM OLD.status THEN 'status' END,
      CASE WHEN NEW.birthday IS DISTINCT FROM OLD.birthday THEN 'birthday' END,
      CASE WHEN NEW.referral_code IS DISTINCT FROM OLD.referral_code THEN 'referral_code' END
    ], NULL))));
  RETURN NULL;
END $function$`,
    ],
    triggers: [
      `CREATE TRIGGER customers_updated_outbox AFTER UPDATE ON public.customers FOR EACH ROW WHEN (((new.erased_at IS NULL) AND ((old.platform_id IS DISTINCT FROM new.platform_id) OR (old.email IS DISTINCT FROM new.email) OR (old.first_name IS DISTINCT FROM new.first_name) OR (old.last_name IS DISTINCT FROM new.last_name) OR (old.status IS DISTINCT FROM new.status) OR (old.birthday IS DISTINCT FROM new.birthday) OR (old.referral_code IS DISTINCT FROM new.referral_code)))) EXECUTE FUNCTION customers_emit_updated()`,
    ],
  },
});
