// The admin face's token: `Authorization: Bearer <admin token>` to its merchant, or 401
// invalid_token. A public API key is not an admin token (different prefix and checksum),
// so it is refused before the database is asked, saying so, and is not a failed sign-in.
// Failed attempts are counted per client address (TRUST_PROXY decides which address that is:
// client-address.ts) and, for a well-formed admin token, per token prefix, so one token
// guessed from many addresses is locked too: past the limit on either, the attempt is locked
// out (429) for the window, and each failure is logged (never the token). The admin app's
// sign-in (admin-app/session.ts) counts against the same lockout.
import type { Plugin } from 'graphql-yoga';
import type { Db } from '../../db/client.js';
import { bearerToken, hashToken, isWellFormed, tokenPrefix } from '../../domain/access/tokens.js';
import { AppError } from '../../domain/shared/errors.js';
import type { Logger } from '../../observability/logger.js';
import { rateLimited } from '../../observability/metrics.js';
import { refusal } from '../errors.js';
import type { Lockout } from '../rate-limiter.js';
import type { RequestKind } from '../request-state.js';
import { checkRequest } from './checks.js';

export const invalidAdminToken = () => new AppError('invalid_token', 'The admin token is invalid');
const apiKeyNotAdminToken = () =>
  new AppError(
    'invalid_token',
    'This is an API key, and an API key is not an admin token: the admin API takes the merchant’s admin token (lpa_…); API keys (lpk_…) are for /v1 and /graphql',
  );

/** The merchant of an admin token (and the token's prefix, which names it in the audit log), or 401. */
async function merchantOfAdminToken(db: Db, token: string | undefined): Promise<{ merchantId: string; tokenPrefix: string }> {
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
 * while the client address, or the prefix of the admin token tried, is locked out (whatever it
 * sends); 401 for a wrong token (counted, logged), or for an API key (neither).
 */
export async function signInAttempt(
  { db, lockout, logger }: AdminSignIn,
  attempt: { client: string; path: string; kind: RequestKind; token: () => string | undefined },
): Promise<{ merchantId: string; tokenPrefix: string } | { refused: Response }> {
  const token = attempt.token();
  // a malformed token cannot be anyone's token: it is counted against its address only
  const prefix = token && isWellFormed('admin', token) ? tokenPrefix('admin', token) : undefined;
  const keys = [`address:${attempt.client}`, ...(prefix ? [`token:${prefix}`] : [])];
  const wait = await lockout.lockedFor(keys);
  if (wait) {
    const locked = refusal(new AppError('rate_limited', `Too many failed sign-ins; retry in ${wait} s`), attempt.kind);
    locked.headers.set('Retry-After', String(wait));
    rateLimited.inc({ face: 'admin' });
    return { refused: locked };
  }
  // sent here by mistake, it can never be right: no guess, not counted
  if (token && isWellFormed('api_key', token)) throw apiKeyNotAdminToken();
  try {
    return await merchantOfAdminToken(db, token);
  } catch (err) {
    if (err instanceof AppError && err.code === 'invalid_token') {
      const locked = await lockout.failed(keys);
      const who = { client: attempt.client, ...(prefix ? { token_prefix: prefix } : {}) };
      logger.warn({ ...who, path: attempt.path }, 'admin authentication failed');
      if (locked.length) logger.warn({ ...who, locked: locked.map((key) => key.split(':')[0]) }, 'admin sign-ins locked out');
    }
    throw err;
  }
}

export function useAdminAuth(signIn: AdminSignIn): Plugin {
  const check = checkRequest(async ({ request, url, state, client }) => {
    if (request.method === 'OPTIONS') return; // a CORS preflight carries no credentials
    const token = () => bearerToken(request.headers.get('authorization'));
    const result = await signInAttempt(signIn, { client, path: url.pathname, kind: state.kind, token });
    if ('refused' in result) return result.refused;
    state.merchantId = result.merchantId;
    state.actor = `token:${result.tokenPrefix}`;
  });
  return { onRequest: check };
}
