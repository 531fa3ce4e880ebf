// The storefront answers this process keeps (plugins/response-cache.ts): each answer under its
// key (whose revisions make it exact), with its ETag and the instant it stops being true by the
// clock alone. An answer is kept as the object it was sent as, frozen, so a hit is served
// without parsing anything; many requests may hold it at once, and the plugins after the cache
// copy what they change, and with its data's JSON, which a hit's answer is written with rather
// than stringified again. Bounded by an estimate of the memory held: past the bound the least
// recently used go first. Time is the wall clock (Date.now()), as the fields that note when an
// answer changes read it.
import { createHash } from 'node:crypto';
import type { Cache } from '@envelop/response-cache';
import type { ExecutionResult } from 'graphql';

/** A kept answer, and how a hit's answer (the kept one with the request's own extensions) is written. */
export interface KeptAnswer {
  result: ExecutionResult;
  stringify: (answer: ExecutionResult) => string;
}

interface Entry extends KeptAnswer {
  until: number;
  size: number;
}

/** What an entry costs beside its answer and key (the entry, the map's slot), roughly. */
const ENTRY_OVERHEAD = 160;
/**
 * What an answer's objects hold in memory for each character of its JSON: 1.3 bytes measured
 * (the heap before and after 10,000 copies of a panel-shaped answer), counted with a margin.
 */
const OBJECT_BYTES_PER_CHAR = 1.5;
/** The data's JSON kept beside them: a byte a character (V8's one-byte strings; text beyond Latin-1 takes two). */
const JSON_BYTES_PER_CHAR = 1;

/** The ETag an answer is served with: of its data's JSON, weak (the cost and rate-limit extensions differ per request). */
const etagOf = (bytes: string) => `W/"${createHash('sha1').update(bytes).digest('base64url')}"`;

/** An answer with its ETag, set where Yoga takes a result's headers from (its `http` extension, never sent). */
function withETag(result: ExecutionResult, etag: string): ExecutionResult {
  const extensions = result.extensions as { http?: { headers?: Record<string, string> } } | undefined;
  return {
    ...result,
    extensions: { ...extensions, http: { ...extensions?.http, headers: { ...extensions?.http?.headers, ETag: etag } } },
  };
}

/**
 * Writes an answer whose data is the kept one (Yoga takes a result's `stringify`): the data's
 * JSON as kept, then the rest of the answer (its extensions) as JSON.stringify would.
 */
function stringifyWith(data: unknown, dataJson: string) {
  return (answer: ExecutionResult & { stringify?: unknown }) => {
    const { data: answered, stringify: _, ...rest } = answer;
    if (answered !== data) return JSON.stringify(answer);
    const tail = JSON.stringify(rest);
    return tail === '{}' ? `{"data":${dataJson}}` : `{"data":${dataJson},${tail.slice(1)}`;
  };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

export interface AnswerStore extends Cache {
  /** The answer kept under `key` while the clock has not ended it (what `get` answers, without a promise). */
  find(key: string): KeptAnswer | null;
  /** Memory held now (answers and keys), estimated, for tests and metrics. */
  bytes(): number;
}

export function answerStore(maxBytes: number): AnswerStore {
  const entries = new Map<string, Entry>();
  let held = 0;
  const drop = (key: string, entry: Entry) => {
    entries.delete(key);
    held -= entry.size;
  };
  const find = (key: string): KeptAnswer | null => {
    const entry = entries.get(key);
    if (!entry) return null;
    drop(key, entry);
    if (Date.now() >= entry.until) return null;
    // read again: the newest, the last to go
    entries.set(key, entry);
    held += entry.size;
    return entry;
  };
  return {
    find,
    get: (key) => find(key)?.result ?? null,
    set(key, result, _entities, ttl) {
      const dataJson = JSON.stringify(result.data);
      const kept = deepFreeze(withETag(result, etagOf(dataJson)));
      // the answer being sent carries the ETag it is kept with
      Object.assign(result, { extensions: kept.extensions });
      const size = dataJson.length * (OBJECT_BYTES_PER_CHAR + JSON_BYTES_PER_CHAR) + key.length + ENTRY_OVERHEAD;
      if (!(ttl > 0) || size > maxBytes) return;
      const old = entries.get(key);
      if (old) drop(key, old);
      for (const [k, e] of entries) {
        if (held + size <= maxBytes) break;
        drop(k, e);
      }
      entries.set(key, { result: kept, stringify: stringifyWith(kept.data, dataJson), until: Date.now() + ttl, size });
      held += size;
    },
    // answers are kept under their revisions, never dropped by what a mutation returned
    invalidate() {},
    bytes: () => held,
  };
}
