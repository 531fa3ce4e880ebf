// API keys, as spec section 5's settings page: create (Full Access, Read-Only or Custom,
// per scope No Access / Read / Read-Write), list, revoke. Scopes are fixed at creation:
// there is no update; a change is a new key and the old one revoked.
import type { PrismaModelTypes } from '@pothos/plugin-prisma';
import { z } from 'zod';
import { type CreatedApiKey, createApiKey, listApiKeys, revokeApiKey } from '../../domain/access/api-keys.js';
import { keyTypes, type ScopeName, scopeDescriptions, scopeLevels, scopeNames } from '../../domain/access/scopes.js';
import { validationError } from '../../domain/shared/errors.js';
import { parseInput } from '../../domain/shared/validation.js';
import type PrismaTypes from '../../generated/pothos-types.js';
import { builder } from '../builder.js';
import { ApiKeyTypeEnum } from '../enums.js';

type Access = 'none' | 'read' | 'write';

const ApiScopeEnum = builder.enumType('ApiScope', {
  subGraphs: ['admin'],
  values: Object.fromEntries(scopeNames.map((s) => [s, { description: `Levels: ${scopeLevels[s].join(', ')}` }])) as Record<
    ScopeName,
    { description: string }
  >,
});
const ScopeAccessEnum = builder.enumType('ScopeAccess', {
  subGraphs: ['admin'],
  values: { none: { description: 'No Access' }, read: { description: 'Read Access' }, write: { description: 'Read/Write Access' } },
});

/** Every scope with the key's level in it (none where the key has no grant). */
function accessPerScope(grants: readonly string[]) {
  return scopeNames.map((scope) => ({
    scope,
    access: (grants.includes(`write:${scope}`) ? 'write' : grants.includes(`read:${scope}`) ? 'read' : 'none') as Access,
  }));
}

const ApiKeyScopeRef = builder.objectRef<{ scope: ScopeName; access: Access }>('ApiKeyScope').implement({
  subGraphs: ['admin'],
  fields: (t) => ({
    scope: t.expose('scope', { type: ApiScopeEnum }),
    access: t.expose('access', { type: ScopeAccessEnum }),
  }),
});

type Types = typeof builder.$inferSchemaTypes;

/** The fields a new key and a listed key share. */
const keyFields = (t: PothosSchemaTypes.PrismaObjectFieldBuilder<Types, PrismaModelTypes & PrismaTypes['ApiKey']>) => ({
  id: t.exposeID('id'),
  name: t.exposeString('name'),
  type: t.expose('type', { type: ApiKeyTypeEnum }),
  prefix: t.exposeString('prefix', { description: 'The first characters of the key, to recognise it' }),
  scopes: t.field({
    type: [ApiKeyScopeRef],
    description: 'Every scope with the access the key has in it',
    resolve: (k) => accessPerScope(k.scopes),
  }),
  grants: t.exposeStringList('scopes', { description: 'The stored grants: read:<scope> / write:<scope>' }),
  created_at: t.expose('createdAt', { type: 'DateTime' }),
});

const ApiKeyRef = builder.prismaObject('ApiKey', {
  subGraphs: ['admin'],
  description: 'An API key of the public API; the key itself is shown only once, at creation',
  fields: (t) => ({
    ...keyFields(t),
    last_used_at: t.expose('lastUsedAt', { type: 'DateTime', nullable: true }),
    revoked_at: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
  }),
});

// a variant of the row: its value is the row with the key itself beside it (createApiKey), which
// no stored column holds
const CreatedApiKeyRef = builder.prismaObject('ApiKey', {
  variant: 'CreatedApiKey',
  subGraphs: ['admin'],
  description: 'A new key: `key` is shown this once and cannot be read again',
  fields: (t) => ({
    key: t.string({ resolve: (k) => (k as CreatedApiKey).key }),
    ...keyFields(t),
  }),
});

const ApiKeyScopeInput = builder.inputType('ApiKeyScopeInput', {
  subGraphs: ['admin'],
  fields: (t) => ({
    scope: t.field({ type: ApiScopeEnum, required: true }),
    access: t.field({ type: ScopeAccessEnum, required: true }),
  }),
});

const createKeyArgs = z.object({
  type: z.enum(keyTypes),
  name: z.string().trim().max(200, 'must be at most 200 characters').nullish(),
  scopes: z
    .array(z.object({ scope: z.string(), access: z.string() }))
    .max(50)
    .nullish(),
});

/** The custom key's levels; scopes on a full or read-only key would be misleading, so they are refused. */
function levelsOf(input: z.infer<typeof createKeyArgs>) {
  if (input.type !== 'custom') {
    if (input.scopes?.length) throw validationError({ scopes: ['only a custom key takes scopes'] });
    return undefined;
  }
  const levels: Record<string, string> = {};
  for (const { scope, access } of input.scopes ?? []) {
    if (scope in levels) throw validationError({ scopes: [`scope "${scope}" is given twice`] });
    levels[scope] = access;
  }
  return levels;
}

const ApiScopeLevelsRef = builder.objectRef<ScopeName>('ApiScopeLevels').implement({
  subGraphs: ['admin'],
  description: 'A scope and the access levels a custom key may have in it (No Access is always possible)',
  fields: (t) => ({
    scope: t.field({ type: ApiScopeEnum, resolve: (scope) => scope }),
    levels: t.field({ type: [ScopeAccessEnum], resolve: (scope) => [...scopeLevels[scope]] }),
    description: t.string({ description: 'What the scope allows', resolve: (scope) => scopeDescriptions[scope] }),
  }),
});

builder.queryFields((t) => ({
  api_scopes: t.field({
    subGraphs: ['admin'],
    type: [ApiScopeLevelsRef],
    description: 'Every scope of the public API with the levels it has (spec section 5)',
    resolve: () => scopeNames,
  }),
  api_keys: t.field({
    subGraphs: ['admin'],
    type: [ApiKeyRef],
    description: 'Every API key of the merchant, revoked ones included, newest first',
    resolve: (_root, _args, ctx) => listApiKeys(ctx.db, ctx.merchantId),
  }),
}));

builder.mutationFields((t) => ({
  create_api_key: t.field({
    subGraphs: ['admin'],
    type: CreatedApiKeyRef,
    description: 'Full Access, Read-Only, or Custom (per scope none / read / write where the scope allows it)',
    args: {
      type: t.arg({ type: ApiKeyTypeEnum, required: true }),
      name: t.arg.string(),
      scopes: t.arg({ type: [ApiKeyScopeInput], description: 'Custom keys only' }),
    },
    resolve: (_root, args, ctx) => {
      const input = parseInput(createKeyArgs, args);
      return createApiKey(ctx.db, {
        merchantId: ctx.merchantId,
        type: input.type,
        name: input.name ?? undefined,
        levels: levelsOf(input),
      });
    },
  }),
  revoke_api_key: t.field({
    subGraphs: ['admin'],
    type: ApiKeyRef,
    description: 'Revokes the key at once: its next request is 401 invalid_token. Revoking twice changes nothing.',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => revokeApiKey(ctx.db, ctx.merchantId, String(args.id)),
  }),
}));
