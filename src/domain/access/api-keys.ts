// API keys (spec section 5): created with fixed scopes, shown once, stored as a hash,
// revoked immediately. Requests authenticate through key-cache.ts, which keeps revocation
// immediate across processes.
import type { Db } from '../../db/client.js';
import { rowsOf } from '../../db/sql.js';
import { type ApiKey, Prisma } from '../../generated/prisma/client.js';
import { AppError, notFound, validationError } from '../shared/errors.js';
import { isUuid } from '../shared/records.js';
import type { KeyPrincipal } from './principal.js';
import { customScopes, fullAccessScopes, type KeyType, readOnlyScopes } from './scopes.js';
import { bearerToken, generateToken, hashToken, hasTokenShape, isWellFormed } from './tokens.js';

export interface CreateKeyInput {
  merchantId: string;
  type: KeyType;
  name?: string;
  /** For custom keys: scope name → none | read | write. */
  levels?: Record<string, string>;
}

function scopesFor(type: KeyType, levels: Record<string, string> = {}): string[] {
  if (type === 'full') return fullAccessScopes();
  if (type === 'read_only') return readOnlyScopes();
  const result = customScopes(levels);
  if ('errors' in result) throw validationError({ scopes: result.errors });
  if (result.grants.length === 0) throw validationError({ scopes: ['a custom key needs at least one scope'] });
  return result.grants;
}

/** A key just created, with the key itself: shown this once, as only its hash is stored. */
export type CreatedApiKey = ApiKey & { key: string };

export async function createApiKey(db: Db, input: CreateKeyInput): Promise<CreatedApiKey> {
  const scopes = scopesFor(input.type, input.levels);
  const { token, hash, prefix } = generateToken('api_key');
  const name = input.name?.trim() || `${input.type} key`;
  const row = await db.apiKey.create({
    data: { merchantId: input.merchantId, name, type: input.type, prefix, hash, scopes },
  });
  return { ...row, key: token };
}

export function listApiKeys(db: Db, merchantId: string) {
  return db.apiKey.findMany({ where: { merchantId }, orderBy: { createdAt: 'desc' } });
}

export async function revokeApiKey(db: Db, merchantId: string, id: string) {
  if (!isUuid(id)) throw notFound('API key');
  const key = await db.apiKey.findFirst({ where: { id, merchantId } });
  if (!key) throw notFound('API key');
  const revoked = key.revokedAt ? key : await db.apiKey.update({ where: { id }, data: { revokedAt: new Date() } });
  // this process's caches forget the key now; other processes hear of it from the database
  for (const forget of keyRevokedHere) forget(key.hash);
  return revoked;
}

const keyRevokedHere = new Set<(hash: string) => void>();

/** Calls `forget` with the hash of every key this process revokes; returns the unsubscribe. */
export function onKeyRevokedHere(forget: (hash: string) => void): () => void {
  keyRevokedHere.add(forget);
  return () => keyRevokedHere.delete(forget);
}

/** 401 for a request whose API key is missing, malformed, unknown or revoked: one answer for all, so none is told apart. */
export const invalidApiKey = () => new AppError('invalid_token', 'The API key is invalid or revoked');

// last_used_at is informative; writing it on every request would double the cost of reads
const LAST_USED_RESOLUTION_MS = 60_000;
const lastUsedWritten = new Map<string, number>();

/**
 * The API key in `Authorization: Bearer <key>` and its hash; a key of another shape is 401
 * before anything is hashed. Its checksum is checked by principalOfKey, on a cache miss only:
 * a key whose hash is cached passed it when it was cached.
 */
export function bearerKey(header: string | null): { token: string; hash: string } {
  const token = bearerToken(header);
  if (!token || !hasTokenShape('api_key', token)) throw invalidApiKey();
  return { token, hash: hashToken(token) };
}

/**
 * The merchant and scopes of a key (bearerKey) not cached, or 401 for a wrong checksum (before
 * the database is asked), an unknown or a revoked key. This and the last-use write are SQL on
 * the pool (src/db/sql.ts): every request whose key is not cached looks it up, and a read needs
 * nothing else of Prisma, so a fresh process answers its first reads without waiting for
 * Prisma's query compiler to load (~0.3 s, bench/README.md).
 */
export async function principalOfKey(db: Db, { token, hash }: { token: string; hash: string }): Promise<KeyPrincipal> {
  if (!isWellFormed('api_key', token)) throw invalidApiKey();
  const [key] = await rowsOf<{ id: string; merchantId: string; scopes: string[]; revoked: boolean }>(
    db,
    Prisma.sql`SELECT id, merchant_id AS "merchantId", scopes, revoked_at IS NOT NULL AS revoked FROM api_keys WHERE hash = ${hash}`,
  );
  if (!key || key.revoked) throw invalidApiKey();
  return { kind: 'api_key', keyId: key.id, merchantId: key.merchantId, scopes: key.scopes };
}

/** Records that a key was used (at most once a minute per key and process). */
export function noteKeyUse(db: Db, keyId: string) {
  const now = Date.now();
  if ((lastUsedWritten.get(keyId) ?? 0) >= now - LAST_USED_RESOLUTION_MS) return;
  lastUsedWritten.set(keyId, now);
  rowsOf(db, Prisma.sql`UPDATE api_keys SET last_used_at = ${new Date(now)} WHERE id = ${keyId}::uuid`).catch(() => {});
}
