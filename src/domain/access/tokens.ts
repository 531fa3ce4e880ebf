// Secret tokens (API keys and admin tokens): prefix + random + checksum, so a malformed
// or mistyped token is refused before the database is asked. Only a sha256 is stored.
import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 32;
const CHECK_LENGTH = 6;

export type TokenKind = 'api_key' | 'admin';
const kindPrefix: Record<TokenKind, string> = { api_key: 'lpk_', admin: 'lpa_' };

export function base62(bytes: Buffer, length: number) {
  let out = '';
  for (let i = 0; out.length < length; i++) out += ALPHABET[bytes[i % bytes.length]! % 62];
  return out;
}

export function checksum(body: string) {
  return base62(createHash('sha256').update(body).digest(), CHECK_LENGTH);
}

/** The token in an `Authorization: Bearer <token>` header, if it has that form. */
export function bearerToken(header: string | null | undefined): string | undefined {
  return header?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
}

export function hashToken(token: string) {
  return createHash('sha256').update(token).digest('hex');
}

export function generateToken(kind: TokenKind) {
  // rejection-free: 64 random bytes folded onto 62 symbols; the bias is negligible
  // against 32 symbols of entropy (~190 bits)
  const body = base62(randomBytes(BODY_LENGTH), BODY_LENGTH);
  const token = `${kindPrefix[kind]}${body}${checksum(body)}`;
  return { token, hash: hashToken(token), prefix: tokenPrefix(kind, token) };
}

/** What names a token in the clear (lists, the audit log, lockouts): its kind's prefix and 8 characters more. */
export function tokenPrefix(kind: TokenKind, token: string) {
  return token.slice(0, kindPrefix[kind].length + 8);
}

/** Whether `token` has the shape of a token of this kind (prefix, length, alphabet): no hashing. */
export function hasTokenShape(kind: TokenKind, token: string): boolean {
  const prefix = kindPrefix[kind];
  return (
    token.length === prefix.length + BODY_LENGTH + CHECK_LENGTH &&
    token.startsWith(prefix) &&
    /^[0-9A-Za-z]+$/.test(token.slice(prefix.length))
  );
}

/** Whether `token` has the shape and checksum of a token of this kind. */
export function isWellFormed(kind: TokenKind, token: string): boolean {
  if (!hasTokenShape(kind, token)) return false;
  const prefix = kindPrefix[kind];
  return checksum(token.slice(prefix.length, prefix.length + BODY_LENGTH)) === token.slice(prefix.length + BODY_LENGTH);
}
