// points.expiring: a reminder before a balance expires. Written by the daily expiry job
// (src/domain/ledger/expiry.ts, through loyalty_emit_event with a dedupe key), not by a trigger.
import { z } from 'zod';
import { customerRef, eventType, timestamp } from './event.js';

export const pointsExpiring = eventType({
  name: 'points.expiring',
  when: 'POINTS_EXPIRING_DAYS before a balance expires, once per expiry date',
  data: z.object({ customer: customerRef, points: z.int(), expires_at: timestamp }),
  subscribable: true,
  emittedBy: 'the daily expiry job (src/domain/ledger/expiry.ts)',
});
