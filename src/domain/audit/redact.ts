// What an audit row may hold: JSON values with every secret taken out. A field whose name says
// it holds a secret (token, secret, hash, password, key...) and any string shaped like an API
// key or admin token is replaced by "[redacted]", whatever the resource: a resource added
// later (webhook endpoints and their signing secrets) is covered without naming it here.
import { isWellFormed } from '../access/tokens.js';

const REDACTED = '[redacted]';

/** Field names that hold secrets (or their hashes, prefixes of secrets stay: they name a key in listings). */
const SECRET_FIELD = /token(?!_?prefix)|secret|hash|password|passphrase|signing|^key$|private/i;
const TOKEN_SHAPED = /\b(lpk|lpa)_[0-9A-Za-z]{38}\b/g;

const looksLikeToken = (s: string) => isWellFormed('api_key', s) || isWellFormed('admin', s);

/** A JSON copy of `value` (Dates as ISO strings, Decimals as strings) without secrets. */
export function redact(value: unknown): unknown {
  if (value === undefined) return null;
  const text = JSON.stringify(value, (key, v: unknown) => {
    if (key && SECRET_FIELD.test(key) && v !== null && v !== undefined) return REDACTED;
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'string') return looksLikeToken(v) ? REDACTED : v.replace(TOKEN_SHAPED, REDACTED);
    return v;
  });
  return text === undefined ? null : JSON.parse(text);
}

/** What an erasure looks for in JSON copies: strings equal to `exact`, or containing `contained`. */
export interface Needles {
  exact: string[];
  contained: string[];
}

/**
 * `value` with every string that equals one of `needles.exact` or contains one of
 * `needles.contained` (case-insensitive) replaced by `replacement`: how an erasure takes a
 * customer's personal data out of JSON copies (audit rows, stored responses) whatever their
 * shape. Names and ids must match whole (a short name would match too much); emails anywhere.
 */
export function scrubValues(value: unknown, needles: Needles, replacement: string): unknown {
  const exact = new Set(needles.exact.filter(Boolean).map((n) => n.toLowerCase()));
  const contained = needles.contained.filter(Boolean).map((n) => n.toLowerCase());
  const scrub = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const s = v.toLowerCase();
      return exact.has(s) || contained.some((n) => s.includes(n)) ? replacement : v;
    }
    if (Array.isArray(v)) return v.map(scrub);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scrub(x)]));
    return v;
  };
  return scrub(value);
}
