// GET /docs: the API reference of REST v1, drawn by Swagger UI from the served OpenAPI
// document. Every asset comes from the swagger-ui-dist package on this machine, so the page
// works with no internet (no CDN, no fonts, no validator call).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { AppError } from '../domain/shared/errors.js';
import { appErrorResponse } from './errors.js';

export const DOCS_PATH = '/docs';

const assetsDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const assets: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Loyalty Points Service: REST v1 reference</title>
  <link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png">
  <link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
</head>
<body>
  <main id="reference"></main>
  <script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
  <script src="${DOCS_PATH}/init.js"></script>
</body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise send the document to an online validator
const init = (documentUrl: string) => `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(documentUrl)},
  dom_id: '#reference',
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

const cache = new Map<string, Blob>();

/** The docs page and its assets (pathname is /docs or below it). */
export async function docs(pathname: string, documentUrl: string): Promise<Response> {
  const headers = { 'Cache-Control': 'public, max-age=3600' };
  if (pathname === DOCS_PATH) return new Response(page, { headers: { ...headers, 'Content-Type': 'text/html; charset=utf-8' } });
  if (pathname === `${DOCS_PATH}/init.js`) {
    return new Response(init(documentUrl), { headers: { ...headers, 'Content-Type': assets['swagger-ui-bundle.js']! } });
  }
  const name = pathname.startsWith(`${DOCS_PATH}/`) ? pathname.slice(DOCS_PATH.length + 1) : '';
  const type = Object.hasOwn(assets, name) ? assets[name] : undefined;
  if (!type) return appErrorResponse(new AppError('not_found', `No route GET ${pathname}`));
  let body = cache.get(name);
  if (!body) cache.set(name, (body = new Blob([await readFile(path.join(assetsDir, name))])));
  return new Response(body, { headers: { ...headers, 'Content-Type': type } });
}
