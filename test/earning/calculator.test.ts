// The points calculator on its own (src/domain/earning/calculator.ts): no database, no HTTP.
// Each expected value is worked out by hand from the rules in the calculator's comment:
//   total = base × tier × (1 + Σ(booster − 1)), floored once; the breakdown is the floored
//   running sums' differences.
import { describe, expect, it } from 'vitest';
import { type Cart, calculatePoints, type EarningProgram, type EarningProgramRule } from '../../src/domain/earning/calculator.js';

const NOW = new Date('2026-06-15T12:00:00.000Z');
const HOUR = 3_600_000;

const rule = (id: string, earningRule: unknown, conditions: unknown = null): EarningProgramRule => ({
  id,
  name: `Rule ${id}`,
  campaignType: 'purchase',
  earningRule,
  conditions,
});
const perAmount = (value: number, per_amount: number) => ({ type: 'variable', value, per_amount });
const fixed = (value: number) => ({ type: 'fixed', value });

/** A breakdown entry of one of the rules above. */
const fromRule = (id: string, points: number) => ({ source: 'earning_rule', id, name: `Rule ${id}`, points });

const program = (over: Partial<EarningProgram> = {}): EarningProgram => ({
  earningRules: [],
  tierMultiplier: 1,
  tierId: null,
  boosters: [],
  usage: {},
  ...over,
});
const points = (p: EarningProgram, cart: Cart, now = NOW) => calculatePoints(p, cart, now).points;

describe('per-amount rules round down', () => {
  it('earns whole points per whole per_amount', () => {
    const p = program({ earningRules: [rule('a', perAmount(1, 1))] });
    expect(calculatePoints(p, { subtotal: 10.99 }, NOW)).toEqual({
      points: 10,
      base_points: 10,
      bonus_points: 0,
      breakdown: [fromRule('a', 10)],
    });
    expect(points(p, { subtotal: 0.99 })).toBe(0);
  });

  it('multiplies whole per_amounts by the value: 2 per $10 on $99.99 is 9 × 2', () => {
    expect(points(program({ earningRules: [rule('a', perAmount(2, 10))] }), { subtotal: 99.99 })).toBe(18);
  });

  it('trims float noise before flooring: 1.15 × 100 earns 115, not 114', () => {
    // 100 × 1.15 is 114.99999999999999 in floating point
    expect(points(program({ earningRules: [rule('a', perAmount(1.15, 1))] }), { subtotal: 100 })).toBe(115);
  });

  it('trims float noise in the per_amount too: $7 at 1 per $0.07 is 100, not 99', () => {
    // 0.07 × 100 is 7.000000000000001, and 700 / 7.000000000000001 is 99.99999999999999
    expect(points(program({ earningRules: [rule('a', perAmount(1, 0.07))] }), { subtotal: 7 })).toBe(100);
  });

  it('counts the subtotal in cents, so $0.29 at 1 per $0.10 is 2', () => {
    expect(points(program({ earningRules: [rule('a', perAmount(1, 0.1))] }), { subtotal: 0.29 })).toBe(2);
  });
});

describe('tier multiplier', () => {
  const rules = [rule('a', perAmount(1, 1))];

  it('multiplies the base and shows the extra as a tier entry', () => {
    const p = program({ earningRules: rules, tierId: 'gold', tierName: 'Gold', tierMultiplier: 1.5 });
    expect(calculatePoints(p, { subtotal: 100 }, NOW)).toEqual({
      points: 150,
      base_points: 100,
      bonus_points: 50,
      breakdown: [fromRule('a', 100), { source: 'tier', id: 'gold', name: 'Gold', points: 50 }],
    });
  });

  it('names an unnamed tier "Tier", and a multiplier below 1 takes points away', () => {
    const p = program({ earningRules: rules, tierId: 't', tierMultiplier: 0.5 });
    const result = calculatePoints(p, { subtotal: 100 }, NOW);
    expect(result).toMatchObject({ points: 50, base_points: 100, bonus_points: -50 });
    expect(result.breakdown[1]).toEqual({ source: 'tier', id: 't', name: 'Tier', points: -50 });
  });

  it('ignores the multiplier without a tier, and adds no entry for a 1× tier', () => {
    expect(points(program({ earningRules: rules, tierMultiplier: 3 }), { subtotal: 100 })).toBe(100);
    const plain = calculatePoints(program({ earningRules: rules, tierId: 't', tierMultiplier: 1 }), { subtotal: 100 }, NOW);
    expect(plain.breakdown.map((e) => e.source)).toEqual(['earning_rule']);
  });
});

