// The one Pothos builder of the public schema: scope-auth first, then Prisma.
import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import ScopeAuthPlugin, { AuthScopeFailureType, type AuthFailure } from '@pothos/plugin-scope-auth';
import { GraphQLError } from 'graphql';
import type { Db } from '../db/client.js';
import type { Principal } from '../domain/access/api-keys.js';
import { errorStatus } from '../domain/shared/errors.js';
import { type ScopeGrant, allows } from '../domain/access/scopes.js';
import type PrismaTypes from '../generated/pothos-types.js';
import { getDatamodel } from '../generated/pothos-types.js';
import { dateScalar, dateTimeScalar } from './common.js';

export interface Context {
  db: Db;
  principal: Principal;
}

/** The scope(s) a failed check required, for the 403 message. */
function requiredScopes(failure: AuthFailure): string[] {
  switch (failure.kind) {
    case AuthScopeFailureType.AuthScope:
      return [String(failure.parameter)];
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
  AuthScopes: { scope: ScopeGrant };
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    Date: { Input: Date; Output: Date };
  };
  DefaultFieldNullability: false;
}>({
  plugins: [ScopeAuthPlugin, PrismaPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    authScopes: (ctx) => ({ scope: (required) => allows(ctx.principal.scopes, required) }),
    unauthorizedError: (_parent, _ctx, _info, result) => {
      const scopes = requiredScopes(result.failure);
      return new GraphQLError(
        scopes.length ? `This API key lacks the scope ${scopes.join(' or ')}` : 'This API key lacks a required scope',
        {
          extensions: {
            code: 'insufficient_scope',
            http: { status: errorStatus.insufficient_scope },
          },
        },
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

builder.queryType({});
builder.mutationType({});

builder.scalarType('DateTime', dateTimeScalar);
builder.scalarType('Date', dateScalar);
