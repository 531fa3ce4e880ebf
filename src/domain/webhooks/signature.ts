// Webhook signatures, two schemes on every delivery, both over the same timestamp:
// - Standard Webhooks (standardwebhooks.com), verifiable with its libraries in any language:
//   `webhook-id` (the event id), `webhook-timestamp` (unix seconds) and
//   `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed by the bytes
//   the secret's base64 part (after `whsec_`) encodes;
// - our own, like Stripe's, kept for the consumers that verify it: `Loyalty-Signature:
//   t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed by the whole secret string>`.
// During a secret rotation's overlap each scheme carries one signature per secret, newest first
// (`v1,<new> v1,<old>`; `t=…,v1=<new>,v1=<old>`): a receiver accepts a delivery that any of
// them verifies, so it can switch secrets at any time within the window.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'Loyalty-Signature';
const PREFIX = 'whsec_';

/**
 * `whsec_` + 24 random bytes in standard base64, the form the Standard Webhooks libraries
 * decode. Secrets made before were base64url: the same bytes, which `standardKey` reads too.
 */
export const newWebhookSecret = () => `${PREFIX}${randomBytes(24).toString('base64')}`;

/** The Standard Webhooks signing key: the bytes the secret encodes (Node's decoder takes base64 and base64url alike). */
const standardKey = (secret: string) => Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');

/** The signing headers of one attempt: `secrets` newest first (two during a rotation's overlap). */
export function signatureHeaders(secrets: readonly string[], eventId: string, body: string, at = new Date()): Record<string, string> {
  const t = Math.floor(at.getTime() / 1000);
  const hmac = (key: string | Buffer, content: string) => createHmac('sha256', key).update(content);
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(t),
    'webhook-signature': secrets.map((s) => `v1,${hmac(standardKey(s), `${eventId}.${t}.${body}`).digest('base64')}`).join(' '),
    [SIGNATURE_HEADER]: [`t=${t}`, ...secrets.map((s) => `v1=${hmac(s, `${t}.${body}`).digest('hex')}`)].join(','),
  };
}

/** The receiver's check of Loyalty-Signature (docs/webhooks.md's snippet does the same): true when one v1 signs `body`. */
export function verifySignature(secret: string, body: string, header: string, toleranceSeconds = 300, now = Date.now()): boolean {
  const parts = header.split(',').map((p) => p.split('=', 2) as [string, string?]);
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(now / 1000 - t) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  return parts.some(([k, v]) => {
    if (k !== 'v1' || !v) return false;
    const given = Buffer.from(v, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
