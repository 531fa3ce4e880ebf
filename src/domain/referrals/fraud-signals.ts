// Fraud signals: what holds a referral for the merchant's review instead of rewarding it. Each
// signal is on or off, with its threshold, in the referral program's `fraud_checks`; a signal
// that fires is recorded on the referral as `{ signal, detail }` (the detail names what matched,
// never an address or identifier itself). Signals are judged when the referral is registered
// (emails, blocklist, velocities, the registering party's identifiers) and when the friend's
// order would complete it (their order's identifiers, not their first order, blocklisted
// address). docs/admin.md says what each catches and may catch wrongly.
import { BlockList, isIP } from 'node:net';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { rowsOf } from '../../db/sql.js';
import { Prisma, type ReferralParty } from '../../generated/prisma/client.js';

const DAY_MS = 86_400_000;
const MAX_LIST = 1000;
/** Local parts shorter than this are compared whole (equal or not), never by similarity. */
const MIN_SIMILAR_LENGTH = 4;
/** Providers that deliver `a.b@` to `ab@`: dots in their local parts name no one else. */
const DOTLESS_DOMAINS = new Set(['gmail.com']);
/** Another name of a provider's domain. */
const DOMAIN_ALIASES: Record<string, string> = { 'googlemail.com': 'gmail.com' };

const days = z.number().int().min(1).max(365);
const maxReferrals = z.number().int().min(1).max(10_000);

/** An IPv4 or IPv6 address, in one spelling (lower case, an IPv4-mapped IPv6 address as IPv4). */
export function plainAddress(address: string): string | null {
  const a = address.trim().toLowerCase();
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  const plain = v4 ? v4[1]! : a;
  return isIP(plain) ? plain : null;
}

const clientAddress = z.string().transform((value, ctx) => {
  const plain = plainAddress(value);
  if (!plain) ctx.addIssue({ code: 'custom', message: 'must be an IP address' });
  return plain ?? value;
});

const addressOrRange = z.string().superRefine((value, ctx) => {
  const [address = '', bits, extra] = value.split('/');
  const family = isIP(address);
  const max = family === 6 ? 128 : 32;
  const rangeOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= max);
  if (!family || !rangeOk || extra !== undefined) ctx.addIssue({ code: 'custom', message: 'must be an IP address or range' });
});

const domain = z
  .string()
  .max(253)
  .transform((d) => d.trim().toLowerCase().replace(/^@/, ''))
  .refine((d) => /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(d), 'must be a domain');

const opaque = z.string().min(1).max(255);

/** Identifiers a storefront's request or an integration passes with a referral or an order. */
export const identifierFields = {
  client_ip: clientAddress.nullish(),
  device_id: opaque.nullish(),
  payment_fingerprint: opaque.nullish(),
  shipping_address_hash: opaque.nullish(),
};
export type Identifiers = { [K in keyof typeof identifierFields]?: string | null };

/** The program's fraud checks; each section absent from an input takes its defaults. */
export const fraudChecksInput = z
  .object({
    similar_email: z
      .object({ enabled: z.boolean().default(true), similarity: z.number().min(0.5).max(1).default(0.8) })
      .strict()
      .prefault({}),
    shared_identifier: z
      .object({ enabled: z.boolean().default(true), window_days: days.default(30) })
      .strict()
      .prefault({}),
    not_first_order: z
      .object({ enabled: z.boolean().default(false) })
      .strict()
      .prefault({}),
    referrer_velocity: z
      .object({ enabled: z.boolean().default(true), max_referrals: maxReferrals.default(10), window_days: days.default(7) })
      .strict()
      .prefault({}),
    address_velocity: z
      .object({ enabled: z.boolean().default(true), max_referrals: maxReferrals.default(10), window_days: days.default(7) })
      .strict()
      .prefault({}),
    blocklist: z
      .object({
        enabled: z.boolean().default(true),
        emails: z.array(z.email().max(320)).max(MAX_LIST).default([]),
        domains: z.array(domain).max(MAX_LIST).default([]),
        addresses: z.array(addressOrRange).max(MAX_LIST).default([]),
      })
      .strict()
      .prefault({}),
  })
  .strict();
export type FraudChecks = z.output<typeof fraudChecksInput>;

/** The checks a program keeps (null: none set, so the defaults). */
export const fraudChecksOf = (stored: unknown): FraudChecks => fraudChecksInput.parse(stored ?? {});

export const signalNames = [
  'similar_email',
  'shared_identifier',
  'not_first_order',
  'referrer_velocity',
  'address_velocity',
  'blocklist',
] as const;
type SignalName = (typeof signalNames)[number];
export interface Signal {
  signal: SignalName;
  detail: string;
}

// ---- emails ----

