// /admin refuses cross-origin requests (403 csrf_rejected): a request whose Origin is not the
// app's own, or that the browser marks as coming from another site (Sec-Fetch-Site), except a
// plain navigation to one of the app's pages (a link to it from elsewhere, which carries no
// session cookie: it is SameSite=Strict). The app's API (sign-in, session, GraphQL) must show
// that it comes from the app's own pages: Origin equal to its own, or Sec-Fetch-Site
// same-origin. No CORS preflight is answered, so no other page can send the CSRF header.
import type { Plugin } from 'graphql-yoga';
import { AppError } from '../../domain/shared/errors.js';
import { checkRequest } from '../plugins/checks.js';
import { ownOrigin } from './cookie.js';

const refused = (why: string) => new AppError('csrf_rejected', `Cross-origin request refused: ${why}`);

export function useSameOrigin(isApi: (path: string, method: string) => boolean): Plugin {
  return {
    onRequest: checkRequest(({ request, url, state }) => {
      const origin = request.headers.get('origin');
      const site = request.headers.get('sec-fetch-site');
      if (request.method === 'OPTIONS') throw refused('the admin app answers no CORS preflight');
      if (origin !== null && origin !== ownOrigin(request, state)) throw refused(`origin ${origin} is not this app's`);
      const api = isApi(url.pathname, request.method);
      if (site && site !== 'same-origin' && site !== 'none') {
        const navigation = !api && request.method === 'GET' && request.headers.get('sec-fetch-mode') === 'navigate';
        if (!navigation) throw refused(`the request came from another site (${site})`);
      }
      if (api && origin === null && site !== 'same-origin') throw refused('send the Origin header');
    }),
  };
}
