// Engine events: what happens on the e-commerce platform (orders, refunds, other actions,
// referrals), recorded by the merchant's integration. Each is idempotent on its event id
// (orders also on their order id): a replay answers the first result with replayed: true.
import { type ActivityResult, recordActivity } from '../../domain/events/activities.js';
import { type OrderResult, type RefundResult, recordOrder, refundOrder } from '../../domain/events/orders.js';
import { type ReferralResult, recordReferral } from '../../domain/referrals/referrals.js';
import { builder } from '../builder.js';
import { CampaignTypeEnum, ReferralStatusEnum } from '../enums.js';
import { provided } from '../envelopes.js';
import { LineItemInput } from './estimate.js';
import { ReferralSignalRef } from './referrals.js';

const OrderResultRef = builder.objectRef<OrderResult>('OrderResult').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    order_id: t.exposeString('order_id'),
    customer_id: t.exposeString('customer_id', { description: "The customer's platform id" }),
    points_awarded: t.exposeInt('points_awarded'),
    points_pending: t.exposeInt('points_pending', {
      description: "Points held pending the merchant's points_pending_days (credited when approved); 0 otherwise",
    }),
    transaction_id: t.exposeID('transaction_id', {
      nullable: true,
      description: 'The ledger credit; null when nothing was earned or the points are pending',
    }),
    replayed: t.exposeBoolean('replayed', { description: 'True when this order was already recorded: nothing changed' }),
  }),
});

const RefundResultRef = builder.objectRef<RefundResult>('RefundResult').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    order_id: t.exposeString('order_id'),
    customer_id: t.exposeString('customer_id'),
    refunded_amount: t.exposeFloat('refunded_amount'),
    points_to_claw_back: t.exposeInt('points_to_claw_back', { description: 'Points this refund owes back' }),
    points_clawed_back: t.exposeInt('points_clawed_back', { description: 'Points debited (never more than the balance)' }),
    points_voided: t.exposeInt('points_voided', { description: 'Pending points voided instead of clawed back' }),
    shortfall: t.exposeInt('shortfall', { description: 'Owed but not debited: the balance was too low' }),
    transaction_id: t.exposeID('transaction_id', { nullable: true }),
    fully_refunded: t.exposeBoolean('fully_refunded'),
    referrer_points_clawed_back: t.exposeInt('referrer_points_clawed_back', {
      description: 'Points taken back from the referrer when this order completed a referral and no longer qualifies',
    }),
    replayed: t.exposeBoolean('replayed'),
  }),
});

const ActivityResultRef = builder.objectRef<ActivityResult>('ActivityResult').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    event_id: t.exposeString('event_id'),
    customer_id: t.exposeString('customer_id'),
    campaign_type: t.expose('campaign_type', { type: CampaignTypeEnum }),
    points_awarded: t.exposeInt('points_awarded', { description: '0 when no active rule pays or a limit is reached' }),
    transaction_id: t.exposeID('transaction_id', { nullable: true }),
    replayed: t.exposeBoolean('replayed'),
  }),
});

const ReferralResultRef = builder.objectRef<ReferralResult>('ReferralResult').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    id: t.exposeID('id'),
    referrer_customer_id: t.exposeString('referrer_customer_id'),
    referee_email: t.exposeString('referee_email'),
    referee_customer_id: t.exposeString('referee_customer_id', { nullable: true }),
    status: t.expose('status', { type: ReferralStatusEnum }),
    referrer_points: t.exposeInt('referrer_points', { nullable: true }),
    order_id: t.exposeString('order_id', { nullable: true }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    completed_at: t.expose('completed_at', { type: 'DateTime', nullable: true }),
    signals: t.field({
      type: [ReferralSignalRef],
      description: 'The fraud signals that held it (status held: under review); [] when none',
      resolve: (r) => r.signals,
    }),
    replayed: t.exposeBoolean('replayed'),
  }),
});

