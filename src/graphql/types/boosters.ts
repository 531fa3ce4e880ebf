// Booster campaigns. Public: GET /booster-campaigns (active and current only). Admin: all of
// them (past, current, future; active or not), create, update, activate, deactivate.
import {
  boostersChangeAt,
  createBoosterCampaign,
  listAllBoosterCampaigns,
  listCurrentBoosters,
  setBoosterCampaignActive,
  updateBoosterCampaign,
} from '../../domain/earning/booster-campaigns.js';
import { builder, forShoppers } from '../builder.js';
import { cachedByProgram, changesAt } from '../cached.js';
import { CampaignTypeEnum } from '../enums.js';
import { listOf, pageArgs, provided } from '../envelopes.js';

const BoosterCampaignRef = builder.prismaObject('BoosterCampaign', {
  subGraphs: ['public', 'admin'],
  description: 'Multiplies the points of earning rules of the given campaign types while it runs',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    multiplier: t.float({ resolve: (b) => Number(b.multiplier) }),
    campaign_types: t.expose('campaignTypes', { type: [CampaignTypeEnum] }),
    starts_at: t.expose('startsAt', { type: 'DateTime' }),
    ends_at: t.expose('endsAt', { type: 'DateTime', nullable: true }),
    is_active: t.exposeBoolean('isActive'),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { subGraphs: ['admin'], type: 'DateTime' }),
  }),
});

// Times are strings here, checked by the shared zod shape (ISO 8601 with an offset).
const BoosterCampaignInput = builder.inputType('BoosterCampaignInput', {
  subGraphs: ['admin'],
  fields: (t) => ({
    name: t.string({ required: true }),
    description: t.string(),
    multiplier: t.float({ required: true, description: 'Points of the boosted campaign types are multiplied by this' }),
    campaign_types: t.field({ type: [CampaignTypeEnum], required: true }),
    starts_at: t.string({ required: true, description: 'ISO 8601 timestamp' }),
    ends_at: t.string({ description: 'ISO 8601 timestamp; null: no end' }),
    is_active: t.boolean({ description: 'Default true' }),
  }),
});

const BoosterCampaignPatch = builder.inputType('BoosterCampaignPatch', {
  subGraphs: ['admin'],
  description: 'Fields to change; the result is validated as a whole',
  fields: (t) => ({
    name: t.string(),
    description: t.string(),
    multiplier: t.float(),
    campaign_types: t.field({ type: [CampaignTypeEnum] }),
    starts_at: t.string(),
    ends_at: t.string(),
    is_active: t.boolean(),
  }),
});

builder.queryFields((t) => {
  const BoosterCampaignList = listOf('BoosterCampaign', BoosterCampaignRef);
  return {
    booster_campaigns: t.field({
      subGraphs: ['public'],
      ...cachedByProgram,
      ...forShoppers,
      type: BoosterCampaignList,
      description: 'Booster campaigns running now, newest first. REST: GET /v1/booster-campaigns',
      authScopes: { scope: 'read:booster_campaigns' },
      args: pageArgs,
      resolve: async (_root, args, ctx) => {
        // one instant for both: a cached answer expires when the list it shows would change
        const at = new Date();
        const [page, next] = await Promise.all([
          listCurrentBoosters(ctx.db, ctx.merchantId, args, at),
          ctx.answerLife ? boostersChangeAt(ctx.db, ctx.merchantId, at) : null,
        ]);
        changesAt(ctx, next);
        return page;
      },
    }),
    admin_booster_campaigns: t.field({
      subGraphs: ['admin'],
      type: BoosterCampaignList,
      description: 'Every booster campaign, whatever its dates or state, latest start first',
      args: { ...pageArgs, is_active: t.arg.boolean() },
      resolve: (_root, args, ctx) => listAllBoosterCampaigns(ctx.db, ctx.merchantId, args),
    }),
  };
});

builder.mutationFields((t) => ({
  create_booster_campaign: t.field({
    subGraphs: ['admin'],
    type: BoosterCampaignRef,
    args: { input: t.arg({ type: BoosterCampaignInput, required: true }) },
    resolve: (_root, args, ctx) => createBoosterCampaign(ctx.db, ctx.merchantId, provided(args.input)),
  }),
  update_booster_campaign: t.field({
    subGraphs: ['admin'],
    type: BoosterCampaignRef,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: BoosterCampaignPatch, required: true }) },
    resolve: (_root, args, ctx) => updateBoosterCampaign(ctx.db, ctx.merchantId, String(args.id), provided(args.input)),
  }),
  activate_booster_campaign: t.field({
    subGraphs: ['admin'],
    type: BoosterCampaignRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => setBoosterCampaignActive(ctx.db, ctx.merchantId, String(args.id), true),
  }),
  deactivate_booster_campaign: t.field({
    subGraphs: ['admin'],
    type: BoosterCampaignRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => setBoosterCampaignActive(ctx.db, ctx.merchantId, String(args.id), false),
  }),
}));
