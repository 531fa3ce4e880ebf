// Request templates (see operations.ts): filled per request by the load worker.

/** Fills the templates of a request once (for probes; the load worker does the same per request). */
export function fill(text: string, customers: number): string {
  if (!text.includes('__')) return text;
  return text
    .replaceAll('__CUST__', () => String(2 + Math.floor(Math.random() * (customers - 1))))
    .replaceAll('"__POINTS__"', () =>
      String(Math.random() < 0.7 ? 1 + Math.floor(Math.random() * 100) : -(1 + Math.floor(Math.random() * 50))),
    );
}
