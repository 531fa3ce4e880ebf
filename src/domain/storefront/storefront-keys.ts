// Publishable storefront keys: what a signed-out visitor's page uses to read the merchant's
// public program (active rewards, ways to earn, tiers, the referral program) over /graphql,
// like a Storefront API token. Such a key is in every page's source, so it proves nothing
// about who calls: it only names the merchant. What keeps it harmless is what it may do
// (the fields declared for guests, nothing else), where a browser may use it (the
// merchant's storefront origins) and how often one client address may (its own rate limit).
//
// The key names its merchant (`lpk_pub_` + the merchant's id in hex + 24 random characters +
// a checksum), so authenticating it reads only that merchant's storefront: its live keys are
// part of the cached storefront settings (storefront-settings.ts), which every instance
// forgets when a key is created or revoked. A revoked key is refused from the next request.
// It is stored as it is (nothing to protect by hashing a public value) and listed in full,
// so a merchant can copy it into a page again.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import type { GuestPrincipal } from '../access/principal.js';
import { base62, checksum } from '../access/tokens.js';
import { AppError, notFound, validationError } from '../shared/errors.js';
import { rowKey } from '../shared/keys.js';
import { type MaybePromise, whenReady } from '../shared/maybe-promise.js';
import { isUuid } from '../shared/records.js';
import { parseInput } from '../shared/validation.js';
import { type Storefront, storefrontChanged } from './storefront-settings.js';

const PUBLISHABLE_PREFIX = 'lpk_pub_';
const MERCHANT_HEX = 32;
const RANDOM_LENGTH = 24;
const CHECK_LENGTH = 6;
const KEY_LENGTH = PUBLISHABLE_PREFIX.length + MERCHANT_HEX + RANDOM_LENGTH + CHECK_LENGTH;
/** Live keys a merchant may hold: each instance keeps them all with the merchant's settings. */
const MAX_LIVE_KEYS = 20;

const hexOf = (uuid: string) => uuid.replace(/-/g, '').toLowerCase();
const uuidOf = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

function newKey(merchantId: string) {
  const body = hexOf(merchantId) + base62(randomBytes(RANDOM_LENGTH), RANDOM_LENGTH);
  return `${PUBLISHABLE_PREFIX}${body}${checksum(body)}`;
}

/** Whether a bearer token is meant as a publishable key (well formed or not). */
export const isPublishableKey = (token: string) => token.startsWith(PUBLISHABLE_PREFIX);

/** The merchant a publishable key names, or undefined for a malformed or mistyped one. */
function merchantOfKey(key: string): string | undefined {
  if (key.length !== KEY_LENGTH || !isPublishableKey(key)) return undefined;
  const body = key.slice(PUBLISHABLE_PREFIX.length, KEY_LENGTH - CHECK_LENGTH);
  if (!/^[0-9a-f]{32}[0-9A-Za-z]{24}$/.test(body) || checksum(body) !== key.slice(-CHECK_LENGTH)) return undefined;
  const merchantId = uuidOf(body.slice(0, MERCHANT_HEX));
  return isUuid(merchantId) ? merchantId : undefined;
}

const invalidKey = () => new AppError('invalid_token', 'The publishable key is invalid or revoked');

/** The guest a publishable key stands for, or 401 invalid_token (malformed, unknown or revoked). */
export function guestPrincipal(key: string, storefront: (merchantId: string) => MaybePromise<Storefront>): MaybePromise<GuestPrincipal> {
  const merchantId = merchantOfKey(key);
  if (!merchantId) throw invalidKey();
  return whenReady(storefront(merchantId), ({ publishableKeys }) => {
    const keyId = publishableKeys.get(key);
    if (!keyId) throw invalidKey();
    return { kind: 'guest', keyId, merchantId, scopes: [] };
  });
}

const createInput = z.object({ name: z.string().trim().max(200, 'must be at most 200 characters').nullish() });

export async function createStorefrontKey(db: Db, merchantId: string, raw: z.input<typeof createInput>) {
  const input = parseInput(createInput, raw);
  const live = await db.storefrontKey.count({ where: { merchantId, revokedAt: null } });
  if (live >= MAX_LIVE_KEYS) {
    throw validationError({ key: [`a merchant has at most ${MAX_LIVE_KEYS} live publishable keys: revoke one first`] });
  }
  const row = await db.storefrontKey.create({
    data: { merchantId, name: input.name || 'storefront key', key: newKey(merchantId) },
  });
  await storefrontChanged(db, merchantId);
  return row;
}

export function listStorefrontKeys(db: Db, merchantId: string) {
  return db.storefrontKey.findMany({ where: { merchantId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
}

/** Revokes the key: every instance refuses it from the next request. Revoking twice changes nothing. */
export async function revokeStorefrontKey(db: Db, merchantId: string, id: string) {
  if (!isUuid(id)) throw notFound('Storefront key');
  const key = await db.storefrontKey.findUnique({ where: rowKey(merchantId, id) });
  if (!key) throw notFound('Storefront key');
  if (key.revokedAt) return key;
  const row = await db.storefrontKey.update({ where: rowKey(merchantId, id), data: { revokedAt: new Date() } });
  await storefrontChanged(db, merchantId);
  return row;
}
