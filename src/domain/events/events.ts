// Platform events the engine has processed (EngineEvent): the idempotency record. An event
// is claimed by inserting its row first (the unique (merchant, event_id) index wins any
// race), then processed, then its result is stored on the row, all in the caller's one
// transaction (orders.ts, activities.ts): a rival claim waits for it to commit or roll back. A
// replay returns the stored result and changes nothing. Also the input fields every event shares.
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { Prisma } from '../../generated/prisma/client.js';
import { AppError, validationError } from '../shared/errors.js';
import { field, identifier } from '../shared/fields.js';
import { rowKey } from '../shared/keys.js';
import { messages } from '../shared/messages.js';

export type EventKind = 'order' | 'refund' | 'activity';

export type Claim = { claimed: true; id: string } | { claimed: false; result: Record<string, unknown> | null };

const WAIT_STEP_MS = 50;
const WAIT_STEPS = 100;
/**
 * A claim this old without a result was committed apart from its award (by a version of the
 * service that did so, whose process died mid-award). Taking it over is safe: what an award
 * writes is itself unique (the order row, a limit's slot).
 */
const ABANDONED_MS = 120_000;

/**
 * Claims `eventId` for this process. When another call holds it, waits briefly for its
 * result (null if it has none yet: still running, or it failed without releasing).
 */
export async function claimEvent(db: Db, merchantId: string, eventId: string, kind: EventKind): Promise<Claim> {
  const [row] = await db.engineEvent.createManyAndReturn({
    data: [{ merchantId, eventId, kind }],
    skipDuplicates: true,
    select: { id: true },
  });
  if (row) return { claimed: true, id: row.id };
  for (let step = 0; ; step++) {
    const existing = await db.engineEvent.findUnique({ where: { merchantId_eventId: { merchantId, eventId } } });
    if (!existing) return claimEvent(db, merchantId, eventId, kind); // released meanwhile
    if (existing.kind !== kind) {
      throw new AppError('conflict', `event_id "${eventId}" was already used by a ${existing.kind} event`);
    }
    if (existing.result === null && Date.now() - existing.createdAt.getTime() > ABANDONED_MS) {
      await db.engineEvent.deleteMany({ where: { merchantId, id: existing.id, result: { equals: Prisma.DbNull } } });
      return claimEvent(db, merchantId, eventId, kind);
    }
    if (existing.result !== null || step >= WAIT_STEPS) {
      return { claimed: false, result: existing.result as Record<string, unknown> | null };
    }
    await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
  }
}

/** A claimed event whose result never arrived: answering it again could award twice. */
export const stillProcessing = (eventId: string) => new AppError('conflict', `Event "${eventId}" is still being processed; retry later`);

export async function storeResult(db: Db, merchantId: string, id: string, result: object) {
  await db.engineEvent.update({ where: rowKey(merchantId, id), data: { result: result as Prisma.InputJsonValue } });
}

/** Gives a claim back after a failure that changed nothing, so the platform can retry. */
export async function releaseEvent(db: Db, merchantId: string, id: string) {
  await db.engineEvent.deleteMany({ where: { merchantId, id, result: { equals: Prisma.DbNull } } });
}

/**
 * Runs the award of claimed events (an event and its aliases) and stores the result on each.
 * A failure releases the claims before it propagates: `award` must change nothing when it fails.
 */
export async function processClaimed<T extends object>(
  db: Db,
  merchantId: string,
  claimIds: string[],
  award: () => Promise<T>,
): Promise<T> {
  let result: T;
  try {
    result = await award();
  } catch (err) {
    for (const id of claimIds) await releaseEvent(db, merchantId, id).catch(() => {});
    throw err;
  }
  for (const id of claimIds) await storeResult(db, merchantId, id, result);
  return result;
}

// ---- input fields shared by the events ----

/** The platform's event id and its order and customer ids: identifiers (src/domain/shared/fields.ts), never trimmed. */
export const eventIdSchema = identifier(255);
export const platformIdSchema = identifier(255);
/** A Date (from the admin schema's DateTime scalar) or a date and time (the import file). */
export const timestampSchema = z.union([z.date(), field.timestamp]).transform((v) => new Date(v));

// ---- when an event happened ----

/** How far ahead of the service's clock a placed time is still taken as now (a platform's clock may run ahead). */
const CLOCK_SKEW_MS = 5 * 60_000;
const DAY_MS = 86_400_000;

/**
 * When an event happened: `given` (absent: `now`); one up to CLOCK_SKEW_MS ahead of `now` is
 * taken as `now`. Refused (422, the detail keyed `field`): a time further ahead, or more than
 * `lateDays` (the merchant's late_earning_days) before `now`: what it earns could no longer be
 * judged as it would have been then (docs/admin.md, "Late orders and activities").
 */
export function placedTime(given: Date | null | undefined, now: Date, lateDays: number, field: string): Date {
  if (!given) return now;
  if (given.getTime() > now.getTime() + CLOCK_SKEW_MS) {
    throw validationError({ [field]: [messages.placedAhead(CLOCK_SKEW_MS / 60_000)] });
  }
  if (given.getTime() < now.getTime() - lateDays * DAY_MS) {
    throw validationError({ [field]: [messages.placedTooLongAgo(lateDays)] });
  }
  return given.getTime() > now.getTime() ? now : given;
}
