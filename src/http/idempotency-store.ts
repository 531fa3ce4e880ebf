// The Idempotency-Key store (used by plugins/idempotency.ts). Idempotency-Key on public POSTs (REST mutations and GraphQL): the first response (status
// and body) is stored and replayed for a retry with the same key and request; the same key
// with another request (body, path or merchant) is 422 idempotency_key_reused; a retry
// while the first is still running is 409 idempotency_in_progress. Keys live 24 hours.
// A request refused by validation, or failing with 5xx, stores nothing: it may be retried.
import { createHash } from 'node:crypto';
import type { Db } from '../db/client.js';
import { AppError } from '../domain/shared/errors.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
const TTL_MS = 24 * 3600_000;
/** A first request older than this that never finished (its process died) may be taken over. */
const ABANDONED_MS = 120_000;
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

export type Claim = { kind: 'owner'; key: string } | { kind: 'replay'; response: Response };

export function fingerprint(merchantId: string, request: Request, url: URL, body: string) {
  const query = [...url.searchParams.entries()].sort(([a], [b]) => a.localeCompare(b));
  return createHash('sha256')
    .update(JSON.stringify([merchantId, request.method, url.pathname, query, body]))
    .digest('hex');
}

export function validateKey(key: string) {
  if (!KEY_SHAPE.test(key)) {
    throw new AppError('validation_error', 'Invalid Idempotency-Key header', {
      'Idempotency-Key': ['must be 1 to 255 visible ASCII characters'],
    });
  }
}

/** Claims `key` for this request, or returns the stored response to replay. */
export async function claim(db: Db, merchantId: string, key: string, print: string): Promise<Claim> {
  const now = new Date();
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await db.idempotencyKey.createMany({
      data: [{ key, merchantId, fingerprint: print, expiresAt: new Date(now.getTime() + TTL_MS) }],
      skipDuplicates: true,
    });
    if (inserted.count === 1) return { kind: 'owner', key };
    const existing = await db.idempotencyKey.findUnique({ where: { key } });
    if (!existing) continue; // deleted meanwhile: try again
    if (existing.expiresAt < now) {
      await db.idempotencyKey.deleteMany({ where: { key, expiresAt: { lt: now } } });
      continue;
    }
    if (existing.fingerprint !== print) {
      throw new AppError(
        'idempotency_key_reused',
        'This Idempotency-Key was already used with a different request; use a new key for a new request',
      );
    }
    if (existing.responseStatus === null) {
      if (now.getTime() - existing.createdAt.getTime() < ABANDONED_MS) {
        throw new AppError('idempotency_in_progress', 'A request with this Idempotency-Key is still being processed; retry shortly');
      }
      const taken = await db.idempotencyKey.updateMany({
        where: { key, createdAt: existing.createdAt, responseStatus: null },
        data: { createdAt: now },
      });
      if (taken.count === 1) return { kind: 'owner', key };
      continue;
    }
    return {
      kind: 'replay',
      response: new Response(existing.responseBody, {
        status: existing.responseStatus,
        headers: {
          'Content-Type': existing.responseType ?? 'application/json; charset=utf-8',
          'Idempotent-Replayed': 'true',
        },
      }),
    };
  }
  throw new AppError('idempotency_in_progress', 'The Idempotency-Key is contended; retry shortly');
}

/** Stores the owner's response, or releases the key when the response must not be replayed. */
export async function settle(db: Db, key: string, response: Response) {
  const body = await response.clone().text();
  if (response.status >= 500 || isValidationFailure(body)) {
    await db.idempotencyKey.deleteMany({ where: { key, responseStatus: null } });
    return;
  }
  await db.idempotencyKey.updateMany({
    where: { key, responseStatus: null },
    data: {
      responseStatus: response.status,
      responseBody: body,
      responseType: response.headers.get('content-type'),
      completedAt: new Date(),
    },
  });
}

function isValidationFailure(body: string) {
  try {
    const parsed = JSON.parse(body) as { error?: { code?: string }; errors?: { extensions?: { code?: string } }[] };
    return (
      parsed.error?.code === 'validation_error' ||
      (parsed.errors ?? []).some((e) => e.extensions?.code === 'validation_error' || e.extensions?.code === undefined)
    );
  } catch {
    return false;
  }
}

/** Deletes expired keys (the idempotency plugin runs it hourly). */
export async function purgeExpired(db: Db) {
  return db.idempotencyKey.deleteMany({ where: { expiresAt: { lt: new Date() } } });
}
