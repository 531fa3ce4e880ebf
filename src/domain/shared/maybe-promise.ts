// A value a cache may answer at once or after a load. A request's hooks run one after another,
// and each promise costs one a turn of the microtask queue: what is at hand is used at once.

export type MaybePromise<T> = T | Promise<T>;

/** `next(value)`: at once when `value` is at hand, once it resolves otherwise. */
export function whenReady<T, R>(value: MaybePromise<T>, next: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
