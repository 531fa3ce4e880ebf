// Publishable storefront keys on the admin API: create, list, revoke, like API keys. A
// publishable key is meant to be in a page's source, so it is shown whenever it is listed.
import { createStorefrontKey, listStorefrontKeys, revokeStorefrontKey } from '../../domain/storefront/storefront-keys.js';
import { builder } from '../builder.js';

const StorefrontKeyRef = builder.prismaObject('StorefrontKey', {
  subGraphs: ['admin'],
  description:
    "A publishable storefront key: lets a page of the shop's storefront origins read the public program (rewards, ways to earn, tiers, the referral program) over /graphql, and nothing else. Safe in a page's source.",
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    key: t.exposeString('key', { description: 'The key itself (lpk_pub_…), for the page: it is not a secret' }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    revoked_at: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
  }),
});

builder.queryFields((t) => ({
  storefront_keys: t.field({
    subGraphs: ['admin'],
    type: [StorefrontKeyRef],
    description: 'Every publishable storefront key of the merchant, revoked ones included, newest first',
    resolve: (_root, _args, ctx) => listStorefrontKeys(ctx.db, ctx.merchantId),
  }),
}));

builder.mutationFields((t) => ({
  create_storefront_key: t.field({
    subGraphs: ['admin'],
    type: StorefrontKeyRef,
    description: 'A new publishable storefront key (at most 20 live ones per merchant)',
    args: { name: t.arg.string() },
    resolve: (_root, args, ctx) => createStorefrontKey(ctx.db, ctx.merchantId, { name: args.name }),
  }),
  revoke_storefront_key: t.field({
    subGraphs: ['admin'],
    type: StorefrontKeyRef,
    description: 'Revokes the key at once: its next request is 401 invalid_token. Revoking twice changes nothing.',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => revokeStorefrontKey(ctx.db, ctx.merchantId, String(args.id)),
  }),
}));
