// Web addresses the API stores (a product's image, the referral program's share link, a
// webhook endpoint): one rule, with the options each place needs. An address is stored as sent
// and later put in a page, a link or a request as it is, so it must be exactly an absolute
// https address: written with `https://` (a browser would take `javascript:`, `data:` or
// `//host` too, and WHATWG URL parsing repairs `https:host` and strips tabs and line breaks
// that would then be stored), with a host, no user name or password, no whitespace or control
// character, at most 2,000 characters. `http` lets `http://` through as well where a place
// allows it (webhooks with WEBHOOK_ALLOW_PRIVATE_URLS, for tests and local development; the
// SSRF guard in webhooks/url-guard.ts adds its own checks of the host). It imports nothing,
// so the admin app's bundle can include it.

export interface UrlRule {
  /** Also take `http://`. */
  http?: boolean;
  /** Why plain http is refused, said when an address is one. */
  httpRefusedBecause?: string;
  /** A placeholder the address may hold (`{referral_code}`), read as a value where it stands. */
  placeholder?: string;
}

const MAX_URL_LENGTH = 2000;

/** The places' rules: the API checks each address with its rule, and the admin app its forms. */
export const urlRules = {
  productImage: { httpRefusedBecause: 'pages served over HTTPS block images from plain http addresses' },
  shareLink: { placeholder: '{referral_code}' },
} satisfies Record<string, UrlRule>;

/** Why `text` is not a web address the API stores under `rule`, or null when it is one. */
export function urlProblem(text: string, rule: UrlRule = {}): string | null {
  if (text.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
  if (!scheme) return 'must be an absolute URL';
  if (/[\s\p{Cc}]/u.test(text)) return 'must not contain spaces or control characters';
  const allowed = rule.http ? /^https?:\/\//i : /^https:\/\//i;
  if (!allowed.test(text)) {
    const wanted = rule.http ? 'must start with https:// or http://' : 'must start with https://';
    return scheme === 'http' && rule.httpRefusedBecause ? `${wanted} (${rule.httpRefusedBecause})` : wanted;
  }
  let url: URL;
  try {
    url = new URL(rule.placeholder ? text.replaceAll(rule.placeholder, 'x') : text);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.username || url.password) return 'must not contain credentials';
  return null;
}
