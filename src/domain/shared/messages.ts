// The message catalogue: every validation failure and every error code as a sentence for a
// merchant (what is wrong, then what to enter). zod's own wording ("Too small: expected number
// to be >=0") is replaced by these for every schema (validation.ts installs `issueMessage` as
// zod's error map); the admin API answers its errors in these words (http/errors.ts
// `forMerchant`), and the admin app imports this module to say the same in its own checks.
// It imports nothing at run time, so the browser bundle can include it as it is.
import type { ErrorCode } from './errors.js';

const number = new Intl.NumberFormat('en-US', { maximumFractionDigits: 6 });
const count = (n: number | bigint) => number.format(n);

/** The sentences, by what went wrong. The app's checks use these directly. */
export const messages = {
  required: 'This is required: enter a value.',
  number: 'This is not a number: enter digits only, such as 25 or 2.5.',
  wholeNumber: 'This must be a whole number: enter it without decimals, such as 100.',
  text: 'This must be text: type it in.',
  list: 'This must be a list: choose one or more.',
  yesNo: 'This must be yes or no: tick or untick it.',
  atLeast: (min: number | bigint) => `This is too low: enter ${count(min)} or more.`,
  above: (min: number | bigint) => `This is too low: enter a number above ${count(min)}.`,
  atMost: (max: number | bigint) => `This is too high: enter ${count(max)} or less.`,
  below: (max: number | bigint) => `This is too high: enter a number below ${count(max)}.`,
  notZero: 'This cannot be 0: enter a positive number to add points or a negative one to remove them.',
  minLength: (min: number | bigint) => `This is too short: enter at least ${count(min)} characters.`,
  maxLength: (max: number | bigint) => `This is too long: shorten it to ${count(max)} characters or fewer.`,
  minItems: (min: number | bigint) => (Number(min) === 1 ? 'Choose at least one.' : `Choose at least ${count(min)}.`),
  maxItems: (max: number | bigint) => `Too many: choose at most ${count(max)}.`,
  multipleOf: (step: number | bigint) => `Enter a multiple of ${count(step)}.`,
  oneOf: (values: readonly unknown[]) => `This is not one of the choices: choose ${values.map(String).join(', ')}.`,
  dateTime: 'This is not a date and time: pick one, or enter it like 2026-12-01T09:00:00Z.',
  date: 'This is not a date: pick one, or enter it like 2026-12-01.',
  dateOrDateTime: 'This is not a date or a date and time: enter one like 2026-12-01 or 2026-12-01T09:00:00Z.',
  email: 'This is not an email address: enter one like name@example.com.',
  url: 'This is not a web address: enter one starting with https://.',
  origin: 'This is not a web origin: enter the scheme and host only, such as https://shop.example.com.',
  ipAddress: 'This is not an IP address: enter one like 203.0.113.7 or 2001:db8::7.',
  ipRange: 'This is not an IP address or range: enter one like 203.0.113.7 or a range like 203.0.113.0/24.',
  domain: 'This is not a domain: enter one like example.com, without @ or a path.',
  graphqlDocument: (why: string) => `This is not a GraphQL document (${why.replace(/\.$/, '')}): paste the whole query or mutation.`,
  id: 'This is not a valid id: copy the id from its page (it looks like 123e4567-e89b-42d3-a456-426614174000).',
  currency: 'This is not a currency code: enter three letters, such as USD or EUR.',
  timezone: 'This is not a time zone: choose one from the list, such as Europe/Paris.',
  locale: 'This is not a language and region: choose one from the list, such as en-US.',
  after: (field: string) => `This must be later than “${field}”: pick a later date and time.`,
  onOrAfter: (field: string) => `This must be on or after “${field}”: pick a later date.`,
  placedAhead: (minutes: number) =>
    `This is in the future: enter when it happened, at most ${count(minutes)} minutes ahead of the service's clock.`,
  placedTooLongAgo: (days: number) =>
    `This is more than ${count(days)} days ago, longer ago than orders and actions may still earn points: import it as history, or raise the late earning days.`,
  tooManyPeriods: (max: number) => `This range has more than ${count(max)} periods: choose a shorter range or a longer grouping.`,
  unknownField: (keys: readonly string[]) => `This is not a field here: remove ${keys.join(', ')}.`,
  format: 'This is not in the expected form: check what you entered.',
  invalid: 'This value is not accepted here: check what you entered.',
  unreachable: 'The service could not be reached: check your connection, then try again.',
  noScope: 'A custom key needs at least one scope: choose Read or Write access for one or more scopes.',
  tooManyLiveKeys: (max: number) =>
    `You already have ${count(max)} live publishable keys, the most a shop may have: revoke one you no longer use, then create the new one.`,
  /** The sign-in page's own sentences (the service's refusals are told apart by their status). */
  signIn: {
    tokenMissing: 'Enter your admin token: paste the long code that starts with lpa_.',
    tokenInvalid: 'That admin token is not valid: check that you pasted all of it, or ask for a new one.',
    tooManyAttempts: (minutes: number) =>
      `Too many failed sign-ins from this address: wait ${count(minutes)} minute${minutes === 1 ? '' : 's'}, then try again.`,
    sessionEnded: 'Your session has ended: sign in again with your admin token.',
    signedOut: 'You are signed out: sign in again with your admin token to continue.',
  },
} as const;

