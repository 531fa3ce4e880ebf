// The storefront answers this process keeps (plugins/response-cache.ts): each answer's bytes under
// its key (whose revisions make it exact), with its ETag and the instant it stops being true by
// the clock alone. Bounded by bytes: past the bound the least recently used go first. Time is
// the wall clock (Date.now()), as the fields that note when an answer changes read it.
import { createHash } from 'node:crypto';
import type { Cache } from '@envelop/response-cache';
import type { ExecutionResult } from 'graphql';

interface Entry {
  bytes: string;
  etag: string;
  until: number;
  size: number;
}

/** What an entry costs beside its bytes and key (the entry, the map's slot), roughly. */
const ENTRY_OVERHEAD = 160;

/** The ETag an answer is served with: of its data's bytes, weak (the cost and rate-limit extensions differ per request). */
const etagOf = (bytes: string) => `W/"${createHash('sha1').update(bytes).digest('base64url')}"`;

/** An answer with its ETag, set where Yoga takes a result's headers from (its `http` extension, never sent). */
function withETag(result: ExecutionResult, etag: string): ExecutionResult {
  const extensions = result.extensions as { http?: { headers?: Record<string, string> } } | undefined;
  return {
    ...result,
    extensions: { ...extensions, http: { ...extensions?.http, headers: { ...extensions?.http?.headers, ETag: etag } } },
  };
}

export interface AnswerStore extends Cache {
  /** Bytes held now (answers and keys), for tests and metrics. */
  bytes(): number;
}

export function answerStore(maxBytes: number): AnswerStore {
  const entries = new Map<string, Entry>();
  let held = 0;
  const drop = (key: string, entry: Entry) => {
    entries.delete(key);
    held -= entry.size;
  };
  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return null;
      drop(key, entry);
      if (Date.now() >= entry.until) return null;
      // read again: the newest, the last to go
      entries.set(key, entry);
      held += entry.size;
      return withETag(JSON.parse(entry.bytes) as ExecutionResult, entry.etag);
    },
    set(key, result, _entities, ttl) {
      const bytes = JSON.stringify(result);
      const etag = etagOf(bytes);
      // the answer being sent carries the ETag it is kept with
      Object.assign(result, withETag(result, etag));
      const size = bytes.length + key.length + ENTRY_OVERHEAD;
      if (!(ttl > 0) || size > maxBytes) return;
      const old = entries.get(key);
      if (old) drop(key, old);
      for (const [k, e] of entries) {
        if (held + size <= maxBytes) break;
        drop(k, e);
      }
      entries.set(key, { bytes, etag, until: Date.now() + ttl, size });
      held += size;
    },
    // answers are kept under their revisions, never dropped by what a mutation returned
    invalidate() {},
    bytes: () => held,
  };
}