/** The identifiers the referral fraud checks compare (docs/admin.md), of `whose`. */
function identifierArgs(t: PothosSchemaTypes.InputFieldBuilder<typeof builder.$inferSchemaTypes, 'InputObject'>, whose: string) {
  return {
    client_ip: t.string({ description: `IP address of ${whose}` }),
    device_id: t.string({ description: `Device identifier of ${whose} (a cookie or fingerprint the platform keeps)` }),
    payment_fingerprint: t.string({ description: `Fingerprint of the payment method of ${whose}, as the payment provider gives it` }),
    shipping_address_hash: t.string({ description: `Hash of the normalised shipping address of ${whose}` }),
  };
}

const OrderEventInput = builder.inputType('OrderEventInput', {
  subGraphs: ['admin'],
  fields: (t) => ({
    event_id: t.string({ description: "The platform's event id (idempotency key)" }),
    order_id: t.string({ required: true, description: "The platform's order id; an order is recorded once" }),
    customer_id: t.string({ required: true, description: "The customer's platform id" }),
    subtotal: t.float({ required: true }),
    currency: t.string({ description: 'Must be the shop currency when given' }),
    line_items: t.field({ type: [LineItemInput] }),
    created_at: t.field({
      type: 'DateTime',
      description:
        "When the order was placed (default now): it earns as it would have then. Up to 5 minutes ahead is taken as now; further ahead, or longer ago than the merchant's late_earning_days, is validation_error",
    }),
    ...identifierArgs(t, 'the buyer'),
  }),
});

const RefundEventInput = builder.inputType('RefundEventInput', {
  subGraphs: ['admin'],
  fields: (t) => ({
    event_id: t.string(),
    order_id: t.string({ required: true }),
    amount: t.float({ description: 'The refunded amount; omitted: the whole order' }),
  }),
});

const ActivityEventInput = builder.inputType('ActivityEventInput', {
  subGraphs: ['admin'],
  fields: (t) => ({
    event_id: t.string({ required: true }),
    customer_id: t.string({ required: true }),
    campaign_type: t.field({ type: CampaignTypeEnum, required: true, description: 'Any type but purchase (orders)' }),
    occurred_at: t.field({
      type: 'DateTime',
      description: 'When it happened (default now), judged as created_at of an order is',
    }),
  }),
});

const ReferralEventInput = builder.inputType('ReferralEventInput', {
  subGraphs: ['admin'],
  fields: (t) => ({
    referrer_code: t.string({ required: true, description: "The referrer's referral_code" }),
    referee_email: t.string({ required: true }),
    ...identifierArgs(t, 'the friend taking up the referral'),
  }),
});

builder.mutationFields((t) => ({
  record_order: t.field({
    subGraphs: ['admin'],
    type: OrderResultRef,
    description: 'Awards the points of an order (purchase rules, tier multiplier, boosters) and may complete a referral',
    args: { input: t.arg({ type: OrderEventInput, required: true }) },
    resolve: (_root, args, ctx) => {
      const input = provided(args.input);
      return recordOrder(ctx.db, ctx.merchantId, {
        ...input,
        ...(input.line_items && { line_items: input.line_items.map(provided) }),
      });
    },
  }),
  refund_order: t.field({
    subGraphs: ['admin'],
    type: RefundResultRef,
    description:
      "Claws back a refunded order's points, proportionally to the amount, never below zero (voids them while still pending); reverses a referral the order no longer qualifies for",
    args: { input: t.arg({ type: RefundEventInput, required: true }) },
    resolve: (_root, args, ctx) => refundOrder(ctx.db, ctx.merchantId, provided(args.input)),
  }),
  record_activity: t.field({
    subGraphs: ['admin'],
    type: ActivityResultRef,
    description: 'Awards the points of a non-purchase action (signup, review, daily visit...) within its limits',
    args: { input: t.arg({ type: ActivityEventInput, required: true }) },
    resolve: (_root, args, ctx) => recordActivity(ctx.db, ctx.merchantId, provided(args.input)),
  }),
  record_referral: t.field({
    subGraphs: ['admin'],
    type: ReferralResultRef,
    description:
      'Registers a pending referral of referee_email by the customer with referrer_code; held (status held, with its signals) when a fraud check flags it',
    args: { input: t.arg({ type: ReferralEventInput, required: true }) },
    resolve: (_root, args, ctx) => recordReferral(ctx.db, ctx.merchantId, provided(args.input)),
  }),
}));