/** What zod tells its error map about a failure (the fields of its issues we read). */
export interface IssueLike {
  code?: string;
  input?: unknown;
  expected?: string;
  format?: string;
  origin?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  inclusive?: boolean;
  divisor?: number | bigint;
  values?: readonly unknown[];
  keys?: readonly string[];
  message?: string;
}

const formats: Record<string, string> = {
  datetime: messages.dateTime,
  date: messages.date,
  email: messages.email,
  url: messages.url,
  uuid: messages.id,
  guid: messages.id,
};

/** The sentence for one zod issue. */
export function issueMessage(issue: IssueLike): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined || issue.input === null) return messages.required;
      if (issue.expected === 'int') return Number.isFinite(issue.input) ? messages.wholeNumber : messages.number;
      if (issue.expected === 'number' || issue.expected === 'bigint') return messages.number;
      if (issue.expected === 'string') return messages.text;
      if (issue.expected === 'array') return messages.list;
      if (issue.expected === 'boolean') return messages.yesNo;
      return messages.invalid;
    case 'too_small': {
      const min = issue.minimum ?? 0;
      if (issue.origin === 'string') return Number(min) <= 1 ? messages.required : messages.minLength(min);
      if (issue.origin === 'array' || issue.origin === 'set') return messages.minItems(min);
      return issue.inclusive === false ? messages.above(min) : messages.atLeast(min);
    }
    case 'too_big': {
      const max = issue.maximum ?? 0;
      if (issue.origin === 'string') return messages.maxLength(max);
      if (issue.origin === 'array' || issue.origin === 'set') return messages.maxItems(max);
      return issue.inclusive === false ? messages.below(max) : messages.atMost(max);
    }
    case 'invalid_format':
      return formats[issue.format ?? ''] ?? messages.format;
    case 'invalid_value':
      return issue.values?.length ? messages.oneOf(issue.values) : messages.invalid;
    case 'not_multiple_of':
      return messages.multipleOf(issue.divisor ?? 1);
    case 'unrecognized_keys':
      return messages.unknownField(issue.keys ?? []);
    default:
      return messages.invalid;
  }
}

