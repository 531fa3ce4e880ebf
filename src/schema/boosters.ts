// Booster campaigns: GET /booster-campaigns (active and current only).
import { listCurrentBoosters } from '../domain/earning/booster-campaigns.js';
import { builder } from './builder.js';
import { CampaignTypeEnum } from './enums.js';
import { listOf, pageArgs } from './pagination.js';

const BoosterCampaignRef = builder.prismaObject('BoosterCampaign', {
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
  }),
});

builder.queryFields((t) => ({
  booster_campaigns: t.field({
    type: listOf('BoosterCampaign', BoosterCampaignRef),
    description: 'Booster campaigns running now, newest first. REST: GET /v1/booster-campaigns',
    authScopes: { scope: 'read:booster_campaigns' },
    args: pageArgs,
    resolve: (_root, args, ctx) => listCurrentBoosters(ctx.db, ctx.principal.merchantId, args),
  }),
}));
