// Webhook signatures, like Stripe's: `Loyalty-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256
// of "<t>.<body>" with the endpoint's secret>`. A receiver recomputes v1 over the raw body,
// compares in constant time and refuses a `t` too far from its clock (replays).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'Loyalty-Signature';

export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64url')}`;

export function signatureHeader(secret: string, body: string, at = new Date()): string {
  const t = Math.floor(at.getTime() / 1000);
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}

/** The receiver's check (docs/webhooks.md's snippet does the same): true when `header` signs `body`. */
export function verifySignature(secret: string, body: string, header: string, toleranceSeconds = 300, now = Date.now()): boolean {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || !parts.v1 || Math.abs(now / 1000 - t) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
