// The admin face's token: `Authorization: Bearer <admin token>` to its merchant, or 401
// invalid_token. A public API key is not an admin token (different prefix and checksum),
// so it is refused before the database is asked. Failed attempts are counted per client
// address: past the limit the address is locked out (429) for the window, and each failure
// is logged (never the token).
import type { Plugin } from 'graphql-yoga';
import type { Db } from '../../db/client.js';
import { AppError } from '../../domain/shared/errors.js';
import { hashToken, isWellFormed } from '../../domain/access/tokens.js';
import { rateLimited } from '../../observability/metrics.js';
import { refusal } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Lockout } from '../rate-limiter.js';
import { checkRequest } from './checks.js';

export const invalidAdminToken = () => new AppError('invalid_token', 'The admin token is invalid');

/** Resolves `Authorization: Bearer <admin token>` to its merchant's id, or 401. */
export async function authenticateAdmin(db: Db, header: string | null): Promise<string> {
  const token = header?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  if (!token || !isWellFormed('admin', token)) throw invalidAdminToken();
  const merchant = await db.merchant.findUnique({ where: { adminTokenHash: hashToken(token) }, select: { id: true } });
  if (!merchant) throw invalidAdminToken();
  return merchant.id;
}

export function useAdminAuth(db: Db, lockout: Lockout, logger: Logger): Plugin {
  const check = checkRequest(async ({ request, state, client }) => {
    if (request.method === 'OPTIONS') return; // a CORS preflight carries no credentials
    const wait = await lockout.lockedFor(client);
    if (wait) {
      const locked = refusal(new AppError('rate_limited', `Too many failed sign-ins; retry in ${wait} s`), state.face);
      locked.headers.set('Retry-After', String(wait));
      rateLimited.inc({ face: 'admin' });
      return locked;
    }
    try {
      state.merchantId = await authenticateAdmin(db, request.headers.get('authorization'));
    } catch (err) {
      if (err instanceof AppError && err.code === 'invalid_token') {
        await lockout.failed(client);
        logger.warn({ client, path: new URL(request.url).pathname }, 'admin authentication failed');
      }
      throw err;
    }
  });
  return { onRequest: check };
}
