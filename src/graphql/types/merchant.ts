// The merchant (shop) itself: its identity and program-wide settings.

import { updateMerchantSettings } from '../../domain/merchants/merchants.js';
import { notFound } from '../../domain/shared/errors.js';
import { builder } from '../builder.js';

const MerchantRef = builder.prismaObject('Merchant', {
  subGraphs: ['admin'],
  fields: (t) => ({
    id: t.exposeID('id'),
    slug: t.exposeString('slug'),
    name: t.exposeString('name'),
    currency: t.exposeString('currency', { description: 'ISO 4217 code of the shop currency' }),
    points_expiry_days: t.exposeInt('pointsExpiryDays', {
      nullable: true,
      description: 'Points expire after this many days without activity; null: never',
    }),
    points_pending_days: t.exposeInt('pointsPendingDays', {
      description: 'Points earned from an order stay pending this many days (the return window); 0: credited at once',
    }),
    late_earning_days: t.exposeInt('lateEarningDays', {
      description:
        'An order or action recorded up to this many days after it happened (created_at, occurred_at) earns as it would have then; one older is refused (import it as history)',
    }),
    timezone: t.exposeString('timezone', {
      description: 'IANA time zone of the program calendar (limit periods, tier years, expiry dates, dashboard days)',
    }),
    locale: t.exposeString('locale', {
      description: 'BCP 47 language and region the admin app shows numbers, money and dates in (e.g. en-US, de-DE)',
    }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  merchant: t.field({
    subGraphs: ['admin'],
    type: MerchantRef,
    description: 'The merchant the admin token belongs to',
    resolve: async (_root, _args, ctx) => {
      const merchant = await ctx.db.merchant.findUnique({ where: { id: ctx.merchantId } });
      if (!merchant) throw notFound('Merchant');
      return merchant;
    },
  }),
}));

builder.mutationFields((t) => ({
  update_merchant_settings: t.field({
    subGraphs: ['admin'],
    type: MerchantRef,
    description:
      'Changes the given settings; points_expiry_days: null turns expiry off; a new timezone governs periods that start after the change',
    args: {
      name: t.arg.string(),
      currency: t.arg.string({ description: 'ISO 4217, e.g. USD' }),
      points_expiry_days: t.arg.int({ description: '1 to 36500, or null for never' }),
      points_pending_days: t.arg.int({ description: '0 to 365: days order points stay pending before approval' }),
      late_earning_days: t.arg.int({ description: '0 to 36500: days after it happened an order or action may still earn points' }),
      timezone: t.arg.string({ description: 'IANA time zone, e.g. America/Los_Angeles' }),
      locale: t.arg.string({ description: 'BCP 47 language and region, e.g. en-US, de-DE, fr-CA' }),
    },
    // an argument the client left out is absent from args; an explicit null is kept
    resolve: (_root, args, ctx) => updateMerchantSettings(ctx.db, ctx.merchantId, { ...args }),
  }),
}));
