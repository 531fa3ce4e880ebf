// The database's notifications, which keep each instance's caches of API keys, storefront
// settings and ended sessions fresh: one LISTEN connection per app, and its loss is loud (an
// error logged once, /readyz "degraded", loyalty_notifications_up 0) until it comes back by
// itself (a warning). A connection that LISTENs but never hears (a pooler that cannot LISTEN)
// is found out by the feed's own heartbeat, and nothing is cached meanwhile.
import { pino } from 'pino';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_CHANNEL, listenTo } from '../../src/db/notifications.js';
import { createApp } from '../../src/http/app.js';
import { newKey, newMerchant, type TestApp, testApp, testConfig } from '../harness.js';
import { cuttableProxy } from '../processes.js';

const METRICS_TOKEN = 'notifications-metrics-token';
let app: TestApp;
beforeAll(async () => {
  app = await testApp();
});

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

/** A pino logger whose lines the test reads. */
function capturedLogger() {
  const lines: { level: number; msg: string; [k: string]: unknown }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const about = (level: number) => lines.filter((l) => l.level === level && /notifications/.test(l.msg));
  return { logger, errors: () => about(50), warnings: () => about(40) };
}

/** The URL of `proxy`'s port, to the test's database. */
const through = (proxy: { port: number }) => {
  const url = new URL(app.url);
  url.host = `127.0.0.1:${proxy.port}`;
  return url.toString();
};

/**
 * What the server answers, without its NotificationResponse messages ('A') while `deaf()` holds:
 * a connection that LISTENs and never hears. Messages may span chunks.
 */
function withoutNotifications(deaf: () => boolean) {
  return () => {
    let pending = Buffer.alloc(0);
    return (data: Buffer) => {
      pending = Buffer.concat([pending, data]);
      const kept: Buffer[] = [];
      let at = 0;
      // the first answer (to the startup message) is typed too; SSL is not asked for
      while (pending.length - at >= 5) {
        const end = at + 1 + pending.readInt32BE(at + 1);
        if (end > pending.length) break;
        if (!(deaf() && pending[at] === 0x41)) kept.push(pending.subarray(at, end));
        at = end;
      }
      pending = pending.subarray(at);
      return Buffer.concat(kept);
    };
  };
}

describe('the notification feed', () => {
  it('is one LISTEN connection for the whole app, and its loss is loud until it is back', async () => {
    let listens = 0;
    const proxy = cuttableProxy(new URL(app.url), 5432, {
      sent: (data) => void (listens += data.toString('latin1').split(`LISTEN "${AUTH_CHANNEL}"`).length - 1),
    });
    await proxy.open();
    closing.push(() => proxy.cut().catch(() => {}));
    const { logger, errors, warnings } = capturedLogger();
    // only the feed goes through the proxy; the app's queries do not
    const service = createApp({ db: app.db, databaseUrl: through(proxy), logger, config: testConfig({ METRICS_TOKEN }) });
    closing.unshift(() => service.close());
    const ready = async () => {
      const res = await service.fetch('http://t/readyz');
      return { status: res.status, body: await res.json() };
    };
    const up = async () => {
      const res = await service.fetch('http://t/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      return /^loyalty_notifications_up (\S+)$/m.exec(await res.text())?.[1];
    };
    const merchant = await newMerchant(app, 'feed');
    const key = await newKey(app, merchant.id);
    const rewards = () => service.fetch('http://t/v1/rewards', { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);

    await expect.poll(ready).toEqual({ status: 200, body: { status: 'ready', notifications: 'up' } });
    expect(await up()).toBe('1');
    // the key cache, the storefront cache and the ended sessions share it
    expect(await rewards()).toBe(200);
    expect(listens).toBe(1);
    expect(errors()).toEqual([]);

    await proxy.cut();
    await expect.poll(ready).toEqual({ status: 200, body: { status: 'degraded', notifications: 'down' } });
    expect(await up()).toBe('0');
    expect(errors()).toHaveLength(1);
    expect(errors()[0]!.msg).toMatch(/read from the database on every request until they are back/);
    // requests are still answered, from the database
    expect(await rewards()).toBe(200);

    await proxy.open();
    await expect.poll(ready).toEqual({ status: 200, body: { status: 'ready', notifications: 'up' } });
    expect(await up()).toBe('1');
    expect(errors()).toHaveLength(1);
    expect(warnings().map((l) => l.msg)).toEqual(['database notifications are back: caches on again']);
    expect(listens).toBe(2);
  });

  it('finds out a connection that LISTENs but never hears, and comes up once it hears', async () => {
    let deaf = true;
    const proxy = cuttableProxy(new URL(app.url), 5432, { passed: withoutNotifications(() => deaf) });
    await proxy.open();
    closing.push(() => proxy.cut().catch(() => {}));
    const { logger, errors, warnings } = capturedLogger();
    const feed = listenTo(through(proxy), [AUTH_CHANNEL], logger, { everyMs: 200, withinMs: 500 });
    closing.unshift(() => feed.close());
    const heard: string[] = [];
    feed.subscribe({ onMessage: (payload) => heard.push(payload), onReset: () => {} });

    // its own first notification never comes back: never live, and said once
    await expect.poll(() => errors().length).toBe(1);
    expect(errors()[0]!.err).toMatch(/its own notification did not come back within 500 ms/);
    expect(feed.live).toBe(false);

    deaf = false;
    await expect.poll(() => feed.live).toBe(true);
    expect(warnings()).toHaveLength(1);
    await app.db.$executeRaw`SELECT pg_notify(${AUTH_CHANNEL}, 'storefront:someone')`;
    // other test files share the database and its channels (a key they revoke is heard here too)
    await expect.poll(() => heard).toContain('storefront:someone');

    // a live feed that goes deaf is taken down by its next heartbeat
    deaf = true;
    await expect.poll(() => feed.live).toBe(false);
    expect(errors()).toHaveLength(2);
    // the heartbeats themselves (every 200 ms while it was live) never reached a subscriber
    expect(heard.filter((payload) => payload.startsWith('heartbeat:'))).toEqual([]);
  });
});
