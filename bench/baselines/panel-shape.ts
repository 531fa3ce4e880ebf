// BENCHMARK BASELINE, NOT PART OF THE SERVICE: what both hand-written panels share, the
// storefront's LoyaltyPanel (bench/operations.ts PANEL_DOCUMENT) for one customer as the
// service answers it: the tier ladder judged on lifetime points earned (the bench's program
// has no other qualification or window), and a customer session verified as the service
// verifies it (HS256 with the merchant's secret, the merchant named by the `mid` claim).
import { decodeJwt, jwtVerify } from 'jose';

export interface PanelTier {
  name: string;
  benefits: string[];
  threshold: number;
  is_default: boolean;
}

/** The tier reached (else the default, else the lowest) and the next by position; tiers lowest position first. */
export function tierStatus(tiers: readonly PanelTier[], earned: number) {
  let at = -1;
  tiers.forEach((t, i) => {
    if (earned >= t.threshold) at = i;
  });
  if (at < 0 && tiers.length)
    at = Math.max(
      0,
      tiers.findIndex((t) => t.is_default),
    );
  const current = at < 0 ? null : tiers[at]!;
  const next = at < 0 ? null : (tiers[at + 1] ?? null);
  return {
    current_tier: current && { name: current.name, benefits: current.benefits },
    next_tier: next && { name: next.name, threshold: next.threshold },
    progress: { metric: 'points_earned', value: earned, remaining: next ? Math.max(0, next.threshold - earned) : null },
  };
}

/** The whole balance lapses `days` after the last activity (the service's rule for the bench's UTC merchant). */
export function nextExpiry(balance: number, days: number | null, since: Date) {
  return days && balance > 0 ? { points: balance, expires_at: new Date(since.getTime() + days * 86_400_000).toISOString() } : null;
}

/** The code a client sees: an issued code past its expiry is expired. */
export const codeStatus = (status: string, expiresAt: Date | null, now: Date) =>
  status === 'issued' && expiresAt && expiresAt <= now ? 'expired' : status;

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

export { iso };

/** A token the service would take for a customer session (a JWT: three dot-separated parts). */
export const isSessionToken = (token: string) => token.split('.').length === 3;

/** The session's merchant and customer, or null when the token is not a valid session of it. */
export async function verifySession(token: string, secretOf: (merchantId: string) => Promise<Uint8Array | null>) {
  let merchantId: unknown;
  try {
    merchantId = decodeJwt(token).mid;
  } catch {
    return null;
  }
  if (typeof merchantId !== 'string') return null;
  const secret = await secretOf(merchantId);
  if (!secret) return null;
  try {
    const { payload } = await jwtVerify(token, secret, {
      algorithms: ['HS256'],
      issuer: 'loyalty',
      audience: 'storefront',
      requiredClaims: ['sub', 'jti', 'exp', 'iat'],
    });
    return payload.mid === merchantId ? { merchantId, customerId: payload.sub! } : null;
  } catch {
    return null;
  }
}
