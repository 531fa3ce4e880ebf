// How a change to a merchant's program (settings, tiers, rules, boosters) reaches the instances'
// program caches (program.ts): announced on the database's notification channel in the change's
// own transaction, so every instance hears it at commit, and forgotten by this instance as the
// change returns, before its notice comes back.
import type { Db } from '../../db/client.js';
import { PROGRAM_CHANNEL } from '../../db/notifications.js';
import type { Prisma } from '../../generated/prisma/client.js';

/**
 * Announces a change to the merchant's program, inside the transaction that makes it (put it in
 * the same `$transaction`): every instance hears it at commit. Call `programChangedHere` once
 * the transaction has committed.
 */
export const announceProgramChange = (db: Db, merchantId: string) => db.$executeRaw`SELECT pg_notify(${PROGRAM_CHANNEL}, ${merchantId})`;

const changedHere = new Set<(merchantId: string) => void>();

/** This instance forgets the merchant's program now, before its notification comes back. */
export function programChangedHere(merchantId: string) {
  for (const forget of changedHere) forget(merchantId);
}

/** Calls `forget` on every change this instance makes; returns what stops it. */
export function onProgramChangedHere(forget: (merchantId: string) => void) {
  changedHere.add(forget);
  return () => changedHere.delete(forget);
}

/** One write to the merchant's program (a rule, a booster) with its announcement, in one transaction. */
export async function changeProgram<T>(db: Db, merchantId: string, write: Prisma.PrismaPromise<T>): Promise<T> {
  const [written] = await db.$transaction([write, announceProgramChange(db, merchantId)]);
  programChangedHere(merchantId);
  return written as T;
}
