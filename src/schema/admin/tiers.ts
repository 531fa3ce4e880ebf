// VIP tiers: all of them by position, create, update. Tiers have no active flag: a tier
// applies from its threshold (and the default tier to everyone below the first threshold).
import type { Tier } from '../../generated/prisma/client.js';
import { createTier, listTiers, updateTier } from '../../domain/tiers/tiers.js';
import { builder, listOf, pageArgs, provided } from './builder.js';
import { TierQualificationEnum, TierWindowEnum } from './enums.js';

export const TierRef = builder.objectRef<Tier>('Tier').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    position: t.exposeInt('position'),
    threshold: t.exposeInt('threshold'),
    qualification: t.expose('qualification', { type: TierQualificationEnum }),
    window: t.expose('window', { type: TierWindowEnum }),
    earn_multiplier: t.float({ resolve: (r) => Number(r.earnMultiplier) }),
    benefits: t.exposeStringList('benefits'),
    is_default: t.exposeBoolean('isDefault'),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const TierInput = builder.inputType('TierInput', {
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
  }),
});

const TierPatch = builder.inputType('TierPatch', {
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
  }),
});

builder.queryFields((t) => ({
  tiers: t.field({
    type: listOf('Tier', TierRef),
    description: 'Every tier, by position',
    args: pageArgs,
    resolve: (_root, args, ctx) => listTiers(ctx.db, ctx.merchantId, args),
  }),
}));

builder.mutationFields((t) => ({
  create_tier: t.field({
    type: TierRef,
    description: 'A position already taken is 409 conflict; a new default tier replaces the old default',
    args: { input: t.arg({ type: TierInput, required: true }) },
    resolve: (_root, args, ctx) => createTier(ctx.db, ctx.merchantId, provided(args.input)),
  }),
  update_tier: t.field({
    type: TierRef,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: TierPatch, required: true }) },
    resolve: (_root, args, ctx) => updateTier(ctx.db, ctx.merchantId, String(args.id), provided(args.input)),
  }),
}));
