// The <loyalty-panel>'s time to first render: a shop's page (its own origin) that includes the
// panel's script from a running service (the bundle on an embedded database seeded with the
// demo program), loaded in Debian's Chromium (playwright-core, as the browser tests) N times,
// each in a fresh browser context (no cache, no connection kept), for the signed-out view (a
// publishable key) and the signed-in one (a customer session). Each run measures, from the
// navigation's start, the first frame in which the panel shows its loading line and the first
// frame in which it shows the program (its first meaningful render). Also the script's size as
// served and gzipped. `npm run bench -- --panel-only [--panel-runs N]`. Not part of the service.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { demoProgram } from '../src/cli/seed/demo-program.js';
import { createPrisma } from '../src/db/client.js';
import { startEmbedded } from '../src/db/embedded.js';
import { mintCustomerSession } from '../src/domain/access/customer-sessions.js';
import { importProgram } from '../src/domain/program-import/program-import.js';
import { createStorefrontKey } from '../src/domain/storefront/storefront-keys.js';
import { updateStorefrontSettings } from '../src/domain/storefront/storefront-settings.js';
import { PANEL_PATH, PANEL_SOURCE } from '../src/http/storefront-panel.js';
import { hasChromium, launch } from '../test/browser/browser.js';
import { createTenant } from './data.js';
import { startServer } from './servers.js';

export type PanelView = 'guest' | 'signed_in';

export interface PanelViewResult {
  view: PanelView;
  runs: number;
  /** ms from navigation start to the first frame showing the panel's loading line. */
  loading_median_ms: number;
  /** ms from navigation start to the first frame showing the program (the first meaningful render). */
  median_ms: number;
  p90_ms: number;
  min_ms: number;
  max_ms: number;
}

export interface PanelResult {
  script_bytes: number;
  script_gzip_bytes: number;
  views: PanelViewResult[];
  load_average: { start: number[]; end: number[] };
  chromium: string;
}

/** What the page looks for in each view, once the panel is no longer busy. */
const expected: Record<PanelView, string> = { guest: 'Sign in to earn points', signed_in: 'Your points' };

/**
 * A shop's page on its own port: `/guest` and `/signed_in` include the panel's script from the
 * service. It listens before the service starts (the service must know its origin), so the
 * pages are written once `serve` names the service and the keys.
 */
