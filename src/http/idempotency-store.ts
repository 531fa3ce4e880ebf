// The Idempotency-Key store (used by plugins/idempotency.ts). A key belongs to its merchant. The
// first request with a key claims it inside the transaction its own writes run in, and its answer
// (status and body) is stored in that same transaction: the effect and the stored answer commit
// together or not at all. So a retry either replays the stored answer, or finds no claim (the
// first request never committed: its process died, or the database went away) and runs as the
// first. A retry while the first is still running waits briefly for it, then is 409
// idempotency_in_progress. The same key with another request (body, path, query) is 422
// idempotency_key_reused. Keys live 24 hours.
import { createHash } from 'node:crypto';
import type { Db } from '../db/client.js';
import { setLocal } from '../db/transaction.js';
import { AppError } from '../domain/shared/errors.js';
import { Prisma } from '../generated/prisma/client.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
const TTL_MS = 24 * 3600_000;
/** How long a retry waits for a first request still running before it is 409. */
const IN_PROGRESS_WAIT_MS = 2_000;
/** 1 to 255 visible ASCII characters (the OpenAPI document states it from here). */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7e]{1,255}$';
const KEY_SHAPE = new RegExp(IDEMPOTENCY_KEY_PATTERN);

export function fingerprint(who: string, request: Request, url: URL, body: string) {
  const query = [...url.searchParams.entries()].sort(([a], [b]) => a.localeCompare(b));
  return createHash('sha256')
    .update(JSON.stringify([who, request.method, url.pathname, query, body]))
    .digest('hex');
}

export function validateKey(key: string) {
  if (!KEY_SHAPE.test(key)) {
    throw new AppError('validation_error', 'Invalid Idempotency-Key header', {
      'Idempotency-Key': ['must be 1 to 255 visible ASCII characters'],
    });
  }
}

export const inProgress = () =>
  new AppError('idempotency_in_progress', 'A request with this Idempotency-Key is still being processed; retry shortly');

const reused = () =>
  new AppError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request; use a new key for a new request');

/** The answer stored under `key` to replay, or null when no request has answered under it yet. */
export async function storedAnswer(db: Db, merchantId: string, key: string, print: string): Promise<Response | null> {
  const row = await db.idempotencyKey.findUnique({ where: { merchantId_key: { merchantId, key } } });
  if (!row || row.expiresAt < new Date()) return null;
  if (row.fingerprint !== print) throw reused();
  // a claim committed without its answer, by a version of the service that committed them
  // apart: its effect may have happened, so it is never run again (it expires with the key)
  if (row.responseStatus === null) throw inProgress();
  return new Response(row.responseBody, {
    status: row.responseStatus,
    headers: {
      'Content-Type': row.responseType ?? 'application/json; charset=utf-8',
      'Idempotent-Replayed': 'true',
    },
  });
}

/**
 * Claims `key` inside the request's transaction `tx`. False when another request has answered
 * under it meanwhile; throws `idempotency_in_progress` while another still runs (after waiting
 * for it a moment). An expired key is claimed afresh.
 */
export async function claimIn(tx: Db, merchantId: string, key: string, print: string, idleLimitMs: number): Promise<boolean> {
  // the claim waits for a rival claim only briefly; and a request whose process goes
  // silent (cut off from the database without the connection closing) is ended by the database
  await setLocal(tx, { lock_timeout: `${IN_PROGRESS_WAIT_MS}ms`, idle_in_transaction_session_timeout: `${idleLimitMs}ms` });
  // the time is a parameter: Citus refuses now() (not IMMUTABLE) in an ON CONFLICT's WHERE
  const now = new Date();
  try {
    const claimed = await tx.$executeRaw`
      INSERT INTO idempotency_keys (merchant_id, key, fingerprint, created_at, expires_at)
      VALUES (${merchantId}::uuid, ${key}, ${print}, ${now}, ${new Date(now.getTime() + TTL_MS)})
      ON CONFLICT (merchant_id, key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at,
             response_status = NULL, response_body = NULL, response_type = NULL, completed_at = NULL
       WHERE idempotency_keys.expires_at < ${now}`;
    // the rest of the request waits for its locks as any request does (a hot customer's row,
    // a shard being moved), bounded by the request's own timeout
    await setLocal(tx, { lock_timeout: 0 });
    return claimed === 1;
  } catch (err) {
    if (isLockTimeout(err)) throw inProgress();
    throw err;
  }
}

function isLockTimeout(err: unknown) {
  return err instanceof Prisma.PrismaClientKnownRequestError && /55P03|lock timeout/.test(err.message);
}

/** Stores the answer under the key claimed in `tx`: it commits with the request's writes. */
export async function storeAnswerIn(
  tx: Db,
  merchantId: string,
  key: string,
  response: { status: number; body: string; type: string | null },
) {
  await tx.idempotencyKey.update({
    where: { merchantId_key: { merchantId, key } },
    data: { responseStatus: response.status, responseBody: response.body, responseType: response.type, completedAt: new Date() },
  });
}

/** Deletes expired keys (the idempotency plugin runs it hourly). */
export async function purgeExpired(db: Db) {
  return db.idempotencyKey.deleteMany({ where: { expiresAt: { lt: new Date() } } });
}
