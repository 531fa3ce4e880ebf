// webhook.ping: asked for one endpoint (ping_webhook_endpoint, `loyalty webhooks ping`). Written
// by pingEndpoint in src/domain/webhooks/deliveries.ts, never by a trigger; no endpoint subscribes to it.
import { z } from 'zod';
import { eventType, id } from './event.js';

export const webhookPing = eventType({
  name: 'webhook.ping',
  when: 'Asked for (ping_webhook_endpoint, `loyalty webhooks ping`): to that endpoint only, whatever its event types',
  data: z.object({ endpoint_id: id }).strict(),
  subscribable: false,
  emittedBy: 'pingEndpoint (src/domain/webhooks/deliveries.ts)',
});