async function shopPages() {
  let pages: Record<string, string> = {};
  const server: Server = createServer((req, res) => {
    const html = pages[req.url ?? ''];
    if (!html) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    serve(serviceUrl: string, key: string, session: string) {
      const page = (attributes: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>The shop</title></head>
<body><main><h1>The shop</h1><loyalty-panel id="panel" ${attributes}></loyalty-panel></main>
<script src="${serviceUrl}${PANEL_PATH}"></script></body></html>`;
      pages = {
        '/guest': page(`publishable-key="${key}"`),
        '/signed_in': page(`publishable-key="${key}" session-token="${session}"`),
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Runs in the page before any of its scripts: on every animation frame (the frames Chromium
 * paints), notes when the panel's shadow root first shows its loading line, then when it first
 * shows the program (not busy, no error, the view's text present). Plain JavaScript in a string:
 * tsx would name a function's inner functions with a helper the page does not have.
 */
const watchPanel = (text: string) => `(() => {
  const text = ${JSON.stringify(text)};
  const marks = (window.__panel = {});
  const frame = (now) => {
    const root = document.querySelector('loyalty-panel')?.shadowRoot;
    const panel = root?.querySelector('[part="panel"]');
    if (panel && marks.loading === undefined) marks.loading = now;
    if (panel && !panel.hasAttribute('aria-busy')) {
      const error = root.querySelector('[role="alert"]');
      if (error) marks.failed = error.textContent || 'error';
      else if (panel.textContent.includes(text)) marks.shown = now;
    }
    if (marks.shown === undefined && marks.failed === undefined) requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})();`;

const percentile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
const round = (ms: number) => Math.round(ms * 10) / 10;

async function measureView(browser: Browser, url: string, view: PanelView, runs: number, warmup: number): Promise<PanelViewResult> {
  const loading: number[] = [];
  const shown: number[] = [];
  for (let i = 0; i < warmup + runs; i++) {
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
    try {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => void errors.push(error.message));
      page.on('console', (message) => void (message.type() === 'error' && errors.push(message.text())));
      await page.addInitScript({ content: watchPanel(expected[view]) });
      await page.goto(url);
      await page
        .waitForFunction(
          'window.__panel !== undefined && (window.__panel.shown !== undefined || window.__panel.failed !== undefined)',
          undefined,
          { timeout: 30_000 },
        )
        .catch((err: Error) => {
          throw new Error(`the ${view} panel did not render: ${err.message}; the page said: ${errors.join(' | ') || 'nothing'}`);
        });
      const marks = await page.evaluate(
        () => (window as unknown as { __panel: { loading: number; shown?: number; failed?: string } }).__panel,
      );
      if (marks.failed !== undefined || marks.shown === undefined) throw new Error(`the ${view} panel showed an error: ${marks.failed}`);
      if (i < warmup) continue;
      loading.push(marks.loading);
      shown.push(marks.shown);
    } finally {
      await context.close();
    }
  }
  shown.sort((a, b) => a - b);
  loading.sort((a, b) => a - b);
  return {
    view,
    runs,
    loading_median_ms: round(percentile(loading, 0.5)),
    median_ms: round(percentile(shown, 0.5)),
    p90_ms: round(percentile(shown, 0.9)),
    min_ms: round(shown[0]!),
    max_ms: round(shown.at(-1)!),
  };
}

/**
 * Seeds an embedded database (the demo program, a publishable key, the shop's origin allowed,
 * a session for its first customer), starts the service on it as `npm start` does, and
 * measures both views. Null (with the reason logged) where Chromium is missing.
 */
export async function panelRow(opts: { runs: number; warmup: number; log: (msg: string) => void }): Promise<PanelResult | null> {
  if (!hasChromium) {
    opts.log('panel: SKIPPED (no Chromium at /usr/bin/chromium)');
    return null;
  }
  const loadStart = os.loadavg().map((l) => Math.round(l * 100) / 100);
  const script = readFileSync(PANEL_SOURCE);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'loyalty-bench-panel-'));
  let shop: Awaited<ReturnType<typeof shopPages>> | undefined;
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  let browser: Browser | undefined;
  try {
    shop = await shopPages();
    const database = await startEmbedded(dataDir);
    let seeded: { apiKey: string; publishable: string; session: string };
    try {
      const tenant = await createTenant(database.url);
      const db = createPrisma(database.url, 2);
      try {
        await importProgram(db, tenant.merchantId, demoProgram());
        await updateStorefrontSettings(db, tenant.merchantId, { allowed_origins: [shop.origin] });
        const customer = await db.customer.findFirstOrThrow({ where: { merchantId: tenant.merchantId, status: 'member' } });
        const publishable = (await createStorefrontKey(db, tenant.merchantId, { name: 'bench' })).key;
        const { token } = await mintCustomerSession(
          db,
          tenant.merchantId,
          { customer_id: customer.platformId },
          { defaultTtl: 3600, maxTtl: 3600 },
        );
        seeded = { apiKey: tenant.key, publishable, session: token };
      } finally {
        await db.$disconnect();
      }
    } finally {
      await database.close();
    }
    server = await startServer({ kind: 'service', key: seeded.apiKey, database: { dataDir }, label: 'service (panel)' });
    shop.serve(server.url, seeded.publishable, seeded.session);
    browser = await launch();
    opts.log(`panel: service on ${server.url}, shop page on ${shop.origin}, ${opts.runs} runs per view after ${opts.warmup} discarded`);
    const views: PanelViewResult[] = [];
    for (const view of ['guest', 'signed_in'] as const) {
      views.push(await measureView(browser, `${shop.origin}/${view}`, view, opts.runs, opts.warmup));
      opts.log(`  panel ${view}: ${JSON.stringify(views.at(-1))}`);
    }
    return {
      script_bytes: script.length,
      script_gzip_bytes: gzipSync(script, { level: 9 }).length,
      views,
      load_average: { start: loadStart, end: os.loadavg().map((l) => Math.round(l * 100) / 100) },
      chromium: browser.version(),
    };
  } finally {
    await browser?.close();
    await shop?.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function panelTable(result: PanelResult | null): string {
  if (!result) return '\n== <loyalty-panel> first render ==\n  SKIPPED (no Chromium)';
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const lines = result.views.map(
    (v) =>
      `  ${v.view.padEnd(10)} ${String(v.runs).padStart(4)} runs   loading ${String(v.loading_median_ms).padStart(6)} ms   first render median ${String(v.median_ms).padStart(6)} ms, p90 ${String(v.p90_ms).padStart(6)} ms (min ${v.min_ms}, max ${v.max_ms})`,
  );
  return [
    '\n== <loyalty-panel> first render (from navigation start, fresh context each run) ==',
    ...lines,
    `  script ${kb(result.script_bytes)}, gzip ${kb(result.script_gzip_bytes)}; Chromium ${result.chromium}; load average ${result.load_average.start.join(' ')} → ${result.load_average.end.join(' ')}`,
  ].join('\n');
}
