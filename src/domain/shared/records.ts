// What the records of every resource share: uuid ids, the merchant's own row by id, unique
// violations as 409 conflict, an update as a patch merged onto the stored record, and the
// nullable JSON and date columns of a row.
import type { z } from 'zod';
import { Prisma } from '../../generated/prisma/client.js';
import { AppError, notFound } from './errors.js';
import { parseInput } from './validation.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: unknown): s is string => typeof s === 'string' && UUID.test(s);

/** The row `find` returns for `id`, else 404 `<what> not found`; an id that is no uuid names nothing. */
export async function findOwn<T>(what: string, id: string, find: (id: string) => Promise<T | null>): Promise<T> {
  const row = isUuid(id) ? await find(id) : null;
  if (!row) throw notFound(what);
  return row;
}

/** The unique index a failed insert/update violated, or null for any other error. */
export function violatedUniqueIndex(err: unknown): string | null {
  if (!(err instanceof Prisma.PrismaClientKnownRequestError) || err.code !== 'P2002') return null;
  const cause = (err.meta as { driverAdapterError?: { cause?: { constraint?: { index?: string } } } } | undefined)?.driverAdapterError
    ?.cause;
  return cause?.constraint?.index ?? 'unique';
}

/** Runs a write; a unique violation becomes 409 conflict with `message`. */
export async function orConflict<T>(write: () => Promise<T>, message: (index: string) => string): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const index = violatedUniqueIndex(err);
    if (index) throw new AppError('conflict', message(index));
    throw err;
  }
}

/** Fields of an update, in the public field names. */
export type Patch = Record<string, unknown>;

/**
 * An update's input: `patch` merged onto the stored record (given in its input shape) and
 * validated whole, so cross-field rules (reward_rule vs reward_type, ends_at after
 * starts_at) hold after every change.
 */
export function mergePatch<S extends z.ZodType>(schema: S, stored: Patch, patch: Patch): z.infer<S> {
  return parseInput(schema, { ...stored, ...patch });
}

export const jsonOrNull = (value: unknown) => (value == null ? Prisma.DbNull : (value as Prisma.InputJsonValue));
export const dateOrNull = (iso: string | null | undefined) => (iso ? new Date(iso) : null);
