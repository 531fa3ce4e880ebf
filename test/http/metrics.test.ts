// GET /metrics: Prometheus text behind METRICS_TOKEN, whose counters agree with
// the requests sent (read as differences between two scrapes: the registry is the process's).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { newCustomer, newKey, newMerchant, type TestApp, testApp, testConfig } from '../harness.js';

const TOKEN = 'metrics-token-0123456789';
let app: TestApp;
let served: ReturnType<typeof createApp>;
let key: string;
let merchantId: string;

beforeAll(async () => {
  app = await testApp();
  served = createApp({ db: app.db, config: testConfig({ METRICS_TOKEN: TOKEN }) });
  merchantId = (await newMerchant(app, 'metrics')).id;
  key = await newKey(app, merchantId);
});

afterAll(() => served.close());

const call = (path: string, init: RequestInit = {}) => served.fetch(`http://loyalty.test${path}`, init);

/** Every sample of a scrape: `name{labels}` → value. */
async function scrape(): Promise<Map<string, number>> {
  const res = await call('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  const samples = new Map<string, number>();
  for (const line of (await res.text()).split('\n')) {
    const match = /^([a-z_]+(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (match) samples.set(match[1]!, Number(match[2]));
  }
  return samples;
}

const delta = (before: Map<string, number>, after: Map<string, number>, sample: string) =>
  (after.get(sample) ?? 0) - (before.get(sample) ?? 0);

describe('GET /metrics', () => {
  it('is absent without METRICS_TOKEN, and refuses a wrong token', async () => {
    expect((await app.fetch('/metrics')).status).toBe(404);
    const wrong = await call('/metrics', { headers: { authorization: 'Bearer not-the-token-at-all' } });
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).error.code).toBe('invalid_token');
  });

  it('counts requests by route and status, replays, and the ledger', async () => {
    const customer = await newCustomer(app, merchantId);
    const before = await scrape();
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    for (let i = 0; i < 5; i++) expect((await call('/v1/tiers', { headers: auth })).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await call('/v1/tiers')).status).toBe(401);
    const idempotencyKey = randomUUID();
    const post = (points: number, headers: Record<string, string> = {}) =>
      call(`/v1/customers/transactions?customer_id=${customer.platformId}`, {
        method: 'POST',
        headers: { ...auth, ...headers },
        body: JSON.stringify({ points, description: 'metrics' }),
      });
    expect((await post(30, { 'idempotency-key': idempotencyKey })).status).toBe(201);
    expect((await post(30, { 'idempotency-key': idempotencyKey })).status).toBe(201); // replayed
    expect((await post(-10)).status).toBe(201);
    expect(
      (
        await call('/graphql', {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ query: 'query PanelTiers { tiers { data { id } } }' }),
        })
      ).status,
    ).toBe(200);
    const after = await scrape();

    const rest = (route: string, method: string, status: number) =>
      `loyalty_http_requests_total{face="rest",route="${route}",method="${method}",status="${status}"}`;
    expect(delta(before, after, rest('/tiers', 'GET', 200))).toBe(5);
    expect(delta(before, after, rest('/tiers', 'GET', 401))).toBe(2);
    expect(delta(before, after, rest('/customers/transactions', 'POST', 201))).toBe(3);
    expect(delta(before, after, 'loyalty_http_requests_total{face="graphql",route="PanelTiers",method="POST",status="200"}')).toBe(1);
    expect(delta(before, after, 'loyalty_idempotent_replays_total')).toBe(1);
    expect(delta(before, after, 'loyalty_ledger_entries_total{type="credit"}')).toBe(1);
    expect(delta(before, after, 'loyalty_ledger_points_total{type="credit"}')).toBe(30);
    expect(delta(before, after, 'loyalty_ledger_entries_total{type="debit"}')).toBe(1);
    expect(delta(before, after, 'loyalty_ledger_points_total{type="debit"}')).toBe(10);
    expect(delta(before, after, 'loyalty_http_request_duration_seconds_count{face="rest",route="/tiers",method="GET"}')).toBe(7);
    expect(after.has('loyalty_db_pool_connections{state="in_use"}')).toBe(true);
  });
});
