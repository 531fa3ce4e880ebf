// Customer sessions and what a storefront configures for them (issue 11). Public GraphQL only
// (the `graph` sub-graph, which REST never sees): the merchant's backend mints
// a session for one shopper (`create_customer_session`, write:customers), and the session
// reads its own customer (`me`). Admin: the storefront settings (allowed browser origins, the
// persisted-operations-only mode), rotating the session signing secret (which ends every
// session), and the persisted operations allow-list.
import { mintCustomerSession } from '../../domain/access/customer-sessions.js';
import { customerProfile } from '../../domain/customers/customer-records.js';
import { notFound } from '../../domain/shared/errors.js';
import {
  addPersistedOperation,
  listPersistedOperations,
  removePersistedOperation,
} from '../../domain/storefront/persisted-operations.js';
import {
  rotateSessionSecret,
  storefrontSettings,
  updateStorefrontSettings,
} from '../../domain/storefront/storefront-settings.js';
import { builder, forShoppers } from '../builder.js';
import { listOf, pageArgs, provided, resultOf } from '../envelopes.js';
import { CustomerRef, customerRefArgs } from './customers.js';

/** Without configuration (the admin face, scripts): one hour, at most a day. */
const defaultLimits = { defaultTtl: 3600, maxTtl: 86_400 };

interface MintedSession {
  token: string;
  expires_at: Date;
  customer_id: string;
}

const CustomerSessionRef = builder.objectRef<MintedSession>('CustomerSession').implement({
  subGraphs: ['graph'],
  description: "A shopper's session: send `Authorization: Bearer <token>` to /graphql from the storefront",
  fields: (t) => ({
    token: t.exposeString('token', { description: 'A signed token (JWT); keep it in the browser only for this shopper' }),
    expires_at: t.expose('expires_at', { type: 'DateTime' }),
    customer: t.field({
      type: CustomerRef,
      resolve: (s, _args, ctx) => customerProfile(ctx.db, ctx.merchantId, s.customer_id),
    }),
  }),
});

builder.queryFields((t) => ({
  me: t.field({
    subGraphs: ['graph'],
    ...forShoppers,
    type: CustomerRef,
    description: "The customer session's own customer (customer sessions only)",
    authScopes: { shopper: true },
    resolve: (_root, _args, ctx) => {
      if (ctx.principal?.kind !== 'session') throw notFound('Customer');
      return customerProfile(ctx.db, ctx.merchantId, ctx.principal.customerId);
    },
  }),
}));

builder.mutationFields((t) => ({
  create_customer_session: t.field({
    subGraphs: ['graph'],
    type: resultOf('CustomerSession', CustomerSessionRef),
    description:
      'A short-lived session for one shopper, for the storefront to call /graphql from their browser (GraphQL only). ' +
      'Name the customer with customer_id or email.',
    authScopes: { scope: 'write:customers' },
    args: {
      ...customerRefArgs,
      expires_in: t.arg.int({ description: 'Lifetime in seconds (default and maximum: the service settings)' }),
    },
    resolve: async (_root, args, ctx) => ({
      data: await mintCustomerSession(ctx.db, ctx.merchantId, args, ctx.sessionLimits ?? defaultLimits),
    }),
  }),
}));

// ---- admin: storefront settings and the persisted operations allow-list

const StorefrontSettingsRef = builder
  .objectRef<Awaited<ReturnType<typeof storefrontSettings>>>('StorefrontSettings')
  .implement({
    subGraphs: ['admin'],
    description: 'What the shop lets its headless storefront do from the shopper’s browser',
    fields: (t) => ({
      allowed_origins: t.exposeStringList('allowed_origins', {
        description: 'Origins whose pages may call /graphql with a customer session',
      }),
      persisted_operations_only: t.exposeBoolean('persisted_operations_only', {
        description: 'When true, /graphql runs only the persisted operations below',
      }),
      updated_at: t.expose('updated_at', { type: 'DateTime', nullable: true, description: 'null: never changed' }),
    }),
  });

const SessionSecretRotationRef = builder.objectRef<{ rotated_at: Date }>('SessionSecretRotation').implement({
  subGraphs: ['admin'],
  fields: (t) => ({ rotated_at: t.expose('rotated_at', { type: 'DateTime' }) }),
});

const PersistedOperationRef = builder
  .objectRef<{ hash: string; name: string | null; query: string; created_at: Date }>('PersistedOperation')
  .implement({
    subGraphs: ['admin'],
    fields: (t) => ({
      hash: t.exposeString('hash', { description: 'sha256 of the document (hex): what a client sends' }),
      name: t.exposeString('name', { nullable: true }),
      query: t.exposeString('query'),
      created_at: t.expose('created_at', { type: 'DateTime' }),
    }),
  });

const PersistedOperationRemovalRef = builder.objectRef<{ hash: string; removed: boolean }>('PersistedOperationRemoval').implement({
  subGraphs: ['admin'],
  fields: (t) => ({ hash: t.exposeString('hash'), removed: t.exposeBoolean('removed') }),
});

builder.queryFields((t) => ({
  storefront_settings: t.field({
    subGraphs: ['admin'],
    type: StorefrontSettingsRef,
    resolve: (_root, _args, ctx) => storefrontSettings(ctx.db, ctx.merchantId),
  }),
  persisted_operations: t.field({
    subGraphs: ['admin'],
    type: listOf('PersistedOperation', PersistedOperationRef),
    description: 'The allow-listed GraphQL documents, newest first',
    args: pageArgs,
    resolve: (_root, args, ctx) => listPersistedOperations(ctx.db, ctx.merchantId, args),
  }),
}));

builder.mutationFields((t) => ({
  update_storefront_settings: t.field({
    subGraphs: ['admin'],
    type: StorefrontSettingsRef,
    description: 'Changes the given settings (allowed_origins replaces the whole list)',
    args: {
      allowed_origins: t.arg.stringList({ description: 'e.g. ["https://shop.example.com"]; [] allows none' }),
      persisted_operations_only: t.arg.boolean(),
    },
    resolve: (_root, args, ctx) =>
      updateStorefrontSettings(ctx.db, ctx.merchantId, {
        allowed_origins: args.allowed_origins ?? undefined,
        persisted_operations_only: args.persisted_operations_only ?? undefined,
      }),
  }),
  rotate_customer_session_secret: t.field({
    subGraphs: ['admin'],
    type: SessionSecretRotationRef,
    description: 'A new signing secret for customer sessions: every session minted before ends now',
    resolve: (_root, _args, ctx) => rotateSessionSecret(ctx.db, ctx.merchantId),
  }),
  add_persisted_operation: t.field({
    subGraphs: ['admin'],
    type: PersistedOperationRef,
    description: 'Adds a document to the allow-list (adding it again only renames it)',
    args: { query: t.arg.string({ required: true }), name: t.arg.string() },
    resolve: (_root, args, ctx) => addPersistedOperation(ctx.db, ctx.merchantId, provided(args)),
  }),
  remove_persisted_operation: t.field({
    subGraphs: ['admin'],
    type: PersistedOperationRemovalRef,
    args: { hash: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => removePersistedOperation(ctx.db, ctx.merchantId, args.hash),
  }),
}));
