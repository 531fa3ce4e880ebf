// Request templates (see operations.ts): filled per request by the load worker.

/** The customers `__HOT__` draws from (c2 and on): few enough that a cache holds every answer after the warm-up. */
export const HOT_CUSTOMERS = 50;

/** Fills the templates of a request once (for probes; the load worker does the same per request). */
export function fill(text: string, customers: number): string {
  if (!text.includes('__')) return text;
  return text
    .replaceAll('__CUST__', () => String(2 + Math.floor(Math.random() * (customers - 1))))
    .replaceAll('__HOT__', () => String(2 + Math.floor(Math.random() * HOT_CUSTOMERS)))
    .replaceAll('"__POINTS__"', () =>
      String(Math.random() < 0.7 ? 1 + Math.floor(Math.random() * 100) : -(1 + Math.floor(Math.random() * 50))),
    );
}
