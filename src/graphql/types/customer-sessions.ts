// Customer sessions and what a storefront configures for them. Public GraphQL only
// (the `graph` sub-graph, which REST never sees): the merchant's backend mints
// a session for one shopper (`create_customer_session`, write:customers), and the session
// reads its own customer (`me`). A session is ended (`delete_customer_session`: sign-out) or
// renewed into a new token (`renew_customer_session`) by itself, or by the API key that
// minted it, which names it by its token. Admin: the storefront settings (allowed browser origins, the
// persisted-operations-only mode), rotating the session signing secret (which ends every
// session), and the persisted operations allow-list.

import type { GraphQLResolveInfo } from 'graphql';
import {
  endCustomerSession,
  mintCustomerSession,
  renewCustomerSession,
  type SessionChange,
} from '../../domain/access/customer-sessions.js';
import { endSession } from '../../domain/access/ended-sessions.js';
import { customerProfile } from '../../domain/customers/customer-records.js';
import { notFound } from '../../domain/shared/errors.js';
import { addPersistedOperation, listPersistedOperations, removePersistedOperation } from '../../domain/storefront/persisted-operations.js';
import { rotateSessionSecret, storefrontSettings, updateStorefrontSettings } from '../../domain/storefront/storefront-settings.js';
import { builder, type Context, forShoppers } from '../builder.js';
import { cachedByCustomer } from '../cached.js';
import { customerRefArgs } from '../customer-args.js';
import { planLinks, withPlan } from '../customer-plan.js';
import { listOf, pageArgs, provided, resultOf } from '../envelopes.js';
import { CustomerRef } from './customers.js';

/** Without configuration (the admin face, scripts): one hour, at most a day. */
const defaultLimits = { defaultTtl: 3600, maxTtl: 86_400 };

/** The merchant's customer `id`, read with the links the document selects of it. */
async function plannedCustomer(ctx: Context, info: GraphQLResolveInfo, id: string) {
  const plan = await planLinks(ctx, info, []);
  return withPlan(await customerProfile(ctx.db, ctx.merchantId, id, plan.parts), plan);
}

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
      resolve: (s, _args, ctx, info) => plannedCustomer(ctx, info, s.customer_id),
    }),
  }),
});

builder.queryFields((t) => ({
  me: t.field({
    subGraphs: ['graph'],
    ...cachedByCustomer,
    ...forShoppers,
    type: CustomerRef,
    description: "The customer session's own customer (customer sessions only)",
    authScopes: { shopper: true },
    resolve: (_root, _args, ctx, info) => {
      if (ctx.principal?.kind !== 'session') throw notFound('Customer');
      return plannedCustomer(ctx, info, ctx.principal.customerId);
    },
  }),
}));

const CustomerSessionResult = resultOf('CustomerSession', CustomerSessionRef);

const EndedCustomerSessionRef = builder.objectRef<{ ended_at: Date; customer_id: string }>('EndedCustomerSession').implement({
  subGraphs: ['graph'],
  description: 'A customer session ended: its token is refused from now on, on every instance',
  fields: (t) => ({
    ended_at: t.expose('ended_at', { type: 'DateTime' }),
    customer: t.field({
      type: CustomerRef,
      resolve: (s, _args, ctx, info) => plannedCustomer(ctx, info, s.customer_id),
    }),
  }),
});

/** Who ends or renews a session, and how: the request's session itself, or its API key naming a token. */
function sessionChange(ctx: Context, token: string | null | undefined): SessionChange {
  const principal = ctx.principal!;
  if (!ctx.verifySession) throw new Error('customer sessions are verified on the public face only');
  return {
    merchantId: ctx.merchantId,
    caller: principal.kind === 'session' ? principal : { kind: 'api_key', keyId: principal.keyId },
    own: principal.kind === 'session' ? principal : undefined,
    token,
    verify: ctx.verifySession,
    // its notification must be sent where the instances listen: the coordinator, on a cluster
    end: (session) => endSession(ctx.referenceDb ?? ctx.db, session),
  };
}

/** Acting on a session: the session itself, or an API key with write:customers (on the sessions it minted). */
const sessionOrMinter = { ...forShoppers, authScopes: { shopper: true, scope: 'write:customers' } } as const;
builder.mutationFields((t) => ({
  delete_customer_session: t.field({
    subGraphs: ['graph'],
    ...sessionOrMinter,
    type: resultOf('EndedCustomerSession', EndedCustomerSessionRef),
    description:
      'Ends one customer session (sign-out): its token is refused from now on. Sent with the session itself, or by the API key ' +
      'that minted it, naming its token (GraphQL only). Ending a session that has ended already changes nothing.',
    args: { token: t.arg.string({ description: 'The session to end; a session sending its own request may leave it out' }) },
    resolve: async (_root, args, ctx) => ({ data: await endCustomerSession(sessionChange(ctx, args.token)) }),
  }),
  renew_customer_session: t.field({
    subGraphs: ['graph'],
    ...sessionOrMinter,
    type: CustomerSessionResult,
    description:
      'A new token for the same shopper, before the old one expires; the old token is refused from now on. Sent with the ' +
      'session itself, or by the API key that minted it, naming its token (GraphQL only).',
    args: {
      token: t.arg.string({ description: 'The session to renew; a session sending its own request may leave it out' }),
      expires_in: t.arg.int({ description: 'Lifetime of the new token in seconds (default: as long as the old one was given)' }),
    },
    resolve: async (_root, args, ctx) => ({
      data: await renewCustomerSession(
        ctx.db,
        { ...sessionChange(ctx, args.token), expires_in: args.expires_in },
        ctx.sessionLimits ?? defaultLimits,
      ),
    }),
  }),
  create_customer_session: t.field({
    subGraphs: ['graph'],
    type: CustomerSessionResult,
    description:
      'A short-lived session for one shopper, for the storefront to call /graphql from their browser (GraphQL only). ' +
      'Name the customer with customer_id or email.',
    authScopes: { scope: 'write:customers' },
    args: {
      ...customerRefArgs,
      expires_in: t.arg.int({ description: 'Lifetime in seconds (default and maximum: the service settings)' }),
    },
    resolve: async (_root, args, ctx) => ({
      data: await mintCustomerSession(
        ctx.db,
        ctx.merchantId,
        args,
        ctx.sessionLimits ?? defaultLimits,
        ctx.principal?.kind === 'api_key' ? ctx.principal.keyId : undefined,
        ctx.referenceDb,
      ),
    }),
  }),
}));

// ---- admin: storefront settings and the persisted operations allow-list

const StorefrontSettingsRef = builder.objectRef<Awaited<ReturnType<typeof storefrontSettings>>>('StorefrontSettings').implement({
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

const PersistedOperationRef = builder.prismaObject('PersistedOperation', {
  subGraphs: ['admin'],
  fields: (t) => ({
    hash: t.exposeString('hash', { description: 'sha256 of the document (hex): what a client sends' }),
    name: t.exposeString('name', { nullable: true }),
    query: t.exposeString('query'),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
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
