// The admin face's token: `Authorization: Bearer <admin token>` to its merchant, or 401
// invalid_token. A public API key is not an admin token (different prefix and checksum),
// so it is refused before the database is asked. Failed attempts are counted per client
// address: past the limit the address is locked out (429) for the window, and each failure
// is logged (never the token). The admin app's sign-in (admin-app/session.ts) counts against
// the same lockout.
import type { Plugin } from 'graphql-yoga';
import type { Db } from '../../db/client.js';
import { AppError } from '../../domain/shared/errors.js';
import { bearerToken, hashToken, isWellFormed } from '../../domain/access/tokens.js';
import { rateLimited } from '../../observability/metrics.js';
import { refusal } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Lockout } from '../rate-limiter.js';
import type { Face } from '../request-state.js';
import { checkRequest } from './checks.js';

export const invalidAdminToken = () => new AppError('invalid_token', 'The admin token is invalid');

/** The merchant of an admin token (and the token's prefix, which names it in the audit log), or 401. */
export async function merchantOfAdminToken(db: Db, token: string | undefined): Promise<{ merchantId: string; tokenPrefix: string }> {
  if (!token || !isWellFormed('admin', token)) throw invalidAdminToken();
  const merchant = await db.merchant.findUnique({
    where: { adminTokenHash: hashToken(token) },
    select: { id: true, adminTokenPrefix: true },
  });
  if (!merchant) throw invalidAdminToken();
  return { merchantId: merchant.id, tokenPrefix: merchant.adminTokenPrefix ?? '' };
}

export interface AdminSignIn {
  db: Db;
  lockout: Lockout;
  logger: Logger;
}

/**
 * The merchant of `token` tried by `client`, or the refusal to answer: 429 with Retry-After
 * while the client is locked out (whatever it sends), 401 for a wrong token (counted, logged).
 */
export async function signInAttempt(
  { db, lockout, logger }: AdminSignIn,
  attempt: { client: string; path: string; face: Face; token: () => string | undefined },
): Promise<{ merchantId: string; tokenPrefix: string } | { refused: Response }> {
  const wait = await lockout.lockedFor(attempt.client);
  if (wait) {
    const locked = refusal(new AppError('rate_limited', `Too many failed sign-ins; retry in ${wait} s`), attempt.face);
    locked.headers.set('Retry-After', String(wait));
    rateLimited.inc({ face: 'admin' });
    return { refused: locked };
  }
  try {
    return await merchantOfAdminToken(db, attempt.token());
  } catch (err) {
    if (err instanceof AppError && err.code === 'invalid_token') {
      await lockout.failed(attempt.client);
      logger.warn({ client: attempt.client, path: attempt.path }, 'admin authentication failed');
    }
    throw err;
  }
}

export function useAdminAuth(signIn: AdminSignIn): Plugin {
  const check = checkRequest(async ({ request, url, state, client }) => {
    if (request.method === 'OPTIONS') return; // a CORS preflight carries no credentials
    const token = () => bearerToken(request.headers.get('authorization'));
    const result = await signInAttempt(signIn, { client, path: url.pathname, face: state.face, token });
    if ('refused' in result) return result.refused;
    state.merchantId = result.merchantId;
    state.actor = `token:${result.tokenPrefix}`;
  });
  return { onRequest: check };
}
