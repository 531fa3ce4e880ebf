// Before the panel rows are measured: the hand-written panels must answer what the service
// answers to the LoyaltyPanel document, for the shopper (by session) and a few customers (by
// API key), or their rows would compare different work. A baseline that differs is left out
// of the panel rows, with the first differing path in the results (`panel_check`).
import { PANEL_DOCUMENT, SHOPPER } from './operations.js';
import type { RunningServer } from './servers.js';

export interface PanelCheck {
  /** Per baseline: equal to the service's answer for every customer checked, or where it first differs. */
  [kind: string]: { equal: true } | { equal: false; customer: string; path: string; service: unknown; baseline: unknown };
}

/** The first path where two JSON values differ, or null. */
function firstDifference(a: unknown, b: unknown, at = '$'): { path: string; service: unknown; baseline: unknown } | null {
  if (a === b) return null;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    for (const k of keys) {
      const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`);
      if (d) return d;
    }
    return null;
  }
  return { path: at, service: a, baseline: b };
}

async function json(url: string, init: RequestInit) {
  const res = await fetch(url, init);
  return (await res.json()) as { data?: unknown };
}

export async function checkPanels(servers: readonly RunningServer[], key: string, session: string | null, customers: readonly string[]) {
  const service = servers.find((s) => s.kind === 'service');
  const check: PanelCheck = {};
  if (!service) return check;
  const asked = [
    ...customers.map((c) => ({ customer: c, credential: key })),
    ...(session ? [{ customer: SHOPPER, credential: session }] : []),
  ];
  for (const baseline of servers.filter((s) => s.kind !== 'service')) {
    check[baseline.kind] = { equal: true };
    for (const { customer, credential } of asked) {
      const headers = { authorization: `Bearer ${credential}`, 'content-type': 'application/json' };
      const [expected, got] = await Promise.all([
        json(`${service.url}/graphql`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ query: PANEL_DOCUMENT, variables: { customer } }),
        }),
        json(`${baseline.url}/bench/panel?customer_id=${encodeURIComponent(customer)}`, { headers }),
      ]);
      const difference = firstDifference(expected.data ?? expected, got.data ?? got);
      if (difference) {
        check[baseline.kind] = { equal: false, customer, ...difference };
        break;
      }
    }
  }
  return check;
}
