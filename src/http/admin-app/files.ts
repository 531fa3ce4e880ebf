// The admin app's built files (admin-app/dist, made by `npm run build`): GET /admin and every
// page of the app (/admin/customers/…: the app routes in the browser) answer index.html;
// /admin/assets/… the bundles, whose names carry their content hash (cached for a year).
// Nothing comes from elsewhere but the products' images (https): the app works offline.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Plugin } from 'graphql-yoga';
import { AppError } from '../../domain/shared/errors.js';
import { projectRoot } from '../../project-root.js';
import { checkRequest } from '../plugins/checks.js';

const APP_PATH = '/admin';
/** The repository's admin-app/dist. */
export const APP_DIST = path.join(projectRoot, 'admin-app/dist');

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

/**
 * The page's rules: scripts, styles and requests from this origin only; never framed. Images
 * may also come from any https address: rewards and earning rules name their product's image
 * on the shop's own CDN, whatever its host. Only images, and only over https.
 */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: https:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

const ASSET = /^\/admin\/assets\/[\w.-]+$/;
/** A page of the app: no dot in its last segment (a missing file like /admin/x.js is 404). */
const PAGE = /^\/admin(\/[\w/-]*)?$/;

export function useAppFiles(dist = APP_DIST, isApi: (path: string) => boolean): Plugin {
  // the hashed assets never change; index.html is read each time (a rebuild changes it)
  const assets = new Map<string, Blob>();
  const read = async (file: string, html: boolean) => {
    if (html) return new Blob([await readFile(file)]);
    let body = assets.get(file);
    if (!body) assets.set(file, (body = new Blob([await readFile(file)])));
    return body;
  };
  return {
    onRequest: checkRequest(async ({ request, url }) => {
      const pathname = url.pathname;
      if ((request.method !== 'GET' && request.method !== 'HEAD') || isApi(pathname)) return;
      const name = ASSET.test(pathname) ? pathname.slice(APP_PATH.length + 1) : PAGE.test(pathname) ? 'index.html' : '';
      if (!name) throw new AppError('not_found', `No route GET ${pathname}`);
      const file = path.join(dist, name);
      if (!existsSync(file)) {
        if (name === 'index.html') {
          throw new AppError('service_unavailable', 'The admin app is not built: run `npm run build` (npm start builds it)');
        }
        throw new AppError('not_found', `No route GET ${pathname}`);
      }
      const html = name === 'index.html';
      return new Response(await read(file, html), {
        headers: {
          'Content-Type': types[path.extname(file)] ?? 'application/octet-stream',
          'Cache-Control': html ? 'no-store' : 'public, max-age=31536000, immutable',
          ...(html && { 'Content-Security-Policy': CSP }),
        },
      });
    }),
  };
}