describe('boosters', () => {
  const rules = [rule('a', perAmount(1, 1))];
  const booster = (id: string, multiplier: number, window: { startsAt?: Date; endsAt?: Date } = {}) => ({
    id,
    name: `Booster ${id}`,
    multiplier,
    ...window,
  });

  it('adds (multiplier − 1) × the tiered base: two 2× boosters on a 1.5× tier make 100 → 450', () => {
    const p = program({
      earningRules: rules,
      tierId: 'gold',
      tierName: 'Gold',
      tierMultiplier: 1.5,
      boosters: [booster('x', 2), booster('y', 2)],
    });
    expect(calculatePoints(p, { subtotal: 100 }, NOW)).toEqual({
      points: 450,
      base_points: 100,
      bonus_points: 350,
      breakdown: [
        fromRule('a', 100),
        { source: 'tier', id: 'gold', name: 'Gold', points: 50 },
        { source: 'booster', id: 'x', name: 'Booster x', points: 150 },
        { source: 'booster', id: 'y', name: 'Booster y', points: 150 },
      ],
    });
  });

  it('skips boosters outside their window at `now` and 1× boosters', () => {
    const p = program({
      earningRules: rules,
      boosters: [
        booster('later', 2, { startsAt: new Date(NOW.getTime() + HOUR) }),
        booster('over', 2, { endsAt: NOW }),
        booster('flat', 1),
        booster('on', 3, { startsAt: new Date(NOW.getTime() - HOUR), endsAt: new Date(NOW.getTime() + HOUR) }),
      ],
    });
    const result = calculatePoints(p, { subtotal: 10 }, NOW);
    expect(result.points).toBe(30);
    expect(result.breakdown.map((e) => e.id)).toEqual(['a', 'on']);
  });

  it('boosts nothing when the rules earn nothing', () => {
    const p = program({ earningRules: rules, tierId: 'gold', tierMultiplier: 2, boosters: [booster('x', 5)] });
    expect(calculatePoints(p, { subtotal: 0.5 }, NOW)).toEqual({ points: 0, base_points: 0, bonus_points: 0, breakdown: [] });
  });
});