// Our own short phrases (written beside a schema or in a domain rule) and GraphQL's coercion
// failures, as sentences.
const phrases: [pattern: RegExp, sentence: (match: RegExpExecArray) => string][] = [
  [/^is required$|was not provided|must not be null/, () => messages.required],
  [/^must not be zero$/, () => messages.notZero],
  [
    /^must be a number$|Int cannot represent non-integer value: "|cannot represent non numeric|cannot represent a non numeric|Float cannot represent/,
    () => messages.number,
  ],
  [/^must be a whole number$|Int cannot represent non-integer/, () => messages.wholeNumber],
  [/Int cannot represent non 32-bit signed integer/, () => messages.atMost(2_147_483_647)],
  [/^must be a uuid$/, () => messages.id],
  [/^must be at most (\d+) characters$/, (m) => messages.maxLength(Number(m[1]))],
  [/^must be at least (\d+)$/, (m) => messages.atLeast(Number(m[1]))],
  [/^must be at most (\d+)$/, (m) => messages.atMost(Number(m[1]))],
  [/^must be at most (\d+) \(.+\)$/, (m) => messages.atMost(Number(m[1]))],
  [/^must be (\d+) or more$/, (m) => messages.atLeast(Number(m[1]))],
  [/^must be a whole number of \w+$/, () => messages.wholeNumber],
  [/^must be an absolute URL$|^must start with https:\/\/( or http:\/\/)?$/, () => messages.url],
  [/^must be an origin like/, () => messages.origin],
  [/^must be an IP address$/, () => messages.ipAddress],
  [/^must be an IP address or range$/, () => messages.ipRange],
  [/^must be a domain$/, () => messages.domain],
  [/^must be more than (\d+)$/, (m) => messages.above(Number(m[1]))],
  [/^must be on or after (\w+)$/, (m) => messages.onOrAfter(fieldLabel(m[1]!))],
  [/^gives more than (\d+) periods/, (m) => messages.tooManyPeriods(Number(m[1]))],
  [/^is not a GraphQL document: (.+)$/s, (m) => messages.graphqlDocument(m[1]!)],
  [/^at most (\d+) [a-z ]+$/, (m) => messages.maxItems(Number(m[1]))],
  [/^must not be empty$/, () => messages.required],
  [/^must equal points_cost$/, () => 'This must equal the points cost: leave it empty or enter the same number.'],
  [/^is not a known IANA time zone|^must be an IANA time zone/, () => messages.timezone],
  [/3-letter (ISO 4217 )?(currency )?code/, () => messages.currency],
  [/^must be a valid time$|^must be a date and time with its offset/, () => messages.dateTime],
  [/^must be a date, YYYY-MM-DD$/, () => messages.date],
  [/^must be a date, YYYY-MM-DD, or a date and time/, () => messages.dateOrDateTime],
  [/^is not a (date|time|UTC offset): (.+)$/, (m) => `This is not a ${m[1]}: ${m[2]}.`],
  [/^is out of range: (.+)$/, (m) => `This is out of range: enter a time ${m[1]}.`],
  [/^is not a tier of this merchant$/, () => 'This is not one of your tiers: choose a tier from the list.'],
  [/^only one tier can be the default$/, () => 'Only one tier can be the default: untick “Default” on the other tier first.'],
  [/String cannot represent/, () => messages.text],
  [/Boolean cannot represent/, () => messages.yesNo],
  [/^must be after (\w+)$/, (m) => messages.after(fieldLabel(m[1]!))],
  [/^is not a known field$/, () => 'This is not a field here: remove it.'],
  [/^a custom key needs at least one scope$/, () => messages.noScope],
  [/^a merchant has at most (\d+) live publishable keys/, (m) => messages.tooManyLiveKeys(Number(m[1]))],
];

/**
 * Any detail message as a sentence for a merchant: a known phrase becomes its catalogue
 * sentence; a catalogue sentence stays as it is; any other (a rule's own explanation, such as
 * "must be the shop currency EUR") gets a capital and a full stop.
 */
