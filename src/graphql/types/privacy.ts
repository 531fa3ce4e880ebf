// Privacy requests (admin face only): a customer's export, everything held about them as one
// JSON document, and their erasure (domain/privacy). The erasure is audited like every admin
// change (graphql/audit.ts); an export, a read, is audited here: who took a customer's data out
// matters as much as who changed it (the entry names the customer, never their data).
import { auditResourceType, recordAudit } from '../../domain/audit/audit.js';
import { type ErasedCustomer, eraseCustomer } from '../../domain/privacy/erasure.js';
import { exportCustomer } from '../../domain/privacy/export.js';
import { builder } from '../builder.js';
import { customerIdArgs } from '../customer-args.js';

const CustomerErasureRef = builder.objectRef<ErasedCustomer>('CustomerErasure').implement({
  subGraphs: ['admin'],
  description: "An erased customer: its personal data is gone, its ledger's amounts stay",
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Internal id (uuid): the only name left for the customer' }),
    erased_at: t.expose('erased_at', { type: 'DateTime' }),
    erased_now: t.exposeBoolean('erased_now', { description: 'False when it had already been erased (nothing changed)' }),
    points_balance: t.exposeInt('points_balance', { description: 'The balance kept on the merchant accounts' }),
  }),
});

builder.queryFields((t) => ({
  customer_export: t.field({
    subGraphs: ['admin'],
    type: 'JSON',
    description:
      'Everything held about one customer (profile, balance, ledger, activities, rewards, referrals, memberships, orders) ' +
      'as one JSON document, for a privacy access request. An erased customer is not_found.',
    args: customerIdArgs,
    resolve: async (_root, args, ctx) => {
      const document = await exportCustomer(ctx.db, ctx.merchantId, String(args.id));
      await recordAudit(ctx.db, {
        merchantId: ctx.merchantId,
        actor: ctx.actor ?? 'unknown',
        action: 'customer_export',
        resourceType: auditResourceType('Customer'),
        resourceId: (document as { customer: { id: string } }).customer.id,
        args: { id: String(args.id) },
      });
      return document;
    },
  }),
}));

builder.mutationFields((t) => ({
  erase_customer: t.field({
    subGraphs: ['admin'],
    type: CustomerErasureRef,
    description:
      "Erases a customer's personal data (privacy deletion request): email, names, birthday and platform id are replaced " +
      'by a tombstone, copies in referrals, stored event results, stored responses and audit rows are scrubbed; the ' +
      "ledger's amounts stay. Afterwards the customer is not_found everywhere. Erasing again (by internal id) changes nothing.",
    args: customerIdArgs,
    resolve: (_root, args, ctx) => eraseCustomer(ctx.db, ctx.merchantId, String(args.id)),
  }),
}));