describe('conditions', () => {
  it('min_order_subtotal: the whole subtotal must reach it, compared in cents', () => {
    const p = program({ earningRules: [rule('big', fixed(50), { min_order_subtotal: 200 })] });
    expect(points(p, { subtotal: 199.99 })).toBe(0);
    expect(points(p, { subtotal: 200 })).toBe(50);
  });

  it('max_points_per_order caps one rule, before the multipliers', () => {
    const p = program({
      earningRules: [rule('a', perAmount(1, 1), { max_points_per_order: 30 }), rule('b', fixed(5))],
      tierId: 't',
      tierMultiplier: 2,
    });
    // (30 + 5) × 2
    expect(calculatePoints(p, { subtotal: 100 }, NOW)).toMatchObject({ points: 70, base_points: 35, bonus_points: 35 });
  });

  // 2 shoes at $49.99 and a hat at $145.52
  const cart: Cart = {
    subtotal: 245.5,
    line_items: [
      { product_id: 'shoe', quantity: 2, price: 49.99 },
      { product_id: 'hat', quantity: 1, price: 145.52 },
    ],
  };

  it('product_ids count only the listed products of the line items', () => {
    const p = program({ earningRules: [rule('shoes', perAmount(2, 10), { product_ids: ['shoe'] })] });
    // 2 × $49.99 = $99.98: 9 whole $10 × 2
    expect(points(p, cart)).toBe(18);
    // without line items nothing is known to be a listed product
    expect(points(p, { subtotal: 245.5 })).toBe(0);
    expect(points(p, { subtotal: 245.5, line_items: [{ product_id: 'hat', quantity: 1, price: 245.5 }] })).toBe(0);
  });

  it('excluded_product_ids leave out those line items; without line items the subtotal counts', () => {
    const p = program({ earningRules: [rule('a', perAmount(1, 1), { excluded_product_ids: ['hat'] })] });
    expect(points(p, cart)).toBe(99);
    expect(points(p, { subtotal: 245.5 })).toBe(245);
    expect(points(p, { subtotal: 20, line_items: [{ product_id: 'hat', quantity: 1, price: 20 }] })).toBe(0);
  });

  it('tier_ids, starts_at and ends_at decide whether a rule applies', () => {
    const gold = '00000000-0000-4000-8000-000000000001';
    const tiered = program({ earningRules: [rule('a', fixed(10), { tier_ids: [gold] })] });
    expect(points(tiered, { subtotal: 1 })).toBe(0);
    expect(points({ ...tiered, tierId: gold }, { subtotal: 1 })).toBe(10);

    const window = program({
      earningRules: [rule('a', fixed(10), { starts_at: '2026-06-15T12:00:00Z', ends_at: '2026-06-16T00:00:00Z' })],
    });
    expect(points(window, { subtotal: 1 }, new Date(NOW.getTime() - 1))).toBe(0);
    expect(points(window, { subtotal: 1 }, NOW)).toBe(10);
    expect(points(window, { subtotal: 1 }, new Date('2026-06-16T00:00:00Z'))).toBe(0);
  });

  it('a used-up limit pays nothing: the rule own limit, else its campaign type default', () => {
    const limited = program({ earningRules: [rule('a', fixed(10), { limit: { count: 2, period: 'day' } })] });
    expect(points({ ...limited, usage: { a: 1 } }, { subtotal: 1 })).toBe(10);
    expect(points({ ...limited, usage: { a: 2 } }, { subtotal: 1 })).toBe(0);

    const signup = program({ earningRules: [{ ...rule('s', fixed(100)), campaignType: 'signup' }] });
    expect(points(signup, { subtotal: 0 })).toBe(100);
    expect(points({ ...signup, usage: { s: 1 } }, { subtotal: 0 })).toBe(0);
  });

  it('a rule whose stored JSON does not parse pays nothing', () => {
    const p = program({
      earningRules: [
        rule('bad-rule', { type: 'variable', value: 1 }),
        rule('bad-conditions', fixed(10), { min_order_subtotal: 'lots' }),
        rule('good', fixed(3)),
      ],
    });
    expect(calculatePoints(p, { subtotal: 100 }, NOW).breakdown.map((e) => e.id)).toEqual(['good']);
  });
});

describe('the breakdown', () => {
  it('is the floored running sums: fractional rules add up to the floored total', () => {
    // each rule earns 0.5 × 3 = 1.5; running sums 1.5 → 1 and 3 → 3
    const p = program({ earningRules: [rule('a', perAmount(0.5, 1)), rule('b', perAmount(0.5, 1))] });
    expect(calculatePoints(p, { subtotal: 3 }, NOW)).toEqual({
      points: 3,
      base_points: 3,
      bonus_points: 0,
      breakdown: [fromRule('a', 1), fromRule('b', 2)],
    });
  });

  it('floors once at the end: base 1.5 on a 1.5× tier is 2.25 → 2, base 1 and bonus 1', () => {
    const p = program({ earningRules: [rule('a', perAmount(0.5, 1))], tierId: 't', tierName: 'T', tierMultiplier: 1.5 });
    expect(calculatePoints(p, { subtotal: 3 }, NOW)).toEqual({
      points: 2,
      base_points: 1,
      bonus_points: 1,
      breakdown: [fromRule('a', 1), { source: 'tier', id: 't', name: 'T', points: 1 }],
    });
  });

  it('refuses a total beyond the maximum balance with a validation error on subtotal', () => {
    const p = program({ earningRules: [rule('absurd', perAmount(1_000_000, 0.01))] });
    const refused = (() => {
      try {
        calculatePoints(p, { subtotal: 999_999_999 }, NOW);
      } catch (err) {
        return err;
      }
    })();
    expect(refused).toMatchObject({ code: 'validation_error', details: { subtotal: [expect.stringContaining('maximum')] } });
  });
});
