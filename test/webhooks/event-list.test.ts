// What the events feed says of each event agrees with its types and docs: `version` is always
// an integer (an event written before bodies carried one reads as version 1, as webhooks.md
// says), and every type the feed can hold, webhook.ping included, is in Event.type's list, in
// the docs' tables, and taken by the `types` filter.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventTypeNames } from '../../src/domain/webhooks/event-types.js';
import { schema } from '../../src/graphql/public.js';
import { projectRoot } from '../../src/project-root.js';
import { adminClient, client, newKey, newMerchant, type TestApp, testApp } from '../harness.js';

let app: TestApp;
let merchantId: string;
let admin: ReturnType<typeof adminClient>;
let feed: ReturnType<typeof client>;

beforeAll(async () => {
  app = await testApp();
  const merchant = await newMerchant(app, 'event-list');
  merchantId = merchant.id;
  admin = adminClient(app, merchant.admin_token);
  feed = client(app, await newKey(app, merchant.id, 'custom', { events: 'read' }));
});

describe('Event.version', () => {
  it('is 1 for an event whose body has no version (written before bodies carried one), on REST and GraphQL', async () => {
    const id = randomUUID();
    const createdAt = '2026-11-20T10:00:00.000Z';
    const data = { endpoint_id: randomUUID() };
    // a body as the first outbox wrote them: no "version"
    const body = JSON.stringify({ id, type: 'webhook.ping', created_at: createdAt, merchant_id: merchantId, data });
    await app.db.$executeRaw`INSERT INTO events (id, merchant_id, type, payload, body, created_at, dispatched_at)
      VALUES (${id}::uuid, ${merchantId}::uuid, 'webhook.ping', ${JSON.stringify(data)}::jsonb, ${body}, ${createdAt}::timestamptz, now())`;
    const rest = await feed.rest('GET', '/v1/events?types=webhook.ping');
    expect(rest.body.data).toContainEqual({ id, type: 'webhook.ping', created_at: createdAt, version: 1, data });
    const gql = await feed.gql('{ events(types: ["webhook.ping"]) { data { id version } } }');
    expect(gql.body.data.events.data).toContainEqual({ id, version: 1 });
  });

  it('is typed non-null in the schema', () => {
    const version = schema.getType('Event')!.toConfig() as { fields: Record<string, { type: unknown }> };
    expect(String(version.fields.version!.type)).toBe('Int!');
  });
});

describe('webhook.ping', () => {
  it('is in the feed after a ping, and the types filter takes it', async () => {
    const endpoint = await admin(`mutation ($url: String!) { create_webhook_endpoint(url: $url) { id } }`, {
      url: 'https://93.184.215.14/hook',
    });
    const endpointId = endpoint.body.data.create_webhook_endpoint.id;
    const ping = await admin(`mutation ($id: ID!) { ping_webhook_endpoint(id: $id) { id } }`, { id: endpointId });
    expect(ping.body.errors).toBeUndefined();
    const res = await feed.rest('GET', '/v1/events?types=webhook.ping&per_page=100');
    expect(res.status).toBe(200);
    expect(res.body.data).toContainEqual(expect.objectContaining({ type: 'webhook.ping', version: 1, data: { endpoint_id: endpointId } }));
    const gql = await feed.gql('{ events(types: ["webhook.ping"], per_page: 100) { data { type } } }');
    expect(new Set(gql.body.data.events.data.map((e: { type: string }) => e.type))).toEqual(new Set(['webhook.ping']));
  });

  it('is in every list of the types: Event.type, docs/events.md and docs/webhooks.md', () => {
    const type = (schema.getType('Event')!.toConfig() as { fields: Record<string, { description?: string }> }).fields.type!.description!;
    const events = readFileSync(path.join(projectRoot, 'docs/events.md'), 'utf8');
    const webhooks = readFileSync(path.join(projectRoot, 'docs/webhooks.md'), 'utf8');
    expect(eventTypeNames).toContain('webhook.ping');
    for (const name of eventTypeNames) {
      expect(type, name).toContain(name);
      expect(webhooks, name).toContain(`\`${name}\``);
      expect(events, name).toContain(`\`${name}\``);
    }
  });
});
