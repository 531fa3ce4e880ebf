// The one Pothos builder of both faces: scope-auth first, then Prisma, then sub-graphs.
// Every type is declared once, with the sub-graphs (faces) it belongs to: `public` (/graphql
// and, through SOFA, REST /v1) and `admin` (/admin/graphql); public.ts and admin.ts build them.
// The public GraphQL face adds `graph`: the links between records (links.ts), kept off REST.
import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import ScopeAuthPlugin, { type AuthFailure, AuthScopeFailureType } from '@pothos/plugin-scope-auth';
import SubGraphPlugin from '@pothos/plugin-sub-graph';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import type { SessionLimits } from '../domain/access/customer-sessions.js';
import type { Principal, SessionPrincipal } from '../domain/access/principal.js';
import { allows, type ScopeGrant } from '../domain/access/scopes.js';
import type { ProgramCache } from '../domain/merchants/program.js';
import { AppError } from '../domain/shared/errors.js';
import type PrismaTypes from '../generated/pothos-types.js';
import { getDatamodel } from '../generated/pothos-types.js';
import type { AnswerLife } from './cached.js';

/** One context for both faces: the merchant every resolver is bound to, and the principal of a
 * public request, an API key or a customer session (null on the admin face, whose token grants
 * everything: no scopes there). */
export interface Context {
  db: Db;
  /**
   * Where a public request's `db` is its merchant's Citus worker (src/db/merchant-nodes.ts): the
   * coordinator's client, which writes the reference tables (their triggers' NOTIFY is the
   * coordinator's alone). Otherwise absent: `db` does it.
   */
  referenceDb?: Db;
  merchantId: string;
  principal: Principal | null;
  /** The lifetimes customer sessions may be minted with (public face; defaults otherwise). */
  sessionLimits?: SessionLimits;
  /** Public face: a customer session token to its session, as the request's credential would be verified. */
  verifySession?: (token: string) => Promise<SessionPrincipal>;
  /** The service's configuration, on the admin face (webhook URL policy). */
  config?: Config;
  /** Admin face: who acts, for the audit log (`token:<admin token prefix>` or `session:<id>`). */
  actor?: string;
  /** Public face: the merchants' programs (time zone, expiry, tier ladder), cached per instance. */
  programs?: ProgramCache;
  /** Public face: the client's address as TRUST_PROXY decides it ('local' in process). */
  clientAddress?: string;
  /** Public face, an answer that may be cached: when it stops being true by the clock alone (cached.ts). */
  answerLife?: AnswerLife;
  /** Public face, an answer being kept: the revisions of the merchant's program it is kept under (programs.get). */
  programRevision?: string;
}

/** The scope(s) a failed check required, for the 403 message. */
function requiredScopes(failure: AuthFailure): string[] {
  switch (failure.kind) {
    case AuthScopeFailureType.AuthScope:
      return failure.scope === 'scope' ? [String(failure.parameter)] : [];
    case AuthScopeFailureType.AnyAuthScopes:
    case AuthScopeFailureType.AllAuthScopes:
      return failure.failures.flatMap(requiredScopes);
    default:
      return [];
  }
}

export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  // scope: the grant a field needs. merchant: the request is the merchant's (an API key or the
  // admin token), not a shopper's session; every root field needs it unless it is declared
  // `...forShoppers`. shopper: the request is a customer session. guest: the request is a
  // publishable storefront key's, which has no scope and may use only the fields `forGuests`.
  AuthScopes: { scope: ScopeGrant; merchant: boolean; shopper: boolean; guest: boolean };
  // `graph`: the links of the public GraphQL face, which REST (the `public` sub-graph) never shows
  SubGraphs: 'public' | 'admin' | 'graph';
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    Date: { Input: Date; Output: Date };
    JSON: { Input: unknown; Output: unknown };
  };
  DefaultFieldNullability: false;
}>({
  plugins: [ScopeAuthPlugin, PrismaPlugin, SubGraphPlugin],
  defaultFieldNullability: false,
  subGraphs: {
    // a type says which faces it belongs to; its fields follow it unless they say otherwise
    defaultForTypes: [],
    fieldsInheritFromTypes: true,
  },
  scopeAuth: {
    authScopes: (ctx) => ({
      scope: (required) => allows(ctx.principal?.scopes ?? [], required),
      merchant: ctx.principal?.kind !== 'session' && ctx.principal?.kind !== 'guest',
      shopper: ctx.principal?.kind === 'session',
      guest: ctx.principal?.kind === 'guest',
    }),
    unauthorizedError: (_parent, ctx, _info, result) => {
      const scopes = requiredScopes(result.failure);
      // an AppError: GraphQL copies its extensions (code, http status) onto the located error
      return new AppError(
        'insufficient_scope',
        ctx.principal?.kind === 'session'
          ? 'A customer session may read only its own customer and the public program'
          : ctx.principal?.kind === 'guest'
            ? 'A publishable storefront key may read only the public program: rewards, earning rules, tiers and the referral program'
            : scopes.length
              ? `This API key lacks the scope ${scopes.join(' or ')}`
              : 'This API key lacks a required scope',
      );
    },
  },
  prisma: {
    client: (ctx) => ctx.db,
    dmmf: getDatamodel(),
    // relations are loaded through selections, never lazily per row
    onUnusedQuery: null,
  },
});

// Both faces have a Query and a Mutation; each root field names its face (none by default).
// A customer session may use no root field but those declared `...forShoppers`.
builder.queryType({ subGraphs: ['public', 'admin'], defaultSubGraphsForFields: [], authScopes: { merchant: true } });
builder.mutationType({ subGraphs: ['public', 'admin'], defaultSubGraphsForFields: [], authScopes: { merchant: true } });

/** A root field a shopper's customer session may use too (its own records, the public
 * program): it skips the root type's `merchant` check and keeps its own scope. */
export const forShoppers = { skipTypeScopes: true } as const;

/** A root field of the public program: shoppers and keys with `scope` may use it, and so may a
 * signed-out visitor's publishable key (which has no scope at all). */
export const forGuests = (scope: ScopeGrant) => ({ ...forShoppers, authScopes: { scope, guest: true } }) as const;
