// VIP tiers. Public: GET /tiers, GET /customers/tiers, GET /customers/memberships. Admin: all
// of them by position, create, update. An active tier applies from its threshold (and the default
// tier to everyone below the first threshold); an inactive one is skipped by evaluation and left
// out of GET /tiers, so `is_active` is an admin field.
import { visibleCustomer } from '../../domain/access/customer-sessions.js';
import {
  type CustomerTierStatus,
  customerTierStatus,
  listMemberships,
  membershipRows,
  tierStatusPart,
} from '../../domain/tiers/standing.js';
import { createTier, listTiers, updateTier } from '../../domain/tiers/tiers.js';
import { builder, type Context, forGuests, forShoppers } from '../builder.js';
import { cachedByCustomer, cachedByProgram, changesAt } from '../cached.js';
import { customerIdArgs, customerRefArgs, customerUuid } from '../customer-args.js';
import { connectionLink, customerLink, pageLink } from '../customer-links.js';
import { programOf } from '../customer-plan.js';
import { MembershipSourceEnum, MembershipStatusEnum, TierQualificationEnum, TierWindowEnum } from '../enums.js';
import { listOf, pageArgs, provided, resultOf } from '../envelopes.js';
import { link } from '../links.js';
import { CustomerRef } from './customers.js';

const TierRef = builder.prismaObject('Tier', {
  subGraphs: ['public', 'admin'],
  description: 'A VIP tier, judged on points earned or amount spent in its window, never on the spendable balance',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    position: t.exposeInt('position', { description: 'Rank on the ladder; higher is better' }),
    threshold: t.exposeInt('threshold', { description: 'Points earned, or amount spent, needed in the window' }),
    qualification: t.expose('qualification', { type: TierQualificationEnum }),
    window: t.expose('window', { type: TierWindowEnum }),
    earn_multiplier: t.float({ resolve: (tier) => Number(tier.earnMultiplier) }),
    benefits: t.exposeStringList('benefits'),
    is_default: t.exposeBoolean('isDefault'),
    is_active: t.exposeBoolean('isActive', {
      subGraphs: ['admin'],
      description: 'An inactive tier is skipped by evaluation and not listed by the public API',
    }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { subGraphs: ['admin'], type: 'DateTime' }),
  }),
});

const TierProgressRef = builder.objectRef<CustomerTierStatus['progress']>('TierProgress').implement({
  subGraphs: ['public', 'admin'],
  description: 'How far the customer is from the next tier, in that tier’s metric and window',
  fields: (t) => ({
    metric: t.expose('metric', { type: TierQualificationEnum }),
    value: t.exposeFloat('value', { description: 'Points earned or amount spent in the window' }),
    next_threshold: t.exposeInt('next_threshold', { nullable: true, description: 'Null at the top tier' }),
    remaining: t.exposeFloat('remaining', { nullable: true, description: 'Null at the top tier' }),
  }),
});

const CustomerTierStatusRef = builder.objectRef<CustomerTierStatus>('CustomerTierStatus').implement({
  subGraphs: ['public', 'admin'],
  fields: (t) => ({
    current_tier: t.expose('current_tier', { type: TierRef, nullable: true }),
    next_tier: t.expose('next_tier', { type: TierRef, nullable: true }),
    progress: t.expose('progress', { type: TierProgressRef }),
    window: t.expose('window', { type: TierWindowEnum, description: 'The window progress is measured in' }),
    tier_expires_at: t.expose('tier_expires_at', {
      type: 'DateTime',
      nullable: true,
      description: 'When the current tier lapses unless re-earned; null if it does not',
    }),
  }),
});

const MembershipRef = builder.prismaObject('TierMembership', {
  subGraphs: ['public'],
  name: 'Membership',
  description: 'A period the customer held a tier',
  select: { tierId: true, tier: { select: { name: true } } },
  fields: (t) => ({
    id: t.exposeID('id'),
    tier_id: t.exposeID('tierId'),
    tier_name: t.string({ resolve: (m) => m.tier.name }),
    status: t.expose('status', { type: MembershipStatusEnum }),
    source: t.expose('source', { type: MembershipSourceEnum }),
    started_at: t.expose('startedAt', { type: 'DateTime' }),
    ended_at: t.expose('endedAt', { type: 'DateTime', nullable: true }),
    expires_at: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
  }),
});

builder.objectFields(MembershipRef, (t) => ({
  tier: t.field({
    ...link('read:tiers'),
    type: TierRef,
    description: 'The tier held, as GET /v1/tiers lists it',
    // the merchant's ladder (its active tiers), as the instance caches it
    resolve: async (membership, _args, ctx) => (await programOf(ctx)).tiers.find((tier) => tier.id === membership.tierId) ?? null,
  }),
}));

/** Statuses as read, each change with the clock alone noted for a cached answer. */
function noteChanges(ctx: Context, statuses: CustomerTierStatus[]) {
  for (const status of statuses) changesAt(ctx, status.changes_at);
  return statuses;
}

