// Customer sessions: the merchant's backend (an API key with write:customers) mints
// a short-lived token for one logged-in shopper, which the storefront's browser sends to
// /graphql. The token is a JWT signed with HS256 by the merchant's own secret
// (storefront-settings.ts): verifying it needs no row of its own, and rotating the secret
// ends every session of that merchant. A session is a principal like an API key, with the
// read grants a shopper needs and write:rewards; it sees only its own customer (visibleCustomer).
// A session can be ended on its own (sign-out) or renewed into a new token before it expires;
// either ends its token id (jti) for good: ended-sessions.ts keeps every instance's list of
// them in memory, so refusing an ended token reads no row per request. The token names the
// API key that minted it (`key`), which may end or renew it too.
import { randomUUID } from 'node:crypto';
import { createDecoder, createSigner, createVerifier, TokenError } from 'fast-jwt';
import type { Db } from '../../db/client.js';
import type { CustomerRef } from '../customers/customers.js';
import { findCustomer } from '../customers/customers.js';
import { AppError, notFound, validationError } from '../shared/errors.js';
import type { MaybePromise } from '../shared/maybe-promise.js';
import { isUuid } from '../shared/records.js';
import type { Storefront } from '../storefront/storefront-settings.js';
import { sessionSecretOf } from '../storefront/storefront-settings.js';
import type { SessionPrincipal } from './principal.js';
import type { ScopeGrant } from './scopes.js';

const ISSUER = 'loyalty';
const AUDIENCE = 'storefront';
const ALGORITHM = 'HS256';

