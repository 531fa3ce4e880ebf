// The audit of the admin face, in one place: every root Mutation field of the admin schema is
// wrapped so that a change that succeeds is recorded (domain/audit) with who made it (the
// admin token's prefix or the admin session's id), what (the mutation and its arguments),
// the resource before and after (read as stored, by the resource's reader), and when.
// Mutations other parts add are covered as they are: nothing here names them.
import {
  defaultFieldResolver,
  type GraphQLFieldConfig,
  type GraphQLFieldResolver,
  GraphQLObjectType,
  type GraphQLSchema,
  getNamedType,
} from 'graphql';
import { audited, auditResourceType } from '../domain/audit/audit.js';
import type { Context } from './builder.js';
import { withRootTypes } from './graph.js';

const wrapped = new WeakSet<GraphQLFieldResolver<unknown, Context>>();

/** Whether a resolver records its changes (every admin Mutation field's does). */
export const isAudited = (resolve: unknown) => wrapped.has(resolve as GraphQLFieldResolver<unknown, Context>);

function auditedField(
  action: string,
  returnType: string,
  field: GraphQLFieldConfig<unknown, Context>,
): GraphQLFieldConfig<unknown, Context> {
  const resolve = field.resolve ?? defaultFieldResolver;
  const type = auditResourceType(returnType);
  const auditedResolve: GraphQLFieldResolver<unknown, Context> = (root, args: Record<string, unknown>, ctx, info) =>
    audited(
      ctx.db,
      {
        merchantId: ctx.merchantId,
        actor: ctx.actor ?? 'unknown',
        action,
        type,
        id: typeof args.id === 'string' || typeof args.id === 'number' ? String(args.id) : null,
        args,
      },
      async () => resolve(root, args, ctx, info),
    );
  wrapped.add(auditedResolve);
  return { ...field, resolve: auditedResolve };
}

/** The schema with every Mutation field audited. */
export function withAudit(schema: GraphQLSchema): GraphQLSchema {
  return withRootTypes(schema, {
    mutation: (mutation) => {
      const config = mutation.toConfig();
      const fields = Object.fromEntries(
        Object.entries(config.fields).map(([name, field]) => [name, auditedField(name, getNamedType(field.type).name, field)]),
      );
      return new GraphQLObjectType({ ...config, fields });
    },
  });
}
