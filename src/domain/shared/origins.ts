// What a web origin is, for the operator's CORS_ORIGINS (config.ts) and a merchant's allowed
// origins (storefront settings): the scheme, host and port of http(s) pages, written as a
// browser writes them in its Origin header (lowercase, no default port, no trailing slash), so
// a listed origin is compared with that header as text. Both lists take the same entries.
import { z } from 'zod';

// scheme://authority, an optional slash and nothing else: a path, query or fragment names a
// page, not an origin, and whitespace is no part of one
const ORIGIN_SHAPE = /^https?:\/\/[^/?#\s]+\/?$/i;

/** `text` as a browser would send it in an Origin header, or undefined when it is not an http(s) origin. */
function normalizeOrigin(text: string): string | undefined {
  const trimmed = text.trim();
  if (!ORIGIN_SHAPE.test(trimmed)) return undefined;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return undefined; // no host, a port past 65535, a character no host may hold
  }
  if (url.username || url.password) return undefined;
  return url.origin;
}

const ORIGIN_MESSAGE = 'must be an origin like https://shop.example.com (scheme, host and port only)';

/** One origin, normalized (normalizeOrigin), or the issue ORIGIN_MESSAGE. */
export const webOrigin = z.string().transform((text, ctx) => {
  const origin = normalizeOrigin(text);
  if (origin === undefined) {
    ctx.addIssue({ code: 'custom', message: ORIGIN_MESSAGE, input: text });
    return z.NEVER;
  }
  return origin;
});
