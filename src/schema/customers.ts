// Customers: GET /customers/balance (more in the endpoints issue).
import { type Balance, balanceOf } from '../domain/balances.js';
import { findCustomer } from '../domain/customers.js';
import { builder } from './builder.js';
import { resultOf } from './pagination.js';

/** `customer_id` (platform id) or `email`: how public endpoints name one customer. */
export const customerRefArgs = builder.args((t) => ({
  customer_id: t.string({ description: "The customer's id on the e-commerce platform" }),
  email: t.string({ description: "The customer's email (when customer_id is not given)" }),
}));

const NextExpiry = builder.objectRef<NonNullable<Balance['next_expiry']>>('PointsExpiry').implement({
  fields: (t) => ({
    points: t.exposeInt('points'),
    expires_at: t.expose('expires_at', { type: 'DateTime' }),
  }),
});

const BalanceRef = builder.objectRef<Balance>('Balance').implement({
  fields: (t) => ({
    customer_id: t.exposeID('customer_id', { description: 'Internal id (uuid) of the customer' }),
    points_balance: t.exposeInt('points_balance'),
    points_earned: t.exposeInt('points_earned'),
    points_spent: t.exposeInt('points_spent'),
    points_pending: t.exposeInt('points_pending'),
    next_expiry: t.expose('next_expiry', { type: NextExpiry, nullable: true }),
  }),
});

builder.queryFields((t) => ({
  customer_balance: t.field({
    type: resultOf('Balance', BalanceRef),
    description: "A customer's points balance. REST: GET /v1/customers/balance",
    authScopes: { scope: 'read:customers' },
    args: customerRefArgs,
    resolve: async (_root, args, ctx) => {
      const customer = await findCustomer(ctx.db, ctx.principal.merchantId, args);
      return { data: await balanceOf(ctx.db, customer) };
    },
  }),
}));
