// points.expired: beside the points.debited of an expiry. Its payload function is called by the
// ledger function loyalty_apply_points and by points.credited's trigger (points-credited.ts).
import { z } from 'zod';
import { customerRef, eventType, id, timestamp } from './event.js';

export const pointsExpired = eventType({
  name: 'points.expired',
  when: 'An expiry debit (also sent as points.debited)',
  data: z.object({
    transaction_id: id,
    customer: customerRef,
    points: z.int().positive(),
    balance_after: z.int(),
    expired_at: timestamp,
  }),
  subscribable: true,
  emittedBy: "loyalty_apply_points and points.credited's trigger points_transactions_outbox, with loyalty_points_expired_data",
  sql: {
    functions: [
      `CREATE OR REPLACE FUNCTION public.loyalty_points_expired_data(transaction_id uuid, customer jsonb, points integer, balance_after integer, created_at timestamp with time zone)
 RETURNS jsonb
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT jsonb_build_object('transaction_id', transaction_id, 'customer', customer, 'points', -points,
                            'balance_after', balance_after, 'expired_at', loyalty_iso(created_at))
$function$`,
    ],
    triggers: [],
  },
});
