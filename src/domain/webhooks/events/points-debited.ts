// points.debited: a ledger row that takes points. Written by points.credited's SQL
// (points-credited.ts), which picks the type by the row's sign; same `data`.
import { eventType } from './event.js';
import { pointsChange } from './points-credited.js';

export const pointsDebited = eventType({
  name: 'points.debited',
  when: 'A ledger row takes points: manual, refund, redemption, expiry',
  data: pointsChange,
  subscribable: true,
  emittedBy: "points.credited's SQL (points-credited.ts): loyalty_apply_points and the trigger points_transactions_outbox",
});