/** An address as its mailbox: lower case, without a plus tag, without dots where the provider ignores them. */
export function mailbox(email: string) {
  const at = email.lastIndexOf('@');
  const rawDomain = email.slice(at + 1).toLowerCase();
  const domain = DOMAIN_ALIASES[rawDomain] ?? rawDomain;
  let local = email.slice(0, at).toLowerCase().split('+')[0]!;
  if (DOTLESS_DOMAINS.has(domain)) local = local.replaceAll('.', '');
  return { local, domain, address: `${local}@${domain}` };
}

/** Levenshtein distance (insertions, deletions, substitutions), by code unit. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length]!;
}

/** 1 − edit distance ÷ the longer length: 1 for equal strings, 0 for nothing in common. */
export function similarity(a: string, b: string): number {
  const longer = Math.max(a.length, b.length);
  return longer === 0 ? 1 : 1 - editDistance(a, b) / longer;
}

function emailSignal(checks: FraudChecks, referrerEmail: string, refereeEmail: string): Signal | null {
  const { enabled, similarity: threshold } = checks.similar_email;
  if (!enabled) return null;
  const a = mailbox(referrerEmail);
  const b = mailbox(refereeEmail);
  if (a.address === b.address) {
    return {
      signal: 'similar_email',
      detail: "The friend's email is the referrer's mailbox (same address once case, plus-tags and dots are ignored)",
    };
  }
  if (Math.min(a.local.length, b.local.length) < MIN_SIMILAR_LENGTH) return null;
  const score = similarity(a.local, b.local);
  if (score < threshold) return null;
  return {
    signal: 'similar_email',
    detail: `The emails' local parts are ${score.toFixed(2)} similar (threshold ${threshold.toFixed(2)})`,
  };
}

// ---- the blocklist ----

