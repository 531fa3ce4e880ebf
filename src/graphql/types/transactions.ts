// Points transactions: GET and POST /customers/transactions (spec 2.3, 4.2).
import { z } from 'zod';
import { findCustomer } from '../../domain/customers/customers.js';
import { applyPoints } from '../../domain/ledger/ledger.js';
import { listTransactions } from '../../domain/ledger/points-history.js';
import { parseInput } from '../../domain/shared/validation.js';
import { builder } from '../builder.js';
import { customerRefArgs } from './customers.js';
import { TransactionSourceEnum, TransactionTypeEnum } from '../enums.js';
import { listOf, pageArgs, resultOf } from '../envelopes.js';

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

const adjustmentInput = z.object({
  points: z.number().int().refine((n) => n !== 0, 'must not be zero'),
  description: z.string().trim().min(1, 'is required').max(500, 'must be at most 500 characters'),
});

builder.mutationFields((t) => ({
  create_customer_transaction: t.field({
    subGraphs: ['public'],
    type: resultOf('PointsAdjustment', AdjustmentRef),
    description:
      "Credits (points > 0) or debits (points < 0) a customer's balance. A debit that would make the balance negative fails with adjustment_failed. REST: POST /v1/customers/transactions?customer_id=",
    authScopes: { scope: 'write:transactions' },
    args: {
      customer_id: t.arg.string({ required: true, description: "The customer's id on the e-commerce platform" }),
      points: t.arg.int({ required: true }),
      description: t.arg.string({ required: true, description: "Reason, shown in the customer's activity log" }),
    },
    resolve: async (_root, args, ctx) => {
      const input = parseInput(adjustmentInput, args);
      const { merchantId } = ctx;
      const customer = await findCustomer(ctx.db, merchantId, { customer_id: args.customer_id });
      const result = await applyPoints(ctx.db, {
        merchantId,
        customerId: customer.id,
        points: input.points,
        description: input.description,
        source: 'manual',
        activityType: 'adjustment',
      });
      return {
        data: {
          transaction_id: result.transactionId,
          customer_id: customer.id,
          points: input.points,
          type: result.type,
        },
      };
    },
  }),
}));

const PointsTransactionRef = builder.prismaObject('PointsTransaction', {
  subGraphs: ['public'],
  description: 'A row of the points ledger: the 2.3 fields and where the points came from',
  fields: (t) => ({
    transaction_id: t.exposeID('id'),
    customer_id: t.exposeID('customerId', { description: 'Internal id (uuid) of the customer' }),
    points: t.exposeInt('points', { description: 'Positive for a credit, negative for a debit' }),
    type: t.expose('type', { type: TransactionTypeEnum }),
    description: t.exposeString('description'),
    source: t.expose('source', { type: TransactionSourceEnum }),
    balance_after: t.exposeInt('balanceAfter'),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  customer_transactions: t.field({
    subGraphs: ['public'],
    type: listOf('PointsTransaction', PointsTransactionRef),
    description: "A customer's points transaction history, newest first. REST: GET /v1/customers/transactions",
    authScopes: { scope: 'read:transactions' },
    args: { ...customerRefArgs, ...pageArgs },
    resolve: async (_root, args, ctx) => {
      const customer = await findCustomer(ctx.db, ctx.merchantId, args);
      return listTransactions(ctx.db, ctx.merchantId, customer.id, args);
    },
  }),
}));