builder.objectFields(CustomerRef, (t) => ({
  tier_status: t.field({
    ...customerLink('tier_status', {
      scope: 'read:tiers',
      usesProgram: true,
      part: (ctx, _args, { program, now }) => {
        const part = tierStatusPart(ctx.merchantId, program!, now);
        // a cached answer showing the status lasts until the clock alone would change it
        return { ...part, read: (value, customer) => noteChanges(ctx, [part.read(value, customer)])[0]! };
      },
    }),
    type: CustomerTierStatusRef,
    description: 'VIP tier status and progress to the next tier, as GET /v1/customers/tiers',
  }),
  memberships: pageLink(t, {
    name: 'memberships',
    typeName: 'Membership',
    item: MembershipRef,
    scope: 'read:customers',
    description: 'Tier memberships, newest first, as GET /v1/customers/memberships',
    rows: membershipRows,
  }),
  memberships_connection: connectionLink(t, {
    name: 'memberships',
    typeName: 'Membership',
    item: MembershipRef,
    scope: 'read:customers',
    description: 'Tier memberships as a Relay connection, newest first: scroll down with first/after, up with last/before',
    rows: membershipRows,
  }),
}));

const TierInput = builder.inputType('TierInput', {
  subGraphs: ['admin'],
  fields: (t) => ({
    name: t.string({ required: true }),
    description: t.string(),
    position: t.int({ required: true, description: 'Order of the tiers, unique per merchant' }),
    threshold: t.int({ required: true, description: 'Points earned (or amount spent) in the window to reach the tier' }),
    qualification: t.field({ type: TierQualificationEnum, description: 'Default points_earned' }),
    window: t.field({ type: TierWindowEnum, description: 'Default lifetime' }),
    earn_multiplier: t.float({ description: 'Default 1' }),
    benefits: t.stringList(),
    is_default: t.boolean({ description: 'The tier of customers below every threshold; one per merchant' }),
    is_active: t.boolean({ description: 'Default true; an inactive tier is skipped by evaluation (the default tier must be active)' }),
  }),
});

const TierPatch = builder.inputType('TierPatch', {
  subGraphs: ['admin'],
  description: 'Fields to change; the result is validated as a whole',
  fields: (t) => ({
    name: t.string(),
    description: t.string(),
    position: t.int(),
    threshold: t.int(),
    qualification: t.field({ type: TierQualificationEnum }),
    window: t.field({ type: TierWindowEnum }),
    earn_multiplier: t.float(),
    benefits: t.stringList(),
    is_default: t.boolean(),
    is_active: t.boolean(),
  }),
});

builder.queryFields((t) => {
  const TierList = listOf('Tier', TierRef);
  return {
    tiers: t.field({
      subGraphs: ['public'],
      ...cachedByProgram,
      ...forGuests('read:tiers'),
      type: TierList,
      description: 'The active VIP tiers, lowest position first. REST: GET /v1/tiers',
      args: pageArgs,
      resolve: (_root, args, ctx) => listTiers(ctx.db, ctx.merchantId, args, { activeOnly: true }),
    }),
    admin_tiers: t.field({
      subGraphs: ['admin'],
      type: TierList,
      description: 'Every tier, active or not, by position',
      args: pageArgs,
      resolve: (_root, args, ctx) => listTiers(ctx.db, ctx.merchantId, args, { activeOnly: false }),
    }),
    customer_tier: t.field({
      subGraphs: ['public'],
      ...cachedByCustomer,
      ...forShoppers,
      type: resultOf('CustomerTierStatus', CustomerTierStatusRef),
      description: "A customer's VIP tier status and progress to the next tier. REST: GET /v1/customers/tiers",
      authScopes: { scope: 'read:tiers' },
      args: customerRefArgs,
      resolve: async (_root, args, ctx) => {
        const customer = await visibleCustomer(ctx.db, ctx, args);
        const [status] = noteChanges(ctx, [await customerTierStatus(ctx.db, ctx.merchantId, customer.id)]);
        return { data: status! };
      },
    }),
    admin_customer_tier: t.field({
      subGraphs: ['admin'],
      type: CustomerTierStatusRef,
      description: "A customer's VIP tier status and progress to the next tier",
      args: customerIdArgs,
      resolve: async (_root, args, ctx) => customerTierStatus(ctx.db, ctx.merchantId, await customerUuid(ctx, args)),
    }),
    customer_memberships: t.field({
      subGraphs: ['public'],
      ...cachedByCustomer,
      ...forShoppers,
      type: listOf('Membership', MembershipRef),
      description: "A customer's tier memberships, newest first. REST: GET /v1/customers/memberships",
      authScopes: { scope: 'read:customers' },
      args: { ...customerRefArgs, ...pageArgs },
      resolve: async (_root, args, ctx) => {
        const customer = await visibleCustomer(ctx.db, ctx, args);
        return listMemberships(ctx.db, ctx.merchantId, customer.id, args);
      },
    }),
  };
});

builder.mutationFields((t) => ({
  create_tier: t.field({
    subGraphs: ['admin'],
    type: TierRef,
    description: 'A position already taken is 409 conflict; a new default tier replaces the old default',
    args: { input: t.arg({ type: TierInput, required: true }) },
    resolve: (_root, args, ctx) => createTier(ctx.db, ctx.merchantId, provided(args.input)),
  }),
  update_tier: t.field({
    subGraphs: ['admin'],
    type: TierRef,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: TierPatch, required: true }) },
    resolve: (_root, args, ctx) => updateTier(ctx.db, ctx.merchantId, String(args.id), provided(args.input)),
  }),
}));
