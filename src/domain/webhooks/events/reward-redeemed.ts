// reward.redeemed: a customer reward bought with points (not one given away, e.g. a referee's).
import { z } from 'zod';
import { CustomerRewardStatus, RewardType } from '../../../generated/prisma/enums.js';
import { customerRef, eventType, id, timestamp, values } from './event.js';

export const rewardRedeemed = eventType({
  name: 'reward.redeemed',
  when: 'Points spent on a reward',
  data: z.object({
    id,
    customer: customerRef,
    reward: z.object({ id, name: z.string(), reward_type: z.enum(values(RewardType)) }),
    code: z.string(),
    status: z.enum(values(CustomerRewardStatus)),
    points_spent: z.int(),
    issued_at: timestamp,
    expires_at: timestamp.nullable(),
  }),
  subscribable: true,
  emittedBy: 'the trigger customer_rewards_outbox (a row per redemption)',
  sql: {
    functions: [
      `CREATE OR REPLACE FUNCTION public.customer_rewards_emit()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM loyalty_emit_event(NEW.merchant_id, 'reward.redeemed', jsonb_build_object(
    'id', NEW.id, 'customer', loyalty_customer_ref(NEW.merchant_id, NEW.customer_id),
    'reward', (SELECT jsonb_build_object('id', r.id, 'name', r.name, 'reward_type', r.reward_type)
                 FROM rewards r WHERE r.merchant_id = NEW.merchant_id AND r.id = NEW.reward_id),
    'code', NEW.code, 'status', NEW.status, 'points_spent', NEW.points_spent,
    'issued_at', loyalty_iso(NEW.issued_at), 'expires_at', loyalty_iso(NEW.expires_at)));
  RETURN NULL;
END $function$`,
    ],
    triggers: [
      `CREATE TRIGGER customer_rewards_outbox AFTER INSERT ON public.customer_rewards FOR EACH ROW WHEN ((new.points_spent > 0)) EXECUTE FUNCTION customer_rewards_emit()`,
    ],
  },
});
