// Field shapes the program's inputs share (rewards, earning rules, tiers, boosters, the
// referral program), in the public field names. One definition serves the admin API, the
// import file and seed data. Also the one rule for identifiers a merchant chooses.
import { z } from 'zod';
import { dateOrDateTimeProblem, dateProblem, dateTimeProblem } from './dates.js';
import { validationError } from './errors.js';
import { MAX_POINTS } from './limits.js';
import { type UrlRule, urlProblem, urlRules } from './urls.js';

// ---- identifiers ----
//
// An identifier a merchant chooses and sends to name a record — a customer's platform id
// (`customer_id`, and `id` where it may be one), an email used to find a customer, an order
// id, an event id, a reward id, a referral code — either names that record exactly or is
// refused with 422 validation_error naming the field. It never names another record.
//
// Refused, on writes and on lookups alike:
// - control characters (Unicode Cc: tab, line feed, carriage return, NUL, DEL, C1 controls),
// - format characters (Cf: U+FEFF, U+200B, U+200C/D, U+2060, U+00AD, bidi controls…),
// - line and paragraph separators (Zl, Zp: U+2028, U+2029),
// - space separators other than the ASCII space (Zs: U+00A0, U+2000–U+200A, U+3000…),
// - unpaired surrogates (Cs; only a JSON `\ud800` escape can send one),
// - a space at the start or the end. A space inside (`order 1001`) is an ordinary character.
// These are invisible or look like a space, and JavaScript's trim() (so zod's .trim()) strips
// many of them: trimmed, `a-c1<U+FEFF>` would name the customer `a-c1`.
//
// Everything else is compared exactly, code point by code point: no trimming, no case folding
// (emails and referral codes, which lookups match ignoring case, fold the ASCII letters A–Z
// only: asciiLower, asciiUpper), and no Unicode normalisation. NFC is not applied: ids were
// always stored as sent, so normalising a lookup would miss a record stored in another form,
// and two ids stored in two forms would become one name for two records. `kund-åäö` with
// precomposed letters and with combining accents are two ids, as a platform sends each the
// same way every time.
//
// Stored data: a row written before this rule held may hold such a character (U+200B, which
// trim() keeps, or one inside the id). Such
// a record cannot be named by that id any more (an exact comparison could not find another
// record, but the id cannot be sent): it is still found by its internal uuid and by email,
// and update_customer can give it a clean customer_id (a patch is validated whole, so one
// that changes anything else of that customer must change its customer_id too).

const REFUSED: [pattern: RegExp, what: string][] = [
  [/\p{Cc}/u, 'a control character such as a tab or a line break'],
  [/\p{Cf}/u, 'an invisible formatting character'],
  [/[\p{Zl}\p{Zp}]/u, 'a line or paragraph separator'],
  [/\p{Zs}/u, 'a space other than the ordinary space U+0020'],
  [/\p{Cs}/u, 'an unpaired surrogate (not a character)'],
];
const ANY_REFUSED = /(?!\u0020)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Zs}\p{Cs}]/u;

const codePoint = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** What is wrong with `value` as an identifier, in plain words; null when it is a valid one. */
function identifierProblem(value: string): string | null {
  const found = ANY_REFUSED.exec(value);
  if (found) {
    const char = found[0];
    const what = REFUSED.find(([pattern]) => pattern.test(char))![1];
    // the position in characters (code points), from 1
    const position = [...value.slice(0, found.index)].length + 1;
    return `must not contain ${codePoint(char)} (character ${position}), ${what}; identifiers are matched exactly`;
  }
  if (value.startsWith(' ') || value.endsWith(' ')) return 'must not begin or end with a space; identifiers are matched exactly';
  return null;
}

/**
 * The identifier rule as a JSON Schema pattern, for the API's documents: no space at either end,
 * and none of the refused characters, written out as a class (the identifiers test holds it to
 * ANY_REFUSED for every code point). Below U+10000 as regex escapes; above, the characters
 * themselves, which ECMAScript and Python regular expressions both read (their escapes for
 * astral code points differ: `\u{…}`, `\U…`).
 */
