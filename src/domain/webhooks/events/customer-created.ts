// customer.created: a new customer, any way (imports too). A statement trigger (an import
// creates thousands at once), its transition rows read per merchant into jsonb first, as Citus
// needs.
import { z } from 'zod';
import { CustomerStatus } from '../../../generated/prisma/enums.js';
import { eventType, id, timestamp, values } from './event.js';

/** The profile fields customer.created and customer.updated carry. */
export const customerProfile = {
  id,
  customer_id: z.string(),
  email: z.string(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  status: z.enum(values(CustomerStatus)),
  birthday: z.iso.date().nullable(),
  referral_code: z.string(),
};

export const customerCreated = eventType({
  name: 'customer.created',
  when: 'A new customer (any way, imports too)',
  data: z.object({ ...customerProfile, created_at: timestamp }),
  subscribable: true,
  emittedBy: 'the statement trigger customers_outbox',
  sql: {
    functions: [
      `CREATE OR REPLACE FUNCTION public.customers_emit()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE m uuid; batch jsonb;
BEGIN
  FOR m, batch IN SELECT merchant_id, jsonb_agg(to_jsonb(n)) FROM new_rows n GROUP BY merchant_id LOOP
    WITH created AS (
      SELECT gen_random_uuid() AS event_id, merchant_id, id AS row_id, jsonb_build_object(
               'id', id, 'customer_id', platform_id, 'email', email,
               'first_name', first_name, 'last_name', last_name, 'status', status,
               'birthday', to_char(birthday, 'YYYY-MM-DD'), 'referral_code', referral_code,
               'created_at', loyalty_iso(created_at)) AS data, created_at
        FROM jsonb_populate_recordset(NULL::customers, batch)
    )
    INSERT INTO events (id, merchant_id, type, payload, body, created_at)
    SELECT event_id, merchant_id, 'customer.created', data,
           loyalty_event_body(event_id, 'customer.created', now(), merchant_id, data), now()
      FROM created ORDER BY created_at, row_id;
  END LOOP;
  RETURN NULL;
END $function$`,
    ],
    triggers: [
      `CREATE TRIGGER customers_outbox AFTER INSERT ON public.customers REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION customers_emit()`,
    ],
  },
});
