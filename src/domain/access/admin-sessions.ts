// Sessions of the admin app (/admin): a merchant signs in once with the admin token and the
// browser then holds only a random session id (in an HttpOnly cookie). Only the id's sha256 is
// stored. A session ends at sign-out, after `idleSeconds` without a request, `maxSeconds` after
// sign-in, or when the merchant's admin token is rotated. The CSRF token is derived from the
// session id (an HMAC), so it needs no storage and nobody without the id can compute it.
//
// The last request's time is not written by every request (a write per read would double its
// cost): lastSeenAt is rewritten once it is `touchEveryMs` old, min(60 s, a quarter of the idle
// time). So the last request was at lastSeenAt or less than touchEveryMs after it, and the
// session ends by idleness only once even that latest possible time is `idleSeconds` old: a
// session used more often than every `idleSeconds` never ends idle, and one left alone ends
// between `idleSeconds` and `idleSeconds` + touchEveryMs after its last request.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../../db/client.js';

export interface SessionPolicy {
  idleSeconds: number;
  maxSeconds: number;
}

export interface AdminSessionView {
  merchantId: string;
  /** The session's row id (not the cookie's secret id): names the session in the audit log. */
  rowId: string;
  expiresAt: Date;
  /** When the session ends if unused from now on: min(last request + idle, expiresAt). */
  idleExpiresAt: Date;
}

/** lastSeenAt is written at most this often per session: a write per request would double reads' cost. */
const TOUCH_RESOLUTION_MS = 60_000;

/** How stale lastSeenAt may be: min(60 s, a quarter of the idle time), at least 1 ms. */
export function touchEveryMs(policy: SessionPolicy): number {
  return Math.max(1, Math.min(TOUCH_RESOLUTION_MS, Math.floor((policy.idleSeconds * 1000) / 4)));
}

/** When a session whose stored lastSeenAt is `lastSeenAt` ends by idleness (see the file's comment). */
const idleEndOf = (lastSeenAt: Date, policy: SessionPolicy) => lastSeenAt.getTime() + touchEveryMs(policy) + policy.idleSeconds * 1000;

const hashId = (id: string) => createHash('sha256').update(id).digest('hex');

/** The CSRF token of a session: a keyed hash of its id. */
export function csrfTokenOf(sessionId: string): string {
  return createHmac('sha256', sessionId).update('loyalty-admin-csrf').digest('base64url');
}

/** Whether `given` is the CSRF token of the session (constant time). */
export function isCsrfTokenOf(sessionId: string, given: string | null): boolean {
  if (!given) return false;
  const expected = Buffer.from(csrfTokenOf(sessionId));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

const view = (rowId: string, merchantId: string, lastSeenAt: Date, expiresAt: Date, policy: SessionPolicy): AdminSessionView => ({
  merchantId,
  rowId,
  expiresAt,
  idleExpiresAt: new Date(Math.min(idleEndOf(lastSeenAt, policy), expiresAt.getTime())),
});

/** Opens a session for the merchant; returns the id to put in the cookie (never stored). */
export async function openSession(db: Db, merchantId: string, policy: SessionPolicy, now = new Date()) {
  const id = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + policy.maxSeconds * 1000);
  const row = await db.adminSession.create({
    data: { merchantId, idHash: hashId(id), createdAt: now, lastSeenAt: now, expiresAt },
    select: { id: true },
  });
  return { id, ...view(row.id, merchantId, now, expiresAt, policy) };
}

/** The live session with this id (and notes its use), or null: unknown, idle too long or past its end. */
export async function findSession(db: Db, id: string, policy: SessionPolicy, now = new Date()): Promise<AdminSessionView | null> {
  const idHash = hashId(id);
  const row = await db.adminSession.findUnique({ where: { idHash } });
  if (!row) return null;
  if (row.expiresAt <= now || idleEndOf(row.lastSeenAt, policy) <= now.getTime()) {
    await db.adminSession.deleteMany({ where: { idHash } });
    return null;
  }
  let lastSeenAt = row.lastSeenAt;
  if (now.getTime() - lastSeenAt.getTime() >= touchEveryMs(policy)) {
    lastSeenAt = now;
    // never backwards: a slower concurrent request must not overwrite a later time
    await db.adminSession.updateMany({ where: { idHash, lastSeenAt: { lt: now } }, data: { lastSeenAt: now } });
  }
  return view(row.id, row.merchantId, lastSeenAt, row.expiresAt, policy);
}

/** Sign-out: the session is gone at once. */
export async function closeSession(db: Db, id: string) {
  await db.adminSession.deleteMany({ where: { idHash: hashId(id) } });
}

/** Deletes sessions past their absolute end (idle ones are deleted when next presented). */
export function purgeExpiredSessions(db: Db, now = new Date()) {
  return db.adminSession.deleteMany({ where: { expiresAt: { lt: now } } });
}
