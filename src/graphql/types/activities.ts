// The activity log: GET /customers/activities, and the admin's customer page.
import { visibleCustomer } from '../../domain/access/customer-sessions.js';
import { activityRows, listActivities } from '../../domain/ledger/activity-log.js';
import { builder, forShoppers } from '../builder.js';
import { cachedByCustomer } from '../cached.js';
import { customerIdArgs, customerRefArgs, customerUuid } from '../customer-args.js';
import { scrollableLinks } from '../customer-links.js';
import { ActivityStatusEnum } from '../enums.js';
import { listOf, pageArgs } from '../envelopes.js';
import { CustomerRef } from './customers.js';

const ActivityReferenceRef = builder.objectRef<{ kind: string; id: string }>('ActivityReference').implement({
  subGraphs: ['public', 'admin'],
  description: 'The record behind an activity, e.g. {kind: "transaction", id}',
  fields: (t) => ({
    kind: t.exposeString('kind'),
    id: t.exposeID('id'),
  }),
});

const ActivityRef = builder.prismaObject('Activity', {
  subGraphs: ['public', 'admin'],
  fields: (t) => ({
    id: t.exposeID('id'),
    type: t.exposeString('type', {
      description: 'A campaign_type, or adjustment, redemption, referral, expiry, tier_change, import',
    }),
    description: t.exposeString('description'),
    points_change: t.exposeInt('pointsChange'),
    balance_after: t.exposeInt('balanceAfter', { nullable: true }),
    status: t.expose('status', { type: ActivityStatusEnum }),
    reference: t.field({
      type: ActivityReferenceRef,
      nullable: true,
      resolve: (a) => (a.referenceKind && a.referenceId ? { kind: a.referenceKind, id: a.referenceId } : null),
    }),
    occurred_at: t.expose('occurredAt', {
      type: 'DateTime',
      description: 'When it happened (an order placed, an action): created_at unless it was recorded late; the log is newest first by it',
    }),
    created_at: t.expose('createdAt', { type: 'DateTime', description: 'When it was recorded' }),
  }),
});

// the list type is declared where the public schema always declared it (its order is the REST contract's)
builder.queryFields((t) => {
  const ActivityList = listOf('Activity', ActivityRef);
  return {
    customer_activities: t.field({
      subGraphs: ['public'],
      ...cachedByCustomer,
      ...forShoppers,
      type: ActivityList,
      description: "A customer's activity log, newest first. REST: GET /v1/customers/activities",
      authScopes: { scope: 'read:activities' },
      args: { ...customerRefArgs, ...pageArgs },
      resolve: async (_root, args, ctx) => {
        const customer = await visibleCustomer(ctx.db, ctx, args);
        return listActivities(ctx.db, ctx.merchantId, customer.id, args);
      },
    }),
    admin_customer_activities: t.field({
      subGraphs: ['admin'],
      type: ActivityList,
      description: "A customer's activity log, newest first",
      args: { ...customerIdArgs, ...pageArgs },
      resolve: async (_root, args, ctx) => listActivities(ctx.db, ctx.merchantId, await customerUuid(ctx, args), args),
    }),
  };
});

builder.objectFields(CustomerRef, (t) =>
  scrollableLinks(t, {
    name: 'activities',
    typeName: 'Activity',
    item: ActivityRef,
    scope: 'read:activities',
    what: 'The activity log',
    twin: 'GET /v1/customers/activities',
    rows: activityRows,
  }),
);
