// The admin face's token: `Authorization: Bearer <admin token>` to its merchant, or 401
// invalid_token. A public API key is not an admin token (different prefix and checksum),
// so it is refused before the database is asked.
import type { Plugin } from 'graphql-yoga';
import type { Db } from '../../db/client.js';
import { AppError } from '../../domain/errors.js';
import { hashToken, isWellFormed } from '../../domain/tokens.js';
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

export function useAdminAuth(db: Db): Plugin {
  return {
    onRequest: checkRequest(async ({ request, state }) => {
      if (request.method === 'OPTIONS') return; // a CORS preflight carries no credentials
      state.merchantId = await authenticateAdmin(db, request.headers.get('authorization'));
    }),
  };
}
