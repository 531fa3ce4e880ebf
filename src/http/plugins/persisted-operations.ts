// Persisted operations on /graphql, through Yoga's own
// usePersistedOperations. Two modes per merchant:
// - automatic persisted queries (APQ, the default): a request may send only
//   `extensions.persistedQuery.sha256Hash` (short enough for a GET a CDN can cache); an unknown
//   hash is PersistedQueryNotFound, and the client sends the document with its hash once,
//   which registers it (the hash must be the document's sha256). Registrations are kept in
//   this process's memory (content-addressed, so shared by every merchant; bounded): another
//   instance answers PersistedQueryNotFound once and learns the document the same way. The
//   merchant's allow-listed operations are found by their hash too.
// - persisted operations only: the merchant's allow-list (the admin API adds, lists and
//   removes operations) is the only source; a document not on it, sent in full or by hash,
//   is refused (403 operation_not_allowed, 404 persisted_query_not_found).
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import { invalidApiKey } from '../../domain/access/api-keys.js';
import { AppError, validationError } from '../../domain/shared/errors.js';
import { whenReady } from '../../domain/shared/maybe-promise.js';
import { documentHash, isDocumentHash, MAX_DOCUMENT_LENGTH } from '../../domain/storefront/persisted-operations.js';
import type { Storefront, StorefrontCache } from '../../domain/storefront/storefront-settings.js';
import { toGraphQLError } from '../errors.js';
import { requestState } from '../request-state.js';

const APQ_ENTRIES = 5000;

/** The APQ hash a request sends, if any (version 1 only). */
function sentHash(params: GraphQLParams): string | undefined {
  const pq = (params.extensions as { persistedQuery?: { version?: unknown; sha256Hash?: unknown } } | undefined)?.persistedQuery;
  return pq && pq.version === 1 && typeof pq.sha256Hash === 'string' ? pq.sha256Hash : undefined;
}

/** Documents registered through APQ, by hash: the least recently used go first. */
function apqStore() {
  const docs = new Map<string, string>();
  return {
    get(hash: string) {
      const doc = docs.get(hash);
      // read again: the newest, the last a full cache forgets
      if (doc !== undefined) {
        docs.delete(hash);
        docs.set(hash, doc);
      }
      return doc;
    },
    set(hash: string, doc: string) {
      if (doc.length > MAX_DOCUMENT_LENGTH) return;
      docs.delete(hash);
      if (docs.size >= APQ_ENTRIES) docs.delete(docs.keys().next().value!);
      docs.set(hash, doc);
    },
  };
}

const asGraphQLError = (err: AppError) => toGraphQLError(err);

export function persistedOperations(storefronts: StorefrontCache): Plugin[] {
  const apq = apqStore();
  const merchantOf = (context: object) => {
    const { principal } = requestState(context);
    if (!principal) throw asGraphQLError(invalidApiKey());
    return principal.merchantId;
  };

  /** A document sent in full: its hash checked and registered, or refused in persisted-only mode. */
  const admitDocument: Plugin = {
    onParams({ params, context }) {
      if (typeof params.query !== 'string') return;
      const hash = sentHash(params);
      if (hash !== undefined && hash !== documentHash(params.query)) {
        throw asGraphQLError(
          validationError({ persistedQuery: ['sha256Hash is not the sha256 of the query'] }, 'provided sha does not match query'),
        );
      }
      const merchantId = merchantOf(context);
      const admit = ({ persistedOnly }: Storefront) => {
        if (!persistedOnly) return void (hash !== undefined && apq.set(hash, params.query!));
        return storefronts.operation(merchantId, hash ?? documentHash(params.query!)).then((operation) => {
          if (operation === null) {
            throw asGraphQLError(
              new AppError('operation_not_allowed', 'This shop runs only its persisted operations; this document is not one of them'),
            );
          }
        });
      };
      // at once when the merchant's settings are cached: most documents wait for nothing here
      return whenReady(storefronts.get(merchantId), admit);
    },
  };

  // biome-ignore lint/suspicious/noExplicitAny: the plugin's own context type
  const byHash = usePersistedOperations<Record<string, any>>({
    allowArbitraryOperations: true,
    extractPersistedOperationId: (params) => sentHash(params) ?? null,
    async getPersistedOperation(hash, _request, context) {
      const merchantId = merchantOf(context);
      const found = isDocumentHash(hash) ? await storefronts.operation(merchantId, hash) : null;
      if (found !== null) return found;
      const { persistedOnly } = await storefronts.get(merchantId);
      const registered = persistedOnly ? undefined : apq.get(hash);
      return registered ?? null;
    },
    customErrors: {
      // the APQ protocol's own message, which clients (Apollo, urql) look for
      notFound: () => asGraphQLError(new AppError('persisted_query_not_found', 'PersistedQueryNotFound')),
      keyNotFound: () =>
        asGraphQLError(
          validationError({ query: ['send a query, or extensions.persistedQuery.sha256Hash'] }, 'Must provide a query string'),
        ),
    },
  });
  return [admitDocument, byHash];
}
