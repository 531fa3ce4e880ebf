// Per-request batch loading for the graph's links, so a page of parents costs one read per
// link, not one per parent. A link resolver asks
// its request's loader for one parent's records; DataLoader gathers the keys of every parent
// the execution reaches in the same tick and calls the domain's batch read once for all of
// them. Loaders live for one request (on its context), so nothing is cached across requests
// or merchants. Not a WeakMap keyed by the context: V8's young-generation collector keeps such
// an entry's value alive after its key has died (src/http/request-state.ts).
import DataLoader from 'dataloader';
import type { Context } from './builder.js';

const LOADERS = Symbol('loyalty.loaders');
type WithLoaders = Context & { [LOADERS]?: Map<string, DataLoader<unknown, unknown>> };

/**
 * The request's loader named `name` (which also names any arguments its reads depend on, such
 * as a page); `batch` answers its keys in order (an Error fails that key's load alone). Keys are
 * compared by `cacheKey` (default: the key itself).
 */
export function loaderOf<K, V, C = K>(
  ctx: Context,
  name: string,
  batch: (keys: readonly K[]) => Promise<(V | Error)[]>,
  cacheKey?: (key: K) => C,
): DataLoader<K, V, C> {
  const loaders = ((ctx as WithLoaders)[LOADERS] ??= new Map());
  let loader = loaders.get(name) as DataLoader<K, V, C> | undefined;
  if (!loader) {
    loader = new DataLoader<K, V, C>(batch, cacheKey ? { cacheKeyFn: cacheKey } : {});
    loaders.set(name, loader as DataLoader<unknown, unknown>);
  }
  return loader;
}

/** A link's loader name for its arguments: the same page of the same list shares one batch. */
export function loaderName(link: string, args: object): string {
  return `${link}:${JSON.stringify(args)}`;
}

/** The request's loader of records by id: `find` reads those of a batch (unknown ids: null). */
export function byIdOf<T extends { id: string }>(
  ctx: Context,
  name: string,
  find: (ids: readonly string[]) => Promise<T[]>,
): DataLoader<string, T | null> {
  return loaderOf(ctx, name, async (ids: readonly string[]) => {
    const found = new Map((await find(ids)).map((r) => [r.id, r]));
    return ids.map((id) => found.get(id) ?? null);
  });
}