/** What a shopper's session may do: read its own records and the public program, and redeem. */
const sessionGrants: readonly ScopeGrant[] = [
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

export interface SessionLimits {
  /** Lifetime when the mint names none, and the longest it may ask for (seconds). */
  defaultTtl: number;
  maxTtl: number;
}

/** The lifetime asked for (or the default), within the limits: 422 otherwise. */
function lifetime(expiresIn: number | null | undefined, fallback: number, maxTtl: number) {
  const ttl = expiresIn ?? Math.min(fallback, maxTtl);
  if (!Number.isInteger(ttl) || ttl < 60 || ttl > maxTtl) {
    throw validationError({ expires_in: [`must be a whole number of seconds from 60 to ${maxTtl}`] });
  }
  return ttl;
}

/**
 * A new token for the merchant's customer, lasting `ttl` seconds, minted by `mintedBy` (an API
 * key's id). `secretDb` reads the merchant's signing secret, and creates it the first time: a
 * reference table's write, which goes through a Citus coordinator (src/db/merchant-nodes.ts).
 */
async function signSession(secretDb: Db, merchantId: string, customerId: string, ttl: number, mintedBy?: string) {
  const sign = createSigner({ key: Buffer.from(await sessionSecretOf(secretDb, merchantId)), algorithm: ALGORITHM });
  const issuedAt = Math.floor(Date.now() / 1000);
  const token = sign({
    mid: merchantId,
    ...(mintedBy && { key: mintedBy }),
    iss: ISSUER,
    aud: AUDIENCE,
    sub: customerId,
    jti: randomUUID(),
    iat: issuedAt,
    exp: issuedAt + ttl,
  });
  return { token, expires_at: new Date((issuedAt + ttl) * 1000), customer_id: customerId };
}

export async function mintCustomerSession(
  db: Db,
  merchantId: string,
  input: CustomerRef & { expires_in?: number | null },
  limits: SessionLimits,
  mintedBy?: string,
  referenceDb: Db = db,
) {
  const ttl = lifetime(input.expires_in, limits.defaultTtl, limits.maxTtl);
  const customer = await findCustomer(db, merchantId, input);
  return signSession(referenceDb, merchantId, customer.id, ttl, mintedBy);
}

/** Whether a bearer token has a JWT's shape (API keys and admin tokens never do). */
export const isSessionToken = (token: string) => /^[\w-]+\.[\w-]+\.[\w-]+$/.test(token);

const invalidSession = () => new AppError('invalid_token', 'The customer session token is invalid or expired');

/** A token's claims, read before its signature is checked: they name the merchant whose secret signed it. */
const decode = createDecoder();

/**
 * The verifier of a merchant's session secret, built once per secret: verification runs
 * synchronously on node:crypto's HMAC (WebCrypto's is a job on the thread pool each request).
 * Keyed by the cached storefront's own bytes, so a rotated secret gets a new verifier.
 */
const verifiers = new WeakMap<Uint8Array, (token: string) => Record<string, unknown>>();
function verifierOf(secret: Uint8Array) {
  let verify = verifiers.get(secret);
  if (!verify) {
    verify = createVerifier({
      key: Buffer.from(secret),
      algorithms: [ALGORITHM],
      allowedIss: ISSUER,
      allowedAud: AUDIENCE,
      requiredClaims: ['sub', 'jti', 'exp', 'iat'],
    });
    verifiers.set(secret, verify);
  }
  return verify;
}

/** Whether the merchant's session (by its token id) has been ended: signed out or renewed. */
export type EndedCheck = (merchantId: string, sessionId: string) => MaybePromise<boolean>;

/** The session a token proves, or 401 invalid_token (forged, expired, ended, or signed before a rotation). */
export async function verifyCustomerSession(
  token: string,
  storefront: (merchantId: string) => MaybePromise<Storefront>,
  ended: EndedCheck,
): Promise<SessionPrincipal> {
  let merchantId: unknown;
  try {
    merchantId = decode(token).mid;
  } catch {
    throw invalidSession();
  }
  if (typeof merchantId !== 'string' || !isUuid(merchantId)) throw invalidSession();
  const { sessionSecret } = await storefront(merchantId);
  // no secret: the merchant never minted a session
  if (!sessionSecret) throw invalidSession();
  let payload: Record<string, unknown>;
  try {
    payload = verifierOf(sessionSecret)(token);
  } catch (err) {
    if (err instanceof TokenError) throw invalidSession();
    throw err;
  }
  const { mid, sub, jti, iat, exp, key } = payload;
  if (mid !== merchantId || !isUuid(sub) || !isUuid(jti) || !Number.isInteger(iat) || !Number.isInteger(exp)) throw invalidSession();
  const principal: SessionPrincipal = {
    kind: 'session',
    sessionId: jti,
    merchantId,
    customerId: sub,
    scopes: sessionGrants,
    issuedAt: new Date((iat as number) * 1000),
    expiresAt: new Date((exp as number) * 1000),
    ...(typeof key === 'string' && { mintedBy: key }),
  };
  // ended by itself (sign-out, renewal), or with every session of its customer (erasure)
  if ((await ended(merchantId, principal.sessionId)) || (await ended(merchantId, principal.customerId))) throw invalidSession();
  return principal;
}

/** Who asks to end or renew a session: the session itself, or an API key of its merchant. */
type Caller = { kind: 'session'; sessionId: string } | { kind: 'api_key'; keyId: string };

/**
 * The session `token` names, for `caller`: a session acts on itself (its own token, or none
 * named); an API key on a session it minted, named by its token. Another's session is
 * not_found, whether it exists or not.
 */
async function sessionFor(
  caller: Caller,
  own: SessionPrincipal | undefined,
  token: string | null | undefined,
  verify: (token: string) => Promise<SessionPrincipal>,
): Promise<SessionPrincipal> {
  if (!token) {
    if (own) return own;
    throw validationError({ token: ['is required: the customer session token to act on'] });
  }
  let session: SessionPrincipal;
  try {
    session = await verify(token);
  } catch (err) {
    if (err instanceof AppError && err.code === 'invalid_token') {
      throw validationError({ token: ['is not a live customer session (forged, expired or ended)'] });
    }
    throw err;
  }
  const mine = caller.kind === 'session' ? session.sessionId === caller.sessionId : session.mintedBy === caller.keyId;
  if (!mine) throw notFound('Customer session');
  return session;
}

export interface SessionChange {
  /** The merchant of the request; a token of another merchant is not_found. */
  merchantId: string;
  caller: Caller;
  /** The request's own session, when it is one. */
  own?: SessionPrincipal;
  /** The token named, if any. */
  token?: string | null;
  verify: (token: string) => Promise<SessionPrincipal>;
  end: (session: SessionPrincipal) => Promise<boolean>;
}

async function targetOf(change: SessionChange) {
  const session = await sessionFor(change.caller, change.own, change.token, change.verify);
  if (session.merchantId !== change.merchantId) throw notFound('Customer session');
  return session;
}

/** Sign-out: the session's token is refused from now on, everywhere. */
export async function endCustomerSession(change: SessionChange) {
  const session = await targetOf(change);
  await change.end(session);
  return { ended_at: new Date(), customer_id: session.customerId };
}

/**
 * A new token for the session's customer (lasting `expires_in`, by default as long as the old
 * one did), and the old token ended. Of two renewals of one token, one wins: the other is
 * refused as the old token would be.
 */
export async function renewCustomerSession(db: Db, change: SessionChange & { expires_in?: number | null }, limits: SessionLimits) {
  const session = await targetOf(change);
  const lifetimeBefore = Math.round((session.expiresAt.getTime() - session.issuedAt.getTime()) / 1000);
  const ttl = lifetime(change.expires_in, lifetimeBefore, limits.maxTtl);
  const renewed = await signSession(db, session.merchantId, session.customerId, ttl, session.mintedBy);
  if (!(await change.end(session))) throw invalidSession();
  return renewed;
}

/** Who a request acts as: its merchant, and its principal when it has one (admin faces: none). */
export interface Viewer {
  merchantId: string;
  principal: { kind: string; customerId?: string } | null;
}

const sessionCustomerOf = (viewer: Viewer) => (viewer.principal?.kind === 'session' ? viewer.principal.customerId : undefined);

/**
 * The customer a customer-scoped field names. A session names its own customer when the
 * request names none, and another customer (even an existing one) is not_found.
 */
export async function visibleCustomer(db: Db, viewer: Viewer, ref: CustomerRef) {
  const own = sessionCustomerOf(viewer);
  if (!own) return findCustomer(db, viewer.merchantId, ref);
  const named = ref.customer_id || ref.email; // as sent: findCustomer refuses a malformed one
  const customer = named
    ? await findCustomer(db, viewer.merchantId, ref)
    : await db.customer.findFirst({ where: { id: own, merchantId: viewer.merchantId } });
  if (!customer || customer.id !== own) throw notFound('Customer');
  return customer;
}

/** The same rule for a record already loaded by its id: a session sees only its own customer. */
export function confineToViewer<T extends { id: string }>(viewer: Viewer, customer: T): T {
  const own = sessionCustomerOf(viewer);
  if (own && customer.id !== own) throw notFound('Customer');
  return customer;
}

/** A field where naming a customer is optional (the estimate): a session is always its own customer. */
export function optionalVisibleCustomer(db: Db, viewer: Viewer) {
  return (customerId: string | null | undefined) =>
    customerId || sessionCustomerOf(viewer) ? visibleCustomer(db, viewer, { customer_id: customerId }) : Promise.resolve(null);
}
