// BENCHMARK BASELINE, NOT PART OF THE SERVICE. The points arithmetic a team would write for
// POST /points/estimate: purchase rules (fixed or per amount), min subtotal and product
// conditions, the tier multiplier and running boosters, floored once at the end. Shared by
// both baselines so they answer the same numbers as each other.

export interface RuleRow {
  id: string;
  name: string;
  earning_rule: { type?: string; value?: number; per_amount?: number } | null;
  conditions: {
    min_order_subtotal?: number | null;
    max_points_per_order?: number | null;
    product_ids?: string[] | null;
    excluded_product_ids?: string[] | null;
  } | null;
}

export interface Cart {
  subtotal: number;
  line_items?: { product_id: string; quantity: number; price: number }[] | null;
}

export interface Entry {
  source: 'earning_rule' | 'tier' | 'booster';
  id: string;
  name: string;
  points: number;
}

const cents = (x: number) => Math.round(x * 100);
const floor = (x: number) => Math.floor(Math.round(x * 1e6) / 1e6);

function eligibleCents(rule: RuleRow, cart: Cart): number | null {
  const include = rule.conditions?.product_ids?.length ? new Set(rule.conditions.product_ids) : null;
  const exclude = rule.conditions?.excluded_product_ids?.length ? new Set(rule.conditions.excluded_product_ids) : null;
  if (!include && !exclude) return cents(cart.subtotal);
  if (!cart.line_items?.length) return include ? null : cents(cart.subtotal);
  const items = cart.line_items.filter((i) => (!include || include.has(i.product_id)) && !exclude?.has(i.product_id));
  return items.length ? items.reduce((s, i) => s + cents(i.price) * i.quantity, 0) : null;
}

function rulePoints(rule: RuleRow, cart: Cart): number {
  const r = rule.earning_rule;
  if (!r || typeof r.value !== 'number') return 0;
  const min = rule.conditions?.min_order_subtotal;
  if (min != null && cents(cart.subtotal) < cents(min)) return 0;
  const eligible = eligibleCents(rule, cart);
  if (eligible === null) return 0;
  const points = r.type === 'fixed' ? r.value : floor(eligible / ((r.per_amount ?? 1) * 100)) * r.value;
  const max = rule.conditions?.max_points_per_order;
  return max != null ? Math.min(points, max) : points;
}

export function estimate(
  rules: RuleRow[],
  tier: { id: string; name: string; multiplier: number } | null,
  boosters: { id: string; name: string; multiplier: number }[],
  cart: Cart,
) {
  const raw: Entry[] = [];
  for (const rule of rules) {
    const points = rulePoints(rule, cart);
    if (points > 0) raw.push({ source: 'earning_rule', id: rule.id, name: rule.name, points });
  }
  const ruleCount = raw.length;
  const base = raw.reduce((s, e) => s + e.points, 0);
  if (base > 0) {
    if (tier && tier.multiplier !== 1) raw.push({ source: 'tier', id: tier.id, name: tier.name, points: base * (tier.multiplier - 1) });
    const tiered = base * (tier?.multiplier ?? 1);
    for (const b of boosters) {
      if (b.multiplier !== 1) raw.push({ source: 'booster', id: b.id, name: b.name, points: tiered * (b.multiplier - 1) });
    }
  }
  let running = 0;
  let floored = 0;
  const breakdown = raw.map((e) => {
    running += e.points;
    const next = Math.max(0, floor(running));
    const points = next - floored;
    floored = next;
    return { ...e, points };
  });
  const basePoints = breakdown.slice(0, ruleCount).reduce((s, e) => s + e.points, 0);
  return { points: floored, base_points: basePoints, bonus_points: floored - basePoints, breakdown };
}