export function sentence(text: string): string {
  for (const [pattern, make] of phrases) {
    const match = pattern.exec(text);
    if (match) return make(match);
  }
  const trimmed = text.trim();
  if (!trimmed) return messages.invalid;
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/** Field names as a merchant reads them: reward_rule.discount_value → Discount value. */
const labels: Record<string, string> = {
  points_cost: 'Points cost',
  reward_type: 'Reward type',
  campaign_type: 'Action',
  campaign_types: 'Actions it boosts',
  points_expiry_days: 'Days without activity',
  points_pending_days: 'Pending days for order points',
  late_earning_days: 'Late earning days',
  placed_at: 'Placed',
  timezone: 'Time zone',
  locale: 'Language and region',
  per_amount: 'Per amount spent',
  earn_multiplier: 'Earn multiplier',
  product_id: 'Product id',
  variant_id: 'Variant id',
  product_name: 'Product name',
  product_image_url: 'Product image address',
  expires_after_days: 'Code valid for (days)',
  min_order_subtotal: 'Minimum order subtotal',
  starts_at: 'Starts',
  ends_at: 'Ends',
  _: 'The request',
};

export function fieldLabel(path: string): string {
  const last =
    path
      .split('.')
      .filter((part) => !/^\d+$/.test(part))
      .pop() ?? path;
  const label = labels[last] ?? last.replace(/_/g, ' ');
  return label.charAt(0).toUpperCase() + label.slice(1);
}

/** Each error code as a sentence: what happened, and what the merchant can do. */
export const codeMessages: Record<ErrorCode, string> = {
  invalid_token: 'You are not signed in, or your session has ended: sign in again with your admin token.',
  insufficient_scope: 'This key may not do that: use a key with the needed access.',
  not_found: 'We could not find that: it may have been deleted. Go back to the list and pick it again.',
  validation_error: 'Some of what you entered cannot be saved: correct the marked fields and try again.',
  adjustment_failed: 'The customer does not have that many points: enter a smaller number to remove.',
  insufficient_points: 'The customer does not have enough points for this reward.',
  reward_unavailable: 'This reward cannot be redeemed now: check that it is active and the customer may have it.',
  referral_rejected: 'This referral cannot be recorded: a customer cannot refer themselves or be referred twice.',
  conflict: 'This clashes with something that already exists: change it and try again.',
  method_not_allowed: 'This action is not possible here.',
  payload_too_large: 'What you sent is too large: send less at a time.',
  unsupported_media_type: 'The app sent something the service cannot read: reload the page and try again.',
  idempotency_key_reused: 'This form was already sent with other values: reload the page and enter it again.',
  idempotency_in_progress: 'This is still being saved: wait a moment, then check before trying again.',
  rate_limited: 'Too many requests in a short time: wait a minute and try again.',
  csrf_rejected: 'This request did not come from the admin app: reload the page and try again.',
  origin_not_allowed: 'This site is not allowed to call the service: add it to the storefront’s allowed origins.',
  operation_not_allowed: 'This storefront only runs its saved operations: save this one first.',
  persisted_query_not_found: 'This saved operation is not known: save it first.',
  internal_error: 'Something went wrong on our side: nothing was changed. Try again in a moment.',
  service_unavailable: 'The service is busy or restarting: nothing was changed. Try again in a moment.',
  BAD_REQUEST: 'The app sent a request the service cannot read: reload the page and try again.',
  GRAPHQL_PARSE_FAILED: 'The app sent a request the service cannot read: reload the page and try again.',
  GRAPHQL_VALIDATION_FAILED: 'The app sent a request the service does not know: reload the page to get the latest version.',
  OPERATION_RESOLUTION_FAILURE: 'The app sent a request the service cannot read: reload the page and try again.',
  query_too_deep: 'This request asks for too much at once: ask for less.',
  query_too_costly: 'This request asks for too much at once: ask for less.',
  too_many_aliases: 'This request asks for too much at once: ask for less.',
  too_many_directives: 'This request asks for too much at once: ask for less.',
  too_many_tokens: 'This request asks for too much at once: ask for less.',
};

/** Codes whose own message names the thing (which reward, which name clashes): kept, as a sentence. */
const specific: ReadonlySet<ErrorCode> = new Set([
  'not_found',
  'conflict',
  'insufficient_points',
  'reward_unavailable',
  'referral_rejected',
]);

/**
 * An error as a merchant reads it, wherever it is shown (the admin API's answers, the CLI's):
 * each detail a sentence, and the message merchantMessage makes of them; the code stays.
 */
export function inMerchantWords(code: ErrorCode, message: string, raw?: Record<string, string[]>) {
  const details = raw && Object.fromEntries(Object.entries(raw).map(([field, list]) => [field, list.map(sentence)]));
  return { message: merchantMessage(code, message, details), details };
}

/**
 * The message of an error for a merchant: a validation error names its first field and says
 * what to enter there; a code whose message names what it is about keeps it; others say the
 * catalogue's sentence for the code.
 */
function merchantMessage(code: ErrorCode, message: string, details?: Record<string, string[]>): string {
  if (code === 'validation_error' && details) {
    const fields = Object.entries(details);
    const [field, [first] = []] = fields[0] ?? [];
    if (field !== undefined && first !== undefined) {
      const more = fields.length > 1 ? ` (and ${fields.length - 1} more field${fields.length === 2 ? '' : 's'})` : '';
      return `${fieldLabel(field)}: ${sentence(first)}${more}`;
    }
  }
  if (specific.has(code) && message) return sentence(message);
  return codeMessages[code];
}
