// The webhook event types (issue 12). The database writes them (the outbox triggers in the
// migration `webhooks_outbox`), except points.expiring, which the daily expiry job writes.
export const webhookEventTypes = [
  'points.credited',
  'points.debited',
  'points.expired',
  'points.expiring',
  'reward.redeemed',
  'tier.changed',
  'referral.completed',
  'customer.created',
] as const;

export type WebhookEventType = (typeof webhookEventTypes)[number];
