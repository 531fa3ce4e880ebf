// tier.changed: every new active membership, with the tier it replaced. A statement trigger (an
// import gives thousands of customers their default tier at once), its transition rows read per
// merchant into jsonb first, as Citus needs.
import { z } from 'zod';
import { MembershipSource } from '../../../generated/prisma/enums.js';
import { customerRef, eventType, id, timestamp, values } from './event.js';

const tierRef = z.object({ id, name: z.string() });

export const tierChanged = eventType({
  name: 'tier.changed',
  when: 'A customer enters a tier',
  data: z.object({
    membership_id: id,
    customer: customerRef,
    tier: tierRef,
    previous_tier: tierRef.nullable(),
    source: z.enum(values(MembershipSource)),
    started_at: timestamp,
    expires_at: timestamp.nullable(),
  }),
  subscribable: true,
  emittedBy: 'the statement trigger tier_memberships_outbox',
  sql: {
    functions: [
      `CREATE OR REPLACE FUNCTION public.tier_memberships_emit()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE m uuid; batch jsonb;
BEGIN
  FOR m, batch IN SELECT merchant_id, jsonb_agg(to_jsonb(n)) FROM new_rows n WHERE status = 'active' GROUP BY merchant_id LOOP
    WITH changed AS (
      SELECT gen_random_uuid() AS event_id, n.merchant_id, n.id AS row_id, n.started_at, jsonb_build_object(
               'membership_id', n.id,
               'customer', jsonb_build_object('id', c.id, 'customer_id', c.platform_id, 'email', c.email),
               'tier', jsonb_build_object('id', t.id, 'name', t.name),
               'previous_tier', (SELECT jsonb_build_object('id', pt.id, 'name', pt.name)
                                   FROM tier_memberships pm JOIN tiers pt ON pt.merchant_id = pm.merchant_id AND pt.id = pm.tier_id
                                  WHERE pm.merchant_id = m AND pm.customer_id = n.customer_id
                                    AND pm.id <> n.id AND pm.ended_at IS NOT NULL
                                  ORDER BY pm.started_at DESC LIMIT 1),
               'source', n.source, 'started_at', loyalty_iso(n.started_at), 'expires_at', loyalty_iso(n.expires_at)) AS data
        FROM jsonb_populate_recordset(NULL::tier_memberships, batch) n
        JOIN customers c ON c.merchant_id = m AND c.id = n.customer_id
        JOIN tiers t ON t.merchant_id = m AND t.id = n.tier_id
    )
    INSERT INTO events (id, merchant_id, type, payload, body, created_at)
    SELECT event_id, merchant_id, 'tier.changed', data,
           loyalty_event_body(event_id, 'tier.changed', now(), merchant_id, data), now()
      FROM changed ORDER BY started_at, row_id;
  END LOOP;
  RETURN NULL;
END $function$`,
    ],
    triggers: [
      `CREATE TRIGGER tier_memberships_outbox AFTER INSERT ON public.tier_memberships REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tier_memberships_emit()`,
    ],
  },
});
