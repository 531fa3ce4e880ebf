// The whole HTTP surface: the public API (GraphQL + REST v1) and the merchant admin
// GraphQL API, as one fetch function (tests) and one Node request listener (the server).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Db } from '../db/client.js';
import { ADMIN_PATH, createAdminServer } from './admin.js';
import { createServer } from './server.js';

const isAdminPath = (path: string) => path === ADMIN_PATH || path.startsWith(`${ADMIN_PATH}?`) || path.startsWith(`${ADMIN_PATH}/`);

export function createApp({ db }: { db: Db }) {
  const publicApi = createServer({ db });
  const adminApi = createAdminServer({ db });
  return {
    fetch(url: string, init?: RequestInit): Promise<Response> {
      const request = new Request(url, init);
      const path = new URL(url).pathname;
      return Promise.resolve(isAdminPath(path) ? adminApi.fetch(request) : publicApi.fetch(request));
    },
    listener(req: IncomingMessage, res: ServerResponse) {
      return isAdminPath(req.url ?? '/') ? adminApi(req, res) : publicApi(req, res);
    },
  };
}
