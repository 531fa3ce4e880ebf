// The calendar jobs' walk over one merchant's rows (points expiry, tier re-judging, calendar
// rules, pending approval): pages of at most `size` rows read by a keyset (the key of the last
// row read), so a run holds one page in memory whatever the merchant's size, and each row is
// handled by itself (each a ledger write or a tier judgement in its own transaction): a row
// that fails or is changed meanwhile leaves the rows before it done, for the next run to find
// the rest. A job walks merchant by merchant, every read naming its merchant.

/** One page of a merchant's rows after `after` (none: from the first), at most `size`, in key order. */
export type Page<T, K> = (after: K | undefined, size: number) => Promise<T[]>;

/** Calls `each` on every row `page` reads, page after page, until a page comes back empty. */
export async function eachInBatches<T, K>(
  { size, page, keyOf }: { size: number; page: Page<T, K>; keyOf: (row: T) => K },
  each: (row: T) => Promise<void>,
): Promise<void> {
  let after: K | undefined;
  for (;;) {
    const batch = await page(after, size);
    if (batch.length === 0) return;
    after = keyOf(batch.at(-1)!);
    for (const row of batch) await each(row);
  }
}
