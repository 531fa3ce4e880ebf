// GET /storefront/loyalty-panel.js: the <loyalty-panel> custom element, one script any page
// includes (src/storefront-panel/loyalty-panel.js, served as it is written: plain JavaScript,
// nothing to build). Any page may load it (it holds no secret), and it sends nothing but its
// own GraphQL requests to this service. GET /storefront/demo: a storefront page showing the
// panel, outside production only.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '../domain/shared/errors.js';
import { projectRoot } from '../project-root.js';
import { appErrorResponse } from './errors.js';

export const STOREFRONT_PATH = '/storefront';
export const PANEL_PATH = `${STOREFRONT_PATH}/loyalty-panel.js`;
const DEMO_PATH = `${STOREFRONT_PATH}/demo`;
export const PANEL_SOURCE = path.join(projectRoot, 'src', 'storefront-panel', 'loyalty-panel.js');

let script: string | undefined;

const demoPage = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Demo storefront: the loyalty panel</title>
  <style>
    body { font-family: system-ui, sans-serif; margin: 0; color: #111827; background: #f9fafb; }
    header { background: #111827; color: #fff; padding: 1rem 2rem; }
    main { display: grid; grid-template-columns: minmax(0, 1fr) 28rem; gap: 2rem; padding: 2rem; }
    label { display: block; margin: .5rem 0 .2rem; font-weight: 600; }
    input { width: 100%; box-sizing: border-box; padding: .4rem; font: inherit; }
    button { margin-top: .8rem; font: inherit; padding: .4rem 1rem; }
    @media (max-width: 50rem) { main { grid-template-columns: 1fr; } }
  </style>
</head>
<body>
  <header><h1>Demo storefront</h1></header>
  <main>
    <section aria-labelledby="setup">
      <h2 id="setup">Try the panel</h2>
      <p>Paste a publishable storefront key (<code>loyalty storefront key-create</code>) of a shop that
        lists this page's origin (<code>loyalty storefront origins</code>), and, to see a shopper's view,
        a customer session token its backend minted (<code>create_customer_session</code>).
        Both may also be given in this page's address: <code>?key=…&amp;token=…</code>.</p>
      <form id="credentials">
        <label for="key">Publishable key</label><input id="key" name="key" autocomplete="off">
        <label for="token">Customer session token (optional)</label><input id="token" name="token" autocomplete="off">
        <button type="submit">Show</button>
      </form>
    </section>
    <loyalty-panel id="panel"></loyalty-panel>
  </main>
  <script src="${PANEL_PATH}"></script>
  <script src="${DEMO_PATH}/demo.js"></script>
</body>
</html>
`;

const demoScript = `const params = new URLSearchParams(location.search);
const panel = document.getElementById('panel');
const form = document.getElementById('credentials');
form.key.value = params.get('key') || '';
form.token.value = params.get('token') || '';
const show = () => {
  panel.sessionToken = form.token.value.trim();
  panel.publishableKey = form.key.value.trim();
};
form.addEventListener('submit', (event) => (event.preventDefault(), show()));
show();
`;

const answer = (body: string, type: string, cacheControl: string, extra: Record<string, string> = {}) =>
  new Response(body, { headers: { 'Content-Type': type, 'Cache-Control': cacheControl, 'X-Content-Type-Options': 'nosniff', ...extra } });

/** The panel's script and, outside production, the demo storefront (pathname under /storefront). */
export function storefrontPanel(pathname: string, demo: boolean): Response {
  if (pathname === PANEL_PATH) {
    script ??= readFileSync(PANEL_SOURCE, 'utf8');
    // every shop's pages load it, also as a module script (which needs CORS) or under COEP
    return answer(script, 'text/javascript; charset=utf-8', 'public, max-age=300', {
      'Access-Control-Allow-Origin': '*',
      'Cross-Origin-Resource-Policy': 'cross-origin',
    });
  }
  if (demo && pathname === DEMO_PATH) {
    return answer(demoPage, 'text/html; charset=utf-8', 'no-store', {
      'Content-Security-Policy':
        "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; base-uri 'none'; form-action 'self'",
    });
  }
  if (demo && pathname === `${DEMO_PATH}/demo.js`) return answer(demoScript, 'text/javascript; charset=utf-8', 'no-store');
  return appErrorResponse(new AppError('not_found', `No route GET ${pathname}`));
}
