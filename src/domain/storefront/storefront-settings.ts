// A merchant's storefront settings: the secret that signs its customer session
// tokens (created when the first session is minted, never returned; rotating it ends every session), the origins
// whose pages may call /graphql with a session or a publishable key, the persisted-operations-only
// mode, and the merchant's live publishable keys (storefront-keys.ts).
// Every instance caches them; the database announces each change (migration
// storefront_sessions) on the API key cache's channel, and each instance forgets that
// merchant (its settings and persisted operations) at once. While the notification feed is
// down nothing is cached.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { type NotificationFeed, notifiedCache } from '../../db/notifications.js';
import type { MaybePromise } from '../shared/maybe-promise.js';
import { webOrigin } from '../shared/origins.js';
import { parseInput } from '../shared/validation.js';

export interface Storefront {
  merchantId: string;
  /** null until the merchant's first customer session is minted. */
  sessionSecret: Uint8Array | null;
  allowedOrigins: string[];
  persistedOnly: boolean;
  /** The live publishable keys (storefront-keys.ts): key to id. */
  publishableKeys: Map<string, string>;
}

const SECRET_BYTES = 32;
const MAX_ORIGINS = 50;
const newSecret = () => new Uint8Array(randomBytes(SECRET_BYTES));

/** The merchant's settings as stored, or the defaults (no origins, no secret) without a row. */
async function readStorefront(db: Db, merchantId: string): Promise<Storefront> {
  const [row, keys] = await Promise.all([
    db.storefrontSettings.findUnique({ where: { merchantId } }),
    db.storefrontKey.findMany({ where: { merchantId, revokedAt: null }, select: { id: true, key: true } }),
  ]);
  const publishableKeys = new Map(keys.map((k) => [k.key, k.id]));
  return row
    ? { ...row, sessionSecret: new Uint8Array(row.sessionSecret), publishableKeys }
    : { merchantId, sessionSecret: null, allowedOrigins: [], persistedOnly: false, publishableKeys };
}

/** The merchant's session signing secret, created the first time it is needed. */
export async function sessionSecretOf(db: Db, merchantId: string): Promise<Uint8Array> {
  const stored = await db.storefrontSettings.findUnique({ where: { merchantId }, select: { sessionSecret: true } });
  if (stored) return new Uint8Array(stored.sessionSecret);
  // created (or found, if another request just created it): caches holding the defaults forget them
  const row = await change(db, merchantId, {});
  return new Uint8Array(row.sessionSecret);
}

const changedHere = new Set<(merchantId: string) => void>();

type Change = { sessionSecret?: Uint8Array<ArrayBuffer>; allowedOrigins?: string[]; persistedOnly?: boolean; updatedAt?: Date };

async function change(db: Db, merchantId: string, data: Change) {
  const row = await db.storefrontSettings.upsert({
    where: { merchantId },
    create: { merchantId, sessionSecret: newSecret(), ...data },
    update: data,
  });
  // this process forgets the old settings now; the others hear of it from the database
  for (const forget of changedHere) forget(merchantId);
  return row;
}

/** Every instance forgets the merchant's cached settings and persisted operations. */
export async function storefrontChanged(db: Db, merchantId: string) {
  await change(db, merchantId, { updatedAt: new Date() });
}

/** What the admin API and the CLI show: never the secret. */
function storefrontView(row: { allowedOrigins: string[]; persistedOnly: boolean; updatedAt: Date | null }) {
  return { allowed_origins: row.allowedOrigins, persisted_operations_only: row.persistedOnly, updated_at: row.updatedAt };
}

export async function storefrontSettings(db: Db, merchantId: string) {
  const row = await db.storefrontSettings.findUnique({ where: { merchantId } });
  return storefrontView(row ?? { allowedOrigins: [], persistedOnly: false, updatedAt: null });
}

/** A new signing secret: every session token minted before is refused from the next request. */
export async function rotateSessionSecret(db: Db, merchantId: string) {
  const row = await change(db, merchantId, { sessionSecret: newSecret() });
  return { rotated_at: row.updatedAt };
}

const settingsInput = z.object({
  allowed_origins: z.array(webOrigin).max(MAX_ORIGINS, `at most ${MAX_ORIGINS} origins`).optional(),
  persisted_operations_only: z.boolean().optional(),
});

export async function updateStorefrontSettings(db: Db, merchantId: string, raw: z.input<typeof settingsInput>) {
  const input = parseInput(settingsInput, raw);
  const row = await change(db, merchantId, {
    ...(input.allowed_origins && { allowedOrigins: [...new Set(input.allowed_origins)] }),
    ...(input.persisted_operations_only !== undefined && { persistedOnly: input.persisted_operations_only }),
  });
  return storefrontView(row);
}

/** Whether any merchant lets pages of `origin` call /graphql (a preflight names no merchant). */
export async function anyStorefrontAllows(db: Db, origin: string): Promise<boolean> {
  const rows = await db.$queryRaw<unknown[]>`
    SELECT 1 FROM storefront_settings WHERE allowed_origins @> ARRAY[${origin.toLowerCase()}]::text[] LIMIT 1`;
  return rows.length > 0;
}

export interface StorefrontCache {
  /** The merchant's settings: at once when cached. */
  get(merchantId: string): MaybePromise<Storefront>;
  /** The text of the merchant's persisted operation with this hash, or null. */
  operation(merchantId: string, hash: string): Promise<string | null>;
  close(): void;
}

/** Cached operations, all merchants together (a merchant's are forgotten with its settings). */
const MAX_OPERATIONS = 100_000;
const MAX_MERCHANTS = 10_000;
const PAYLOAD = 'storefront:';
const SEPARATOR = ' ';

/** A persisted operation's document (persisted-operations.ts writes them), for the cache. */
async function operationText(db: Db, merchantId: string, hash: string): Promise<string | null> {
  const row = await db.persistedOperation.findUnique({ where: { merchantId_hash: { merchantId, hash } }, select: { query: true } });
  return row?.query ?? null;
}

/** The merchants' settings, cached while the database's notifications (the app's `feed`) keep them fresh. */
export function storefrontCache(db: Db, feed?: NotificationFeed): StorefrontCache {
  const forget = (merchantId: string) => {
    settings.forget(merchantId);
    operations.forgetWhere((key) => key.startsWith(merchantId + SEPARATOR));
  };
  const live = () => feed?.live ?? false;
  const settings = notifiedCache<Storefront>(live, MAX_MERCHANTS);
  const operations = notifiedCache<string | null>(live, MAX_OPERATIONS);
  const unsubscribe = feed?.subscribe({
    onMessage: (payload) => payload.startsWith(PAYLOAD) && forget(payload.slice(PAYLOAD.length)),
    onReset: () => {
      settings.clear();
      operations.clear();
    },
  });
  changedHere.add(forget);
  return {
    get: (merchantId) => settings.get(merchantId, () => readStorefront(db, merchantId)),
    operation: async (merchantId, hash) => operations.get(merchantId + SEPARATOR + hash, () => operationText(db, merchantId, hash)),
    close() {
      changedHere.delete(forget);
      unsubscribe?.();
    },
  };
}