export const identifierPattern =
  '^(?! )(?!.* $)[^\\u0000-\\u001f\\u007f-\\u00a0\\u00ad\\u0600-\\u0605\\u061c\\u06dd\\u070f\\u0890-\\u0891\\u08e2\\u1680' +
  '\\u180e\\u2000-\\u200f\\u2028-\\u202f\\u205f-\\u2064\\u2066-\\u206f\\u3000\\ud800-\\udfff\\ufeff\\ufff9-\\ufffb' +
  '\u{110bd}\u{110cd}\u{13430}-\u{1343f}\u{1bca0}-\u{1bca3}\u{1d173}-\u{1d17a}\u{e0001}\u{e0020}-\u{e007f}]*$';

/** Text without NUL (U+0000), which no input may hold (PostgreSQL text cannot store it), as a JSON Schema pattern. */
export const NO_NUL = '^[^\\u0000]*$';
/** Text with a character other than white space, and no NUL: a reason that is not blank, as a JSON Schema pattern. */
export const NOT_BLANK = '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$';

/**
 * `schema` with at most `max` characters counted as JSON Schema's maxLength counts them, in
 * code points (an emoji is one character, where zod's max counts its two UTF-16 units), so the
 * API's documents state the limit the service holds.
 */
export function maxChars<T extends z.ZodType<string>>(schema: T, max: number): T {
  return schema
    .superRefine((value, ctx) => {
      let length = 0;
      for (const _ of value) length++;
      if (length > max) ctx.addIssue({ code: 'too_big', origin: 'string', maximum: max, inclusive: true, input: value });
    })
    .meta({ maxLength: max });
}

/** An identifier input field: required, at most `max` characters, and the identifier rule. */
export const identifier = (max = 255) =>
  maxChars(z.string().min(1, 'is required'), max)
    .superRefine((value, ctx) => {
      const problem = identifierProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .meta({ pattern: identifierPattern });

/** What a lookup's identifier may be: no record has a longer one. */
export const lookupRule = identifier(255);

/**
 * A lookup's identifier argument (`name` is the field the client sent): undefined when absent
 * or empty (the caller decides whether it is required), else the value itself, unchanged, or
 * 422 validation_error when it breaks the identifier rule.
 */
export function lookupIdentifier(name: string, value: string | null | undefined): string | undefined {
  if (value == null || value === '') return undefined;
  const parsed = lookupRule.safeParse(value);
  if (!parsed.success) throw validationError({ [name]: parsed.error.issues.map((i) => i.message) }, `${name} is not a valid identifier`);
  return value;
}

/** Lower-cases the ASCII letters A–Z only (Unicode case mapping sends U+212A KELVIN SIGN to k). */
export const asciiLower = (s: string) => s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
/** Upper-cases the ASCII letters a–z only (Unicode case mapping sends U+017F LONG S to S). */
export const asciiUpper = (s: string) => s.replace(/[a-z]+/g, (m) => m.toUpperCase());

// ---- program fields ----

/** A web address the API stores, held to the one rule of urls.ts; an empty one is none (the caller's `transform`). */
export const webAddress = (rule?: UrlRule) =>
  z.string().superRefine((text, ctx) => {
    const problem = text === '' ? null : urlProblem(text, rule);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** A string held to one of the readers of dates.ts (the issue says why); it stays as sent. */
const checkedBy = (problemOf: (text: string) => string | null) =>
  z.string().superRefine((text, ctx) => {
    const problem = problemOf(text);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

export const field = {
  id: z.uuid(),
  name: z.string().trim().min(1, 'is required').max(200),
  description: z.string().trim().max(2000).nullish(),
  /** A date and time with its offset (dates.ts says which forms). */
  timestamp: checkedBy(dateTimeProblem),
  /** A date, YYYY-MM-DD, a day of the calendar. */
  date: checkedBy(dateProblem),
  /** Either of the two (an earning rule's dates: a local date of the merchant's calendar, or an instant). */
  dateOrTimestamp: checkedBy(dateOrDateTimeProblem),
  points: z.number().int().min(0).max(MAX_POINTS),
  // an empty product name or image is none: stored as null
  /** The display name of a product the record names (the store's id stays the key). */
  productName: z
    .string()
    .trim()
    .max(200)
    .nullish()
    .transform((v) => v || null),
  /**
   * An image of that product, shown beside its name: an https address. Pages served over HTTPS
   * (storefronts, the admin app) block an http image as mixed content, and the admin app's CSP
   * loads outside images over https only, so an http one would show nowhere. Rows stored before
   * this rule are read as they are; a change to such a record gives it an https image or none.
   */
  productImageUrl: webAddress(urlRules.productImage)
    .nullish()
    .transform((v) => v || null),
};
