// The dependency patch that runs the plugins' hooks in a loop
// (patches/@whatwg-node+promise-helpers+1.3.2.patch): envelop and @whatwg-node/server run every
// plugin's onRequest, onParse, onExecute… through `iterateAsync`, which unpatched made several
// fake promises and closures per hook and recursed once per hook (~30 KB of a REST request's
// ~136 KB of allocation at the last count). Held here to the upstream function's contract, and
// to the loop: unpatched, 20,000 hooks that answer at once overflow the stack.
import { fakePromise, fakeRejectPromise, iterateAsync } from '@whatwg-node/promise-helpers';
import { describe, expect, it } from 'vitest';

describe("@whatwg-node/promise-helpers' iterateAsync", () => {
  it('runs hooks that answer at once in a loop, returning at once', () => {
    let calls = 0;
    expect(iterateAsync(new Array(20_000).fill(0), () => void (calls += 1))).toBeUndefined();
    expect(calls).toBe(20_000);
  });

  it('collects what the hooks return, stops where one ends early, and passes each its index', () => {
    const results: number[] = [];
    const seen: number[] = [];
    iterateAsync(
      [10, 20, 30],
      (value, endEarly, index) => {
        seen.push(index);
        if (value === 20) endEarly();
        return value;
      },
      results,
    );
    expect(results).toEqual([10, 20]);
    expect(seen).toEqual([0, 1]);
  });

  it('waits for a hook that returns a promise before the next, and unwraps a settled fake one', async () => {
    const order: string[] = [];
    const results: number[] = [];
    const done = iterateAsync(
      [1, 2, 3],
      (value) => {
        order.push(`start ${value}`);
        if (value === 1) return fakePromise(10);
        return new Promise<number>((resolve) => setTimeout(() => resolve(value * 10), 5));
      },
      results,
    );
    expect(order).toEqual(['start 1', 'start 2']);
    await done;
    expect(order).toEqual(['start 1', 'start 2', 'start 3']);
    expect(results).toEqual([10, 20, 30]);
  });

  it('throws a hook’s error at once, whether thrown or a settled rejection', () => {
    expect(() =>
      iterateAsync([1], () => {
        throw new Error('thrown');
      }),
    ).toThrow('thrown');
    expect(() => iterateAsync([1], () => fakeRejectPromise(new Error('rejected')))).toThrow('rejected');
  });

  it('rejects with the error of a hook whose promise rejects', async () => {
    await expect(iterateAsync([1, 2], (value) => (value === 2 ? Promise.reject(new Error('later')) : undefined))).rejects.toThrow('later');
  });
});
