// The audit of the admin face, in one place: every root Mutation field of the admin schema is
// wrapped so that a change that succeeds is recorded (domain/audit) with who made it (the
// admin token's prefix or the admin session's id), what (the mutation and its arguments),
// the resource before and after (read as stored, by the resource's reader), and when.
// Mutations other parts add are covered as they are: nothing here names them.
import { GraphQLObjectType, type GraphQLFieldConfig, type GraphQLSchema, defaultFieldResolver, getNamedType } from 'graphql';
import { auditResourceType, readResource, recordAudit } from '../domain/audit/audit.js';
import { scrubValues } from '../domain/audit/redact.js';
import { ERASED, needlesOf } from '../domain/privacy/erasure.js';
import type { Context } from './builder.js';

type Row = Record<string, unknown> | null;

/** The id a mutation's result names its resource by (`id`, or its customer's). */
function idOfResult(result: unknown): string | null {
  const r = result as { id?: unknown; customer?: { id?: unknown } } | null;
  const id = r?.id ?? r?.customer?.id;
  return typeof id === 'string' ? id : null;
}

type Customerish = { platformId: string; email: string; firstName: string | null; lastName: string | null; erasedAt?: Date | null };

function audited(action: string, returnType: string, field: GraphQLFieldConfig<unknown, Context>): GraphQLFieldConfig<unknown, Context> {
  const resolve = field.resolve ?? defaultFieldResolver;
  const type = auditResourceType(returnType);
  return {
    ...field,
    resolve: async (root, args: Record<string, unknown>, ctx, info) => {
      const named = typeof args.id === 'string' || typeof args.id === 'number' ? String(args.id) : null;
      let before = (await readResource(ctx.db, ctx.merchantId, type, named)) as Row;
      const result = await resolve(root, args, ctx, info);
      const id = (before?.id as string | undefined) ?? idOfResult(result) ?? named;
      const after = (await readResource(ctx.db, ctx.merchantId, type, id)) as Row;
      let recordedArgs: unknown = args;
      // an erasure must not keep what it erased: the person's identifiers leave this row too
      const erased = type === 'Customer' && before && !(before as Customerish).erasedAt && (after as Customerish | null)?.erasedAt;
      if (erased) {
        const needles = needlesOf(before as Customerish);
        before = scrubValues(before, needles, ERASED) as Row;
        recordedArgs = scrubValues(args, needles, ERASED);
      }
      await recordAudit(ctx.db, {
        merchantId: ctx.merchantId,
        actor: ctx.actor ?? 'unknown',
        action,
        resourceType: type,
        resourceId: (after?.id as string | undefined) ?? id,
        args: recordedArgs,
        before,
        // a result with no stored resource behind it (an event's outcome) is the "after"
        after: after ?? (before ? null : result),
      });
      return result;
    },
  };
}

/** The schema with every Mutation field audited. */
export function withAudit(schema: GraphQLSchema): GraphQLSchema {
  const mutation = schema.getMutationType();
  if (!mutation) return schema;
  const config = mutation.toConfig();
  const fields = Object.fromEntries(
    Object.entries(config.fields).map(([name, field]) => [name, audited(name, getNamedType(field.type).name, field)]),
  );
  const wrapped = new GraphQLObjectType({ ...config, fields });
  const schemaConfig = schema.toConfig();
  return new (schema.constructor as typeof GraphQLSchema)({
    ...schemaConfig,
    mutation: wrapped,
    types: schemaConfig.types.map((t) => (t === mutation ? wrapped : t)),
  });
}
