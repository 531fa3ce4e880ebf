// The audit log (admin face only): every admin change, newest first (domain/audit). Rows are
// written by graphql/audit.ts around every admin mutation, and by the CLI's erasures.
import { ACTOR_KINDS, listAudit } from '../../domain/audit/audit.js';
import { builder } from '../builder.js';
import { listOf, pageArgs } from '../envelopes.js';

const AuditEntryRef = builder.prismaObject('AuditEntry', {
  subGraphs: ['admin'],
  description: 'One admin change: who, what, the resource before and after, when. Secrets never appear.',
  fields: (t) => ({
    id: t.exposeID('id'),
    actor: t.exposeString('actor', { description: 'token:<admin token prefix>, session:<admin session id> or cli' }),
    action: t.exposeString('action', { description: 'The admin mutation, e.g. update_reward, erase_customer' }),
    resource_type: t.exposeString('resourceType', { nullable: true }),
    resource_id: t.exposeString('resourceId', { nullable: true }),
    args: t.expose('args', { type: 'JSON', nullable: true, description: 'The arguments, secrets redacted' }),
    before: t.expose('before', { type: 'JSON', nullable: true, description: 'The resource before the change, as stored' }),
    after: t.expose('after', { type: 'JSON', nullable: true, description: 'The resource after the change, as stored' }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  audit_log: t.field({
    subGraphs: ['admin'],
    type: listOf('AuditEntry', AuditEntryRef),
    description: 'Admin changes, newest first; filter by action, resource_type, resource_id, actor or time',
    args: {
      ...pageArgs,
      action: t.arg.string(),
      resource_type: t.arg.string(),
      resource_id: t.arg.string(),
      actor: t.arg.string({
        description: `One actor (token:<admin token prefix>, session:<admin session id>, cli), or every actor of a kind: ${ACTOR_KINDS.join(', ')}`,
      }),
      created_after: t.arg({ type: 'DateTime', description: 'Only changes made at or after this time' }),
      created_before: t.arg({ type: 'DateTime', description: 'Only changes made before this time' }),
    },
    resolve: (_root, args, ctx) => listAudit(ctx.db, ctx.merchantId, args),
  }),
}));
