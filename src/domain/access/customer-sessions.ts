// Customer sessions (issue 11): the merchant's backend (an API key with write:customers) mints
// a short-lived token for one logged-in shopper, which the storefront's browser sends to
// /graphql. The token is a JWT signed with HS256 by the merchant's own secret
// (storefront-settings.ts): verifying it needs no row of its own, and rotating the secret
// ends every session of that merchant. A session is a principal like an API key, with the
// read grants a shopper needs and write:rewards; it sees only its own customer (customerInView).
import { randomUUID } from 'node:crypto';
import { SignJWT, decodeJwt, errors as joseErrors, jwtVerify } from 'jose';
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
export const sessionGrants: readonly ScopeGrant[] = [
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

export async function mintCustomerSession(
  db: Db,
  merchantId: string,
  input: CustomerRef & { expires_in?: number | null },
  limits: SessionLimits,
) {
  const maxTtl = limits.maxTtl;
  const ttl = input.expires_in ?? Math.min(limits.defaultTtl, maxTtl);
  if (!Number.isInteger(ttl) || ttl < 60 || ttl > maxTtl) {
    throw validationError({ expires_in: [`must be a whole number of seconds from 60 to ${maxTtl}`] });
  }
  const customer = await findCustomer(db, merchantId, input);
  const sessionSecret = await sessionSecretOf(db, merchantId);
  const issuedAt = Math.floor(Date.now() / 1000);
  const expiresAt = new Date((issuedAt + ttl) * 1000);
  const token = await new SignJWT({ mid: merchantId })
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(customer.id)
    .setJti(randomUUID())
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ttl)
    .sign(sessionSecret);
  return { token, expires_at: expiresAt, customer_id: customer.id };
}

/** Whether a bearer token has a JWT's shape (API keys and admin tokens never do). */
export const isSessionToken = (token: string) => /^[\w-]+\.[\w-]+\.[\w-]+$/.test(token);

const invalidSession = () => new AppError('invalid_token', 'The customer session token is invalid or expired');

/** The session a token proves, or 401 invalid_token (forged, expired, or signed before a rotation). */
export async function verifyCustomerSession(
  token: string,
  storefront: (merchantId: string) => MaybePromise<Storefront>,
): Promise<SessionPrincipal> {
  let merchantId: unknown;
  try {
    merchantId = decodeJwt(token).mid;
  } catch {
    throw invalidSession();
  }
  if (typeof merchantId !== 'string' || !isUuid(merchantId)) throw invalidSession();
  const { sessionSecret } = await storefront(merchantId);
  // no secret: the merchant never minted a session
  if (!sessionSecret) throw invalidSession();
  try {
    const { payload } = await jwtVerify(token, sessionSecret, {
      algorithms: [ALGORITHM],
      issuer: ISSUER,
      audience: AUDIENCE,
      requiredClaims: ['sub', 'jti', 'exp'],
    });
    if (payload.mid !== merchantId || !isUuid(payload.sub!)) throw invalidSession();
    return {
      kind: 'session',
      sessionId: payload.jti!,
      merchantId,
      customerId: payload.sub!,
      scopes: sessionGrants,
      expiresAt: new Date(payload.exp! * 1000),
    };
  } catch (err) {
    if (err instanceof AppError || err instanceof joseErrors.JOSEError) throw invalidSession();
    throw err;
  }
}

/** Who a request acts as: its merchant, and its principal when it has one (admin faces: none). */
export interface View {
  merchantId: string;
  principal: { kind: string; customerId?: string } | null;
}

const sessionCustomerOf = (view: View) => (view.principal?.kind === 'session' ? view.principal.customerId : undefined);

/**
 * The customer a customer-scoped field names. A session names its own customer when the
 * request names none, and another customer (even an existing one) is not_found.
 */
export async function customerInView(db: Db, view: View, ref: CustomerRef) {
  const own = sessionCustomerOf(view);
  if (!own) return findCustomer(db, view.merchantId, ref);
  const named = ref.customer_id || ref.email; // as sent: findCustomer refuses a malformed one
  const customer = named
    ? await findCustomer(db, view.merchantId, ref)
    : await db.customer.findFirst({ where: { id: own, merchantId: view.merchantId } });
  if (!customer || customer.id !== own) throw notFound('Customer');
  return customer;
}

/** The same rule for a record already loaded by its id: a session sees only its own customer. */
export function confineToView<T extends { id: string }>(view: View, customer: T): T {
  const own = sessionCustomerOf(view);
  if (own && customer.id !== own) throw notFound('Customer');
  return customer;
}

/** A field where naming a customer is optional (the estimate): a session is always its own customer. */
export function optionalCustomerInView(db: Db, view: View) {
  return (customerId: string | null | undefined) =>
    customerId || sessionCustomerOf(view) ? customerInView(db, view, { customer_id: customerId }) : Promise.resolve(null);
}
