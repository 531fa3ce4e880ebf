// Real-browser tests: Debian's Chromium driven by playwright-core, against the service on a
// loopback port. Chromium is installed by .ci/run; where it is missing the tests say so and skip.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import type { createApp } from '../../src/http/app.js';

const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
const screenshotsDir = path.resolve(import.meta.dirname, '../../test-results/screenshots');

export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Serves the app's Node listener on a loopback port. */
export async function serve(app: ReturnType<typeof createApp>): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(app.listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function screenshotPath(name: string) {
  mkdirSync(screenshotsDir, { recursive: true });
  return path.join(screenshotsDir, `${name}.png`);
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's WCAG 2.1 A/AA violations on the page as it is now (evaluated by DevTools: the page's CSP does not apply). */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const result = await (
      window as unknown as { axe: { run(options: object): Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }> } }
    ).axe.run({
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

/**
 * A page on the served app, in a context that may use the clipboard and reaches nothing but the
 * service (anything else is cut, as if the machine had no network, and noted in `outside`);
 * `problems` collects the errors the page logs.
 */
export async function openPage(browser: Browser, url: string) {
  const outside: string[] = [];
  const problems: string[] = [];
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
  await context.route(/^(?!http:\/\/127\.0\.0\.1:)/, (route) => {
    outside.push(route.request().url());
    return route.abort();
  });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => void problems.push(error.message));
  return { context, page, outside, problems };
}

/**
 * The admin app's dashboard, loaded afresh in a signed-in page: a test that starts here finds no
 * dialog left open, nor a page left half-way, by one that failed before it.
 */
export async function freshDashboard(page: Page, base: string) {
  await page.goto(`${base}/admin/dashboard`);
  await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
}
