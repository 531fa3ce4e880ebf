// A merchant's persisted operations: GraphQL documents stored by the
// sha256 of their text, the hash the APQ protocol sends (`extensions.persistedQuery.sha256Hash`).
// In the merchant's persisted-operations-only mode /graphql runs these documents and no
// other. Reads go through the storefront cache (storefront-settings.ts), which every change
// here invalidates on every instance.
import { createHash } from 'node:crypto';
import { parse } from 'graphql';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { notFound, validationError } from '../shared/errors.js';
import { type PageArgs, paginate } from '../shared/pagination.js';
import { parseInput } from '../shared/validation.js';
import { storefrontChanged } from './storefront-settings.js';

export const MAX_DOCUMENT_LENGTH = 100_000;

/** The APQ hash of a document: lower-case hex sha256 of its exact text. */
export const documentHash = (query: string) => createHash('sha256').update(query).digest('hex');

export const isDocumentHash = (hash: string) => /^[0-9a-f]{64}$/.test(hash);

const operationInput = z.object({
  query: z.string().min(1, 'must not be empty').max(MAX_DOCUMENT_LENGTH, `must be at most ${MAX_DOCUMENT_LENGTH} characters`),
  name: z.string().trim().min(1).max(255).nullish(),
});

export async function addPersistedOperation(db: Db, merchantId: string, raw: z.input<typeof operationInput>) {
  const input = parseInput(operationInput, raw);
  try {
    parse(input.query, { noLocation: true });
  } catch (err) {
    throw validationError({ query: [`is not a GraphQL document: ${(err as Error).message}`] });
  }
  const hash = documentHash(input.query);
  const row = await db.persistedOperation.upsert({
    where: { merchantId_hash: { merchantId, hash } },
    create: { merchantId, hash, query: input.query, name: input.name ?? null },
    update: { name: input.name ?? null },
  });
  await storefrontChanged(db, merchantId);
  return row;
}

export function listPersistedOperations(db: Db, merchantId: string, args: PageArgs) {
  return paginate(
    args,
    (page) => db.persistedOperation.findMany({ where: { merchantId }, orderBy: [{ createdAt: 'desc' }, { hash: 'asc' }], ...page }),
    () => db.persistedOperation.count({ where: { merchantId } }),
  );
}

export async function removePersistedOperation(db: Db, merchantId: string, hash: string) {
  const { count } = await db.persistedOperation.deleteMany({ where: { merchantId, hash: hash.toLowerCase() } });
  if (count === 0) throw notFound('Persisted operation');
  await storefrontChanged(db, merchantId);
  return { hash: hash.toLowerCase(), removed: true };
}
