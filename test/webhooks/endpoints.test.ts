// Webhook endpoints in the admin API and the SSRF guard: https only, and no
// loopback, private, link-local or metadata address, at registration and at delivery.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { postWebhook } from '../../src/domain/webhooks/send.js';
import { checkWebhookUrl, isPublicAddress } from '../../src/domain/webhooks/url-guard.js';
import { adminClient, newMerchant, type TestApp, testApp } from '../harness.js';
import { startReceiver } from './receiver.js';

let app: TestApp;
let admin: ReturnType<typeof adminClient>;
beforeAll(async () => {
  app = await testApp(); // WEBHOOK_ALLOW_PRIVATE_URLS unset: the production rules
  admin = adminClient(app, (await newMerchant(app, 'endpoints')).admin_token);
});

const CREATE = `mutation($url: String!, $types: [String!], $description: String) {
  create_webhook_endpoint(url: $url, event_types: $types, description: $description) { id url secret enabled event_types description }
}`;
const codeOf = (res: { body: { errors?: any[] } }) => res.body.errors?.[0]?.extensions?.code;

describe('the SSRF guard', () => {
  it.each([
    ['http://93.184.215.14/hook', /https/],
    ['https://127.0.0.1/hook', /127\.0\.0\.1/],
    ['https://localhost:8443/hook', /127\.0\.0\.1|::1/],
    ['https://10.1.2.3/', /10\.1\.2\.3/],
    ['https://172.20.0.1/', /172\.20/],
    ['https://192.168.1.1/', /192\.168/],
    ['https://169.254.169.254/latest/meta-data/', /169\.254/],
    ['https://100.64.0.1/', /100\.64/],
    ['https://[::1]/', /::1/],
    ['https://[fe80::1]/', /fe80/],
    ['https://[fd00:ec2::254]/', /fd00/],
    ['https://[::ffff:127.0.0.1]/', /::ffff/],
    ['https://0.0.0.0/', /0\.0\.0\.0/],
    ['https://user:pw@93.184.215.14/', /credentials/],
    ['not a url', /absolute URL/],
  ])('refuses %s', async (url, why) => {
    expect(await checkWebhookUrl(url, false)).toMatch(why);
  });

  it('accepts a public https address, and anything http(s) when private URLs are allowed', async () => {
    expect(await checkWebhookUrl('https://93.184.215.14/hook', false)).toBeUndefined();
    expect(await checkWebhookUrl('https://[2606:4700::1111]/hook', false)).toBeUndefined();
    expect(await checkWebhookUrl('http://127.0.0.1:9/hook', true)).toBeUndefined();
    expect(await checkWebhookUrl('ftp://127.0.0.1/hook', true)).toMatch(/https/);
    expect(isPublicAddress('8.8.8.8')).toBe(true);
    expect(isPublicAddress('::ffff:10.0.0.1')).toBe(false);
  });

  it('checks again at delivery: a private address is never contacted', async () => {
    const receiver = await startReceiver();
    try {
      const request = { secrets: ['s'], eventId: randomUUID(), eventType: 't', deliveryId: randomUUID(), body: '{}', timeoutMs: 1000 };
      const blocked = await postWebhook({ ...request, url: receiver.url('/x').replace('http:', 'https:'), allowPrivate: false });
      expect(blocked).toEqual({ status: null, response: expect.stringMatching(/not sent: .*127\.0\.0\.1/) });
      // a name resolved at connection time is checked too (localhost → loopback)
      const byName = await postWebhook({
        ...request,
        url: receiver.url('/x').replace('http://127.0.0.1', 'https://localhost'),
        allowPrivate: false,
      });
      expect(byName.status).toBeNull();
      const allowed = await postWebhook({ ...request, url: receiver.url('/x'), allowPrivate: true });
      expect(allowed).toEqual({ status: 200, response: 'ok' });
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it('times out a receiver that does not answer', async () => {
    const { createServer } = await import('node:http');
    const server = createServer(() => {}); // never answers
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    const started = Date.now();
    const result = await postWebhook({
      url: `http://127.0.0.1:${port}/`,
      secrets: ['s'],
      eventId: 'e',
      eventType: 't',
      deliveryId: 'd',
      body: '{}',
      timeoutMs: 300,
      allowPrivate: true,
    });
    expect(result).toEqual({ status: null, response: 'no answer within 300 ms' });
    expect(Date.now() - started).toBeLessThan(2000);
    server.closeAllConnections();
    server.close();
  });

  it('sends again on a new connection when the receiver closes a kept-alive one as the request goes out', async () => {
    const { createServer } = await import('node:http');
    const seen: string[] = [];
    const perSocket = new WeakMap<object, number>();
    // a receiver that closes an idle connection just as the next request arrives on it: that request is never read
    const server = createServer((req, res) => {
      const n = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, n);
      if (n > 1) return req.socket.destroy();
      req.resume();
      req.on('end', () => {
        seen.push(String(req.headers['loyalty-delivery-id']));
        res.end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    const post = (deliveryId: string) =>
      postWebhook({
        url: `http://127.0.0.1:${port}/`,
        secrets: ['s'],
        eventId: 'e',
        eventType: 't',
        deliveryId,
        body: '{}',
        timeoutMs: 5000,
        allowPrivate: true,
      });
    try {
      expect(await post('first')).toEqual({ status: 200, response: 'ok' });
      expect(await post('second')).toEqual({ status: 200, response: 'ok' });
      expect(seen).toEqual(['first', 'second']);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('admin API: webhook endpoints', () => {
  it('refuses private and non-https URLs with 422 validation_error', async () => {
    for (const url of ['https://127.0.0.1/hook', 'http://93.184.215.14/hook', 'https://169.254.169.254/']) {
      const res = await admin(CREATE, { url });
      expect(codeOf(res)).toBe('validation_error');
      expect(res.body.errors![0].extensions.details.url[0]).toBeTruthy();
    }
  });

  it('creates (secret shown once), lists, updates, disables, enables and deletes', async () => {
    const created = await admin(CREATE, {
      url: 'https://93.184.215.14/hook',
      types: ['points.credited', 'tier.changed'],
      description: 'ERP',
    });
    expect(created.body.errors).toBeUndefined();
    const endpoint = created.body.data.create_webhook_endpoint;
    expect(endpoint).toMatchObject({
      enabled: true,
      event_types: ['points.credited', 'tier.changed'],
      description: 'ERP',
      secret: expect.stringMatching(/^whsec_.{32}$/),
    });

    const list = await admin(`{ webhook_endpoints { id url enabled } }`);
    expect(list.body.data.webhook_endpoints).toContainEqual({ id: endpoint.id, url: 'https://93.184.215.14/hook', enabled: true });
    const secretField = await admin(`{ webhook_endpoints { secret } }`);
    expect(secretField.body.errors?.[0]?.message).toMatch(/secret/); // no way to read it again

    const UPDATE = `mutation($id: ID!, $enabled: Boolean, $types: [String!]) {
      update_webhook_endpoint(id: $id, enabled: $enabled, event_types: $types) { enabled event_types disabled_reason }
    }`;
    expect((await admin(UPDATE, { id: endpoint.id, enabled: false })).body.data.update_webhook_endpoint).toMatchObject({
      enabled: false,
      disabled_reason: null,
    });
    expect((await admin(UPDATE, { id: endpoint.id, enabled: true, types: [] })).body.data.update_webhook_endpoint).toEqual({
      enabled: true,
      event_types: [],
      disabled_reason: null,
    });
    expect(codeOf(await admin(UPDATE, { id: endpoint.id, types: ['points.teleported'] }))).toBe('validation_error');
    expect(codeOf(await admin(UPDATE, { id: randomUUID() }))).toBe('not_found');
    expect(codeOf(await admin(UPDATE, { id: 'not-a-uuid' }))).toBe('not_found');
    const PING = `mutation($id: ID!) { ping_webhook_endpoint(id: $id) { id } }`;
    expect(codeOf(await admin(PING, { id: randomUUID() }))).toBe('not_found');
    expect(codeOf(await admin(PING, { id: 'not-a-uuid' }))).toBe('not_found');

    const DELETE = `mutation($id: ID!) { delete_webhook_endpoint(id: $id) { id } }`;
    expect((await admin(DELETE, { id: endpoint.id })).body.data.delete_webhook_endpoint.id).toBe(endpoint.id);
    expect(codeOf(await admin(DELETE, { id: endpoint.id }))).toBe('not_found');
  });

  it("never shows or changes another merchant's endpoints", async () => {
    const other = adminClient(app, (await newMerchant(app, 'other')).admin_token);
    const { id } = (await admin(CREATE, { url: 'https://93.184.215.14/mine' })).body.data.create_webhook_endpoint;
    expect((await other(`{ webhook_endpoints { id } }`)).body.data.webhook_endpoints).toEqual([]);
    expect(codeOf(await other(`mutation($id: ID!) { delete_webhook_endpoint(id: $id) { id } }`, { id }))).toBe('not_found');
    expect(codeOf(await other(`{ webhook_deliveries(endpoint_id: "nope") { data { id } } }`))).toBe('validation_error');
    expect(codeOf(await other(`{ webhook_deliveries(per_page: 500) { data { id } } }`))).toBe('validation_error');
  });

  it('refuses unknown event types', async () => {
    const res = await admin(CREATE, { url: 'https://93.184.215.14/hook', types: ['points.credited', 'nope'] });
    expect(codeOf(res)).toBe('validation_error');
    expect(res.body.errors![0].extensions.details['event_types.1']).toBeTruthy();
  });
});
