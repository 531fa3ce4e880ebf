// Before the panel rows are measured: do the three panels answer the same? The service's
// LoyaltyPanel document (GraphQL) and each baseline's hand-written GET /bench/panel, for a few
// customers, by API key and by the shopper's session, compared deeply (fields, their order,
// values, nulls). A baseline that differs is reported, and its panel rows are not compared.
import { PANEL_DOCUMENT } from './operations.js';

export interface PanelCheckResult {
  server: string;
  customer: string;
  credential: 'key' | 'session';
  ok: boolean;
  /** The first differing path, or why the panel could not be read. */
  difference?: string;
}

export interface PanelCheck {
  customers: string[];
  results: PanelCheckResult[];
  /** Baselines whose panel differed from the service's: their panel rows are not comparable. */
  mismatched: string[];
}

const show = (v: unknown) => (v === undefined ? '(absent)' : JSON.stringify(v)?.slice(0, 120));

/** The first path where `b` differs from `a` (fields compared in order), or null. */
export function firstDifference(a: unknown, b: unknown, at = '$'): string | null {
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b)) return `${at}: ${show(a)} vs ${show(b)}`;
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const d = firstDifference(a[i], b[i], `${at}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    for (let i = 0; i < Math.max(ka.length, kb.length); i++) {
      if (ka[i] !== kb[i]) return `${at}: field ${i + 1} is ${ka[i] ?? '(none)'} vs ${kb[i] ?? '(none)'}`;
      const d = firstDifference((a as any)[ka[i]!], (b as any)[kb[i]!], `${at}.${ka[i]}`);
      if (d) return d;
    }
    return null;
  }
  return Object.is(a, b) ? null : `${at}: ${show(a)} vs ${show(b)}`;
}

async function json(res: Promise<Response>): Promise<{ status: number; body: unknown }> {
  const r = await res;
  const text = await r.text();
  try {
    return { status: r.status, body: JSON.parse(text) };
  } catch {
    return { status: r.status, body: text.slice(0, 200) };
  }
}

/**
 * Gives each customer what a panel shows beyond the loaded data (which has no activity and no
 * held code) through the service's REST API: a credit (an activity) and the cheapest reward it
 * can redeem (a held code, and a second activity).
 */
export async function seedPanelCustomers(serviceUrl: string, key: string, customers: string[]) {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  for (const c of customers) {
    const q = `customer_id=${encodeURIComponent(c)}`;
    const credit = await json(
      fetch(`${serviceUrl}/v1/customers/transactions?${q}`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ points: 1500, description: 'Panel check credit' }),
      }),
    );
    if (credit.status !== 201) throw new Error(`panel check: crediting ${c} answered ${credit.status} ${show(credit.body)}`);
    const redeemable = (await json(fetch(`${serviceUrl}/v1/customers/rewards/redeemable?${q}&per_page=1`, { headers }))) as {
      body: { data?: { id: string }[] };
    };
    const reward = redeemable.body.data?.[0];
    if (!reward) throw new Error(`panel check: ${c} can redeem nothing`);
    const redeemed = await json(
      fetch(`${serviceUrl}/v1/customers/rewards/redeem?${q}`, { method: 'POST', headers, body: JSON.stringify({ reward_id: reward.id }) }),
    );
    if (redeemed.status >= 300) throw new Error(`panel check: redeeming for ${c} answered ${redeemed.status} ${show(redeemed.body)}`);
  }
}

/**
 * The service's panel against each baseline's, for `customers` by API key and for the shopper by
 * her session too. Prints every mismatch loudly.
 */
export async function checkPanels(opts: {
  service: string;
  baselines: { kind: string; url: string }[];
  key: string;
  session: string | null;
  shopper: string;
  customers: string[];
  log: (msg: string) => void;
}): Promise<PanelCheck> {
  const results: PanelCheckResult[] = [];
  const cases = [
    ...opts.customers.map((customer) => ({ customer, credential: 'key' as const, token: opts.key })),
    ...(opts.session ? [{ customer: opts.shopper, credential: 'session' as const, token: opts.session }] : []),
  ];
  for (const { customer, credential, token } of cases) {
    const auth = { authorization: `Bearer ${token}` };
    const expected = await json(
      fetch(`${opts.service}/graphql`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ query: PANEL_DOCUMENT, variables: { customer } }),
      }),
    );
    // every GraphQL answer carries the service's cost report (extensions.cost): not the panel's
    const { extensions: _cost, ...answer } = (expected.body ?? {}) as Record<string, unknown>;
    for (const { kind, url } of opts.baselines) {
      // a session names its customer itself
      const path = credential === 'session' ? '/bench/panel' : `/bench/panel?customer_id=${encodeURIComponent(customer)}`;
      const got = await json(fetch(url + path, { headers: auth })).catch((err: Error) => ({ status: 0, body: err.message }));
      const difference =
        expected.status !== 200
          ? `the service answered ${expected.status} ${show(expected.body)}`
          : got.status !== 200
            ? `HTTP ${got.status} ${show(got.body)}`
            : firstDifference(answer, got.body);
      results.push({ server: kind, customer, credential, ok: !difference, ...(difference ? { difference } : {}) });
    }
  }
  const failed = results.filter((r) => !r.ok);
  const mismatched = [...new Set(failed.map((r) => r.server))];
  if (failed.length) {
    opts.log('!!!!!!!! PANEL CHECK: the hand-written panels do not answer what the service answers !!!!!!!!');
    for (const r of failed) opts.log(`!!! ${r.server}, customer ${r.customer} (${r.credential}): ${r.difference}`);
    opts.log(`!!! their panel rows are not comparable: ${mismatched.join(', ')}`);
  } else {
    opts.log(`panel check: ${results.length} panels of ${opts.baselines.map((b) => b.kind).join(', ')} equal to the service's`);
  }
  return { customers: opts.customers, results, mismatched };
}
