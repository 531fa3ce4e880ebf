// A realistic demo program for `loyalty seed` and the first embedded start. The same for a
// given `now`: dates are relative to it so one booster is always running and one upcoming.
// No fixed ids: ids are global keys, and the demo must load into any number of merchants.
import type { ProgramFile } from '../../domain/program-import/program-import.js';
import { DAY_MS } from '../../domain/shared/limits.js';

export function demoProgram(now: Date = new Date()): ProgramFile {
  // whole minutes, so two calls in the same minute give the same file
  const base = Math.floor(now.getTime() / 60_000) * 60_000;
  const at = (days: number) => new Date(base + days * DAY_MS).toISOString();

  // first name, last name, opening balance, birthday
  const people: [string, string, number, string?][] = [
    ['Ava', 'Martin', 6_450, '1990-04-12'],
    ['Noah', 'Okafor', 1_820, '1985-11-03'],
    ['Mia', 'Tanaka', 250],
    ['Liam', 'Rossi', 12_300, '1978-02-28'],
    ['Zoe', 'Dubois', 0],
    ['Ethan', 'Nguyen', 540, '2000-07-19'],
    ['Sofia', 'Hernandez', 3_100],
    ['Lucas', 'Schmidt', 75, '1995-12-24'],
    ['Chloe', 'Kowalski', 980],
    ['Mateo', 'Silva', 22_750, '1982-06-05'],
    ['Isla', 'Murphy', 1_200],
    ['Omar', 'Haddad', 0, '1998-09-30'],
  ];
  // the last one checked out as a guest: kept, but outside the tiers
  const guest = people.length - 1;
  const customers = people.map(([first, last, points, birthday], i) => ({
    customer_id: `demo-${String(1001 + i)}`,
    email: `${first.toLowerCase()}.${last.toLowerCase()}@example.com`,
    first_name: first,
    status: i === guest ? ('guest' as const) : ('member' as const),
    last_name: last,
    ...(birthday && { birthday }),
    referral_code: `${first}${last}`.toUpperCase().slice(0, 8),
    points_balance: points,
    created_at: at(-400 + i * 30),
  }));

  return {
    customers,
    rewards: [
      {
        name: '$5 off your order',
        description: 'A $5 discount code for your next order.',
        reward_type: 'fixed_discount',
        points_cost: 500,
        reward_rule: { discount_value: 5, expires_after_days: 90 },
        created_at: at(-180),
      },
      {
        name: '$15 off orders over $75',
        description: 'A $15 discount on orders of $75 or more.',
        reward_type: 'fixed_discount',
        points_cost: 1_250,
        reward_rule: { discount_value: 15, min_order_subtotal: 75, expires_after_days: 90 },
        created_at: at(-170),
      },
      {
        name: '10% off',
        description: '10% off your order, up to $30.',
        reward_type: 'percentage_discount',
        points_cost: 1_000,
        reward_rule: { discount_value: 10, max_discount_amount: 30, expires_after_days: 60 },
        created_at: at(-160),
      },
      {
        name: 'Free shipping',
        description: 'Free standard shipping on your next order.',
        reward_type: 'free_shipping',
        points_cost: 400,
        reward_rule: { max_shipping_amount: 12, expires_after_days: 30 },
        created_at: at(-150),
      },
      {
        name: 'Free canvas tote',
        description: 'Our natural canvas tote bag, on us.',
        reward_type: 'free_product',
        points_cost: 2_000,
        reward_rule: { product_id: 'prod-canvas-tote', variant_id: 'var-canvas-tote-natural', min_order_subtotal: 20 },
        created_at: at(-140),
      },
      {
        name: '$25 store credit',
        description: 'Store credit for anything in the shop.',
        reward_type: 'store_credit',
        points_cost: 2_500,
        reward_rule: { credit_value: 25 },
        created_at: at(-130),
      },
    ],
    earning_rules: [
      {
        name: 'Earn on every purchase',
        description: '5 points for every $1 spent.',
        campaign_type: 'purchase',
        earning_rule: { type: 'variable', value: 5, per_amount: 1 },
        conditions: { min_order_subtotal: 10, max_points_per_order: 5_000, excluded_product_ids: ['gift-card'] },
        created_at: at(-200),
      },
      {
        name: 'Big basket bonus',
        description: '250 bonus points on orders of $150 or more.',
        campaign_type: 'purchase',
        earning_rule: { type: 'fixed', value: 250 },
        conditions: { min_order_subtotal: 150, limit: { count: 2, period: 'month' } },
        created_at: at(-195),
      },
      {
        name: 'Join the club',
        description: 'Points for creating an account.',
        campaign_type: 'signup',
        earning_rule: { type: 'fixed', value: 200 },
        conditions: { limit: { count: 1, period: 'lifetime' } },
        created_at: at(-190),
      },
      {
        name: 'Write a review',
        description: 'Tell others what you think of a product.',
        campaign_type: 'review',
        earning_rule: { type: 'fixed', value: 50 },
        conditions: { limit: { count: 5, period: 'month' } },
        created_at: at(-185),
      },
      {
        name: 'Birthday treat',
        description: 'A gift of points on your birthday.',
        campaign_type: 'birthday',
        earning_rule: { type: 'fixed', value: 300 },
        conditions: { limit: { count: 1, period: 'year' } },
        created_at: at(-180),
      },
      {
        name: 'Subscribe to the newsletter',
        campaign_type: 'newsletter_subscribe',
        earning_rule: { type: 'fixed', value: 100 },
        conditions: { limit: { count: 1, period: 'lifetime' } },
        created_at: at(-175),
      },
      {
        name: 'Follow us on Instagram',
        campaign_type: 'instagram_follow',
        earning_rule: { type: 'fixed', value: 50 },
        conditions: { limit: { count: 1, period: 'lifetime' } },
        created_at: at(-170),
      },
      {
        name: 'Share on Facebook',
        description: 'Share the shop with your friends.',
        campaign_type: 'facebook_share',
        earning_rule: { type: 'fixed', value: 25 },
        conditions: { limit: { count: 1, period: 'week' } },
        created_at: at(-165),
      },
    ],
    tiers: [
      {
        name: 'Bronze',
        description: 'Where everyone starts.',
        position: 1,
        threshold: 0,
        earn_multiplier: 1,
        benefits: ['Earn 5 points per $1', 'Birthday points'],
        is_default: true,
      },
      {
        name: 'Silver',
        description: 'For regulars: 1,000 points earned.',
        position: 2,
        threshold: 1_000,
        earn_multiplier: 1.25,
        benefits: ['1.25x points on every purchase', 'Early access to sales'],
      },
      {
        name: 'Gold',
        description: 'For our best customers: 5,000 points earned.',
        position: 3,
        threshold: 5_000,
        earn_multiplier: 1.5,
        benefits: ['1.5x points on every purchase', 'Free shipping on every order', 'Early access to sales'],
      },
      {
        name: 'Platinum',
        description: '20,000 points earned in the calendar year.',
        position: 4,
        threshold: 20_000,
        window: 'calendar_year',
        earn_multiplier: 2,
        benefits: ['2x points on every purchase', 'Free express shipping', 'A gift with every season'],
      },
    ],
    booster_campaigns: [
      {
        name: 'Double points fortnight',
        description: 'Twice the points on every purchase for two weeks.',
        multiplier: 2,
        campaign_types: ['purchase'],
        starts_at: at(-3),
        ends_at: at(11),
      },
      {
        name: 'Review week',
        description: 'Triple points for reviews and shares.',
        multiplier: 3,
        campaign_types: ['review', 'facebook_share'],
        starts_at: at(30),
        ends_at: at(37),
      },
    ],
    referral_program: {
      is_active: true,
      referrer_reward: { points: 500 },
      referee_reward: { reward_type: 'fixed_discount', reward_rule: { discount_value: 10, min_order_subtotal: 40 } },
      min_order_subtotal: 40,
      share_url_template: 'https://shop.example.com/?ref={referral_code}',
    },
  };
}