function blockedAddresses(addresses: readonly string[]) {
  const list = new BlockList();
  for (const entry of addresses) {
    const [address = '', bits] = entry.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return list;
}

function blocklistSignal(checks: FraudChecks, emails: { who: string; email: string }[], address: string | null | undefined): Signal | null {
  const { enabled, emails: blockedEmails, domains, addresses } = checks.blocklist;
  if (!enabled) return null;
  const blocked = new Set(blockedEmails.map((e) => mailbox(e).address));
  for (const { who, email } of emails) {
    const box = mailbox(email);
    if (blocked.has(box.address)) return { signal: 'blocklist', detail: `The ${who}'s email is on the blocklist` };
    if (domains.some((d) => box.domain === d || box.domain.endsWith(`.${d}`))) {
      return { signal: 'blocklist', detail: `The ${who}'s email domain is on the blocklist` };
    }
  }
  const plain = address ? plainAddress(address) : null;
  if (plain && addresses.length && blockedAddresses(addresses).check(plain, isIP(plain) === 6 ? 'ipv6' : 'ipv4')) {
    return { signal: 'blocklist', detail: 'The client address is on the blocklist' };
  }
  return null;
}

// ---- identifiers shared by the referrer and the friend ----

const kinds = [
  ['client_ip', 'client address'],
  ['device_id', 'device'],
  ['payment_fingerprint', 'payment method'],
  ['shipping_address_hash', 'shipping address'],
] as const;

interface Seen extends Identifiers {
  /** Where the referrer's side was seen: an order's platform id, or the referral's registration. */
  source: string;
}

/** What `friend` shares with one of the referrer's `seen` identifiers, as a detail; null when nothing. */
function sharedSignal(friend: Identifiers[], seen: Seen[], friendSource: string): Signal | null {
  for (const side of seen) {
    const shared = kinds.filter(([k]) => side[k] && friend.some((f) => f[k] === side[k])).map(([, label]) => label);
    if (shared.length) {
      return { signal: 'shared_identifier', detail: `${friendSource} shares the ${shared.join(' and the ')} of ${side.source}` };
    }
  }
  return null;
}

const hasAny = (ids: Identifiers) => kinds.some(([k]) => ids[k]);

/** The referrer's orders placed within `windowDays` before `at` that carry identifiers. */
function referrerOrders(db: Db, merchantId: string, referrerId: string, at: Date, windowDays: number) {
  return rowsOf<Seen>(
    db,
    Prisma.sql`
    SELECT 'the referrer''s order ' || platform_order_id AS source, client_ip, device_id, payment_fingerprint, shipping_address_hash
      FROM orders
     WHERE merchant_id = ${merchantId}::uuid AND customer_id = ${referrerId}::uuid
       AND placed_at > ${new Date(at.getTime() - windowDays * DAY_MS)} AND placed_at <= ${at}
       AND (client_ip IS NOT NULL OR device_id IS NOT NULL OR payment_fingerprint IS NOT NULL OR shipping_address_hash IS NOT NULL)
     ORDER BY placed_at DESC LIMIT 200`,
  );
}

// ---- when the referral is registered ----

interface Registration {
  referrer: { id: string; email: string };
  refereeEmail: string;
  identifiers: Identifiers;
  registeredBy: ReferralParty;
}

const countSince = (db: Db, sql: Prisma.Sql) => rowsOf<{ n: number }>(db, sql).then(([row]) => Number(row?.n ?? 0));

/** The signals a new referral raises (none: it is registered pending). */
export async function registrationSignals(db: Db, merchantId: string, checks: FraudChecks, r: Registration): Promise<Signal[]> {
  const now = Date.now();
  const ip = r.identifiers.client_ip ?? null;
  const { referrer_velocity: byReferrer, address_velocity: byAddress, shared_identifier: shared } = checks;
  const [made, fromAddress, seen] = await Promise.all([
    byReferrer.enabled
      ? countSince(
          db,
          Prisma.sql`SELECT count(*)::int AS n FROM referrals
                      WHERE merchant_id = ${merchantId}::uuid AND referrer_id = ${r.referrer.id}::uuid
                        AND created_at > ${new Date(now - byReferrer.window_days * DAY_MS)}`,
        )
      : 0,
    byAddress.enabled && ip
      ? countSince(
          db,
          Prisma.sql`SELECT count(*)::int AS n FROM referrals
                      WHERE merchant_id = ${merchantId}::uuid AND client_ip = ${ip}
                        AND created_at > ${new Date(now - byAddress.window_days * DAY_MS)}`,
        )
      : 0,
    // the friend registered it: their identifiers against the referrer's recent orders
    shared.enabled && r.registeredBy === 'referee' && hasAny(r.identifiers)
      ? referrerOrders(db, merchantId, r.referrer.id, new Date(now), shared.window_days)
      : [],
  ]);
  const signals = [
    emailSignal(checks, r.referrer.email, r.refereeEmail),
    blocklistSignal(
      checks,
      [
        { who: 'friend', email: r.refereeEmail },
        { who: 'referrer', email: r.referrer.email },
      ],
      ip,
    ),
    made >= byReferrer.max_referrals
      ? {
          signal: 'referrer_velocity' as const,
          detail: `The referrer made ${made} referrals in the last ${byReferrer.window_days} days (the limit is ${byReferrer.max_referrals})`,
        }
      : null,
    fromAddress >= byAddress.max_referrals
      ? {
          signal: 'address_velocity' as const,
          detail: `${fromAddress} referrals were registered from this client address in the last ${byAddress.window_days} days (the limit is ${byAddress.max_referrals})`,
        }
      : null,
    sharedSignal([r.identifiers], seen, "The friend's registration"),
  ];
  return signals.filter((s): s is Signal => s !== null);
}

// ---- when the friend's order would complete it ----

interface Completion {
  referral: Identifiers & { referrerId: string; registeredBy: ReferralParty; createdAt: Date };
  refereeId: string;
  order: Identifiers & { id: string; orderId: string; placedAt: Date };
}

/** The signals the friend's qualifying order raises. */
export async function completionSignals(db: Db, merchantId: string, checks: FraudChecks, c: Completion): Promise<Signal[]> {
  const { shared_identifier: shared, not_first_order: notFirst } = checks;
  const fromReferral: Seen = {
    source: "the referrer's registration of the referral",
    client_ip: c.referral.client_ip,
    device_id: c.referral.device_id,
    payment_fingerprint: c.referral.payment_fingerprint,
    shipping_address_hash: c.referral.shipping_address_hash,
  };
  const [earlier, seen] = await Promise.all([
    notFirst.enabled
      ? countSince(
          db,
          Prisma.sql`SELECT count(*)::int AS n FROM orders
                      WHERE merchant_id = ${merchantId}::uuid AND customer_id = ${c.refereeId}::uuid
                        AND id <> ${c.order.id}::uuid AND placed_at <= ${c.order.placedAt}`,
        )
      : 0,
    shared.enabled && hasAny(c.order) ? referrerOrders(db, merchantId, c.referral.referrerId, c.order.placedAt, shared.window_days) : [],
  ]);
  // the referral's own identifiers are the referrer's when the referrer registered it
  const referrerSide = shared.enabled && c.referral.registeredBy === 'referrer' && hasAny(fromReferral) ? [fromReferral, ...seen] : seen;
  const signals = [
    earlier > 0
      ? {
          signal: 'not_first_order' as const,
          detail: `The friend placed ${earlier} order${earlier === 1 ? '' : 's'} before order ${c.order.orderId}`,
        }
      : null,
    sharedSignal([c.order], referrerSide, `The friend's order ${c.order.orderId}`),
    blocklistSignal(checks, [], c.order.client_ip),
  ];
  return signals.filter((s): s is Signal => s !== null);
}
