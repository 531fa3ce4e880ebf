// BENCHMARK BASELINES' SHARED CHECKS, NOT PART OF THE SERVICE: the bearer token, the scope rule
// and the customer session (an HS256 JWT signed with the merchant's session secret) as both
// baselines check them, by the service's rules (src/domain/access/customer-sessions.ts). Where
// the secret and the ended sessions come from is each baseline's own (raw pg caches them,
// Fastify + Prisma reads them per request).
import { createDecoder, createVerifier } from 'fast-jwt';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a customer session may do: the read grants a shopper needs, and redeeming. */
export const SESSION_GRANTS: readonly string[] = [
  'read:customers',
  'write:rewards',
  'read:transactions',
  'read:activities',
  'read:tiers',
  'read:earning_rules',
  'read:referrals',
  'read:points',
  'read:booster_campaigns',
];

/** The token of an `Authorization: Bearer …` header, if there is one. */
export const bearerToken = (header: string | undefined) => header?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];

/** A token shaped as a JWT is a customer session; any other is an API key. */
export const isSessionToken = (token: string) => /^[\w-]+\.[\w-]+\.[\w-]+$/.test(token);

/** Whether `scopes` allow `scope` (a write scope allows its read). */
export function allows(scopes: readonly string[], scope: string) {
  const [access, name] = scope.split(':');
  return scopes.includes(scope) || (access === 'read' && scopes.includes(`write:${name}`));
}

export interface SessionClaims {
  /** The merchant, the customer (uuid) and the session's id. */
  mid: string;
  sub: string;
  jti: string;
}

/** What a session token names, read before its signature is checked (null: not a session of ours). */
export function sessionClaims(token: string): SessionClaims | null {
  let claims: { mid?: unknown; sub?: string; jti?: string };
  try {
    claims = decode(token);
  } catch {
    return null;
  }
  const { mid, sub, jti } = claims;
  if (typeof mid !== 'string' || !UUID.test(mid) || !UUID.test(sub ?? '') || !UUID.test(jti ?? '')) return null;
  return { mid, sub: sub!, jti: jti! };
}

const decode = createDecoder();

/** A verifier per secret (the same bytes while a baseline caches them), as the service keeps one. */
const verifiers = new WeakMap<Uint8Array, (token: string) => Record<string, unknown>>();
function verifierOf(secret: Uint8Array) {
  let verify = verifiers.get(secret);
  if (!verify) {
    verify = createVerifier({
      key: Buffer.from(secret),
      algorithms: ['HS256'],
      allowedIss: 'loyalty',
      allowedAud: 'storefront',
      requiredClaims: ['sub', 'jti', 'exp', 'iat'],
    });
    verifiers.set(secret, verify);
  }
  return verify;
}

/** Whether the token is signed with the merchant's `secret` as the service signs sessions, unexpired, and names what it was read to name. */
export function signedWith(token: string, secret: Uint8Array, claims: SessionClaims) {
  try {
    const payload = verifierOf(secret)(token);
    return payload.mid === claims.mid && payload.sub === claims.sub && payload.jti === claims.jti;
  } catch {
    return false;
  }
}
