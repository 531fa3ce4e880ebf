// Points transactions: GET and POST /customers/transactions (spec 2.3, 4.2).
import { visibleCustomer } from '../../domain/access/customer-sessions.js';
import { type CustomerProfile, customerProfile } from '../../domain/customers/customer-records.js';
import { platformIdOf } from '../../domain/customers/customers.js';
import { adjustmentRules, adjustPoints, parseAdjustment } from '../../domain/ledger/adjustments.js';
import { listTransactions, transactionRows } from '../../domain/ledger/points-history.js';
import { lookupRule } from '../../domain/shared/fields.js';
import { builder, forShoppers } from '../builder.js';
import { cachedByCustomer } from '../cached.js';
import { customerIdArgs, customerRefArgs, customerUuid } from '../customer-args.js';
import { scrollableLinks } from '../customer-links.js';
import { TransactionSourceEnum, TransactionTypeEnum } from '../enums.js';
import { listOf, pageArgs, resultOf } from '../envelopes.js';
import { ruled } from '../rules.js';
import { CustomerRef } from './customers.js';

interface Adjustment {
  transaction_id: string;
  customer_id: string;
  points: number;
  type: 'credit' | 'debit';
}

const AdjustmentRef = builder.objectRef<Adjustment>('PointsAdjustment').implement({
  subGraphs: ['public'],
  description: 'The transaction created by a manual credit or debit',
  fields: (t) => ({
    transaction_id: t.exposeID('transaction_id'),
    customer_id: t.exposeID('customer_id', { description: 'Internal id (uuid) of the customer' }),
    points: t.exposeInt('points', { description: 'Positive for a credit, negative for a debit' }),
    type: t.expose('type', { type: TransactionTypeEnum }),
  }),
});

builder.mutationFields((t) => ({
  create_customer_transaction: t.field({
    subGraphs: ['public'],
    type: resultOf('PointsAdjustment', AdjustmentRef),
    description:
      "Credits (points > 0) or debits (points < 0) a customer's balance. A debit that would make the balance negative fails with adjustment_failed. REST: POST /v1/customers/transactions?customer_id=",
    authScopes: { scope: 'write:transactions' },
    args: {
      customer_id: t.arg.string({ required: true, ...ruled(lookupRule, "The customer's id on the e-commerce platform") }),
      points: t.arg.int({ required: true, ...ruled(adjustmentRules.points, 'Positive credits, negative debits') }),
      description: t.arg.string({ required: true, ...ruled(adjustmentRules.description, "Reason, shown in the customer's activity log") }),
    },
    resolve: async (_root, args, ctx) => {
      const input = parseAdjustment(args);
      // one statement finds the customer and moves its points (404 if unknown)
      const result = await adjustPoints(ctx.db, ctx.merchantId, { platformId: platformIdOf(args) }, input);
      return {
        data: {
          transaction_id: result.transactionId,
          customer_id: result.customerId,
          points: input.points,
          type: result.type,
        },
      };
    },
  }),
}));

const PointsTransactionRef = builder.prismaObject('PointsTransaction', {
  subGraphs: ['public', 'admin'],
  description: 'A row of the points ledger: the 2.3 fields and where the points came from',
  fields: (t) => ({
    transaction_id: t.exposeID('id'),
    customer_id: t.exposeID('customerId', { description: 'Internal id (uuid) of the customer' }),
    points: t.exposeInt('points', { description: 'Positive for a credit, negative for a debit' }),
    type: t.expose('type', { type: TransactionTypeEnum }),
    description: t.exposeString('description'),
    source: t.expose('source', { type: TransactionSourceEnum }),
    balance_after: t.exposeInt('balanceAfter'),
    placed_at: t.expose('placedAt', {
      type: 'DateTime',
      description: 'When what moved the points happened (an order placed, an action): created_at unless it was recorded late',
    }),
    created_at: t.expose('createdAt', { type: 'DateTime', description: 'When the ledger recorded it' }),
  }),
});

// the list type is declared where the public schema always declared it (its order is the REST contract's)
builder.queryFields((t) => {
  const PointsTransactionList = listOf('PointsTransaction', PointsTransactionRef);
  return {
    customer_transactions: t.field({
      subGraphs: ['public'],
      ...cachedByCustomer,
      ...forShoppers,
      type: PointsTransactionList,
      description: "A customer's points transaction history, newest first. REST: GET /v1/customers/transactions",
      authScopes: { scope: 'read:transactions' },
      args: { ...customerRefArgs, ...pageArgs },
      resolve: async (_root, args, ctx) => {
        const customer = await visibleCustomer(ctx.db, ctx, args);
        return listTransactions(ctx.db, ctx.merchantId, customer.id, args);
      },
    }),
    admin_customer_transactions: t.field({
      subGraphs: ['admin'],
      type: PointsTransactionList,
      description: "A customer's points transactions, newest first",
      args: { ...customerIdArgs, ...pageArgs },
      resolve: async (_root, args, ctx) => listTransactions(ctx.db, ctx.merchantId, await customerUuid(ctx, args), args),
    }),
  };
});

builder.objectFields(CustomerRef, (t) =>
  scrollableLinks(t, {
    name: 'transactions',
    typeName: 'PointsTransaction',
    item: PointsTransactionRef,
    scope: 'read:transactions',
    what: 'The points transaction history',
    twin: 'GET /v1/customers/transactions',
    rows: transactionRows,
  }),
);

// ---- admin: the customer page's manual adjustment ----

const ManualAdjustmentRef = builder
  .objectRef<{ transaction_id: string; balance_after: number; customer: CustomerProfile }>('ManualAdjustment')
  .implement({
    subGraphs: ['admin'],
    description: 'A manual credit or debit and the customer after it',
    fields: (t) => ({
      transaction_id: t.exposeID('transaction_id'),
      balance_after: t.exposeInt('balance_after'),
      customer: t.expose('customer', { type: CustomerRef }),
    }),
  });

builder.mutationFields((t) => ({
  adjust_points: t.field({
    subGraphs: ['admin'],
    type: ManualAdjustmentRef,
    description:
      "Credits (points > 0) or debits (points < 0) a customer's balance with a reason shown in its activity log; " +
      'a debit below zero is adjustment_failed. Send an Idempotency-Key so that a retry (or a double click) moves points once.',
    args: {
      ...customerIdArgs,
      points: t.arg.int({ required: true, ...ruled(adjustmentRules.points, 'Positive credits, negative debits') }),
      description: t.arg.string({
        required: true,
        ...ruled(adjustmentRules.description, "The reason, shown in the customer's activity log"),
      }),
    },
    resolve: async (_root, args, ctx) => {
      const input = parseAdjustment(args);
      const customerId = await customerUuid(ctx, args);
      const result = await adjustPoints(ctx.db, ctx.merchantId, { customerId }, input);
      return {
        transaction_id: result.transactionId,
        balance_after: result.balanceAfter,
        customer: await customerProfile(ctx.db, ctx.merchantId, customerId),
      };
    },
  }),
}));
