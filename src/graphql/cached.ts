// What a storefront answer depends on, so that it can be kept and served again exactly
// (src/http/plugins/response-cache.ts). Each root field that may be cached declares it: the
// merchant's program alone (`cachedByProgram`), or the program and the customer its arguments
// or the customer session name (`cachedByCustomer`). A field reaches nothing else: the links of
// a customer are its own records and the program (a referral's referee platform id excepted,
// which the database handles: migration answer_revisions). A document is cached only when every
// root field it selects declares one. What changes with the clock alone (a code expiring, a
// booster starting) is noted by the field that reads the clock (`changesAt`).
import {
  type DocumentNode,
  type GraphQLSchema,
  getOperationAST,
  Kind,
  type SelectionSetNode,
  type ValueNode,
  valueFromASTUntyped,
} from 'graphql';
import type { NamedCustomers } from '../domain/storefront/revisions.js';
import type { Context } from './builder.js';

type CachedBy = 'program' | 'customer';

/** Field options: the answer depends on the merchant's program only. */
export const cachedByProgram = { extensions: { cachedBy: 'program' satisfies CachedBy } };
/** Field options: the answer depends on the program and the customer named by `id`, `customer_id` or `email` (or the session). */
export const cachedByCustomer = { extensions: { cachedBy: 'customer' satisfies CachedBy } };

/** The arguments that name a customer (customer-args.ts), and which identifiers each may be. */
const NAMING: Record<string, (keyof NamedCustomers)[]> = {
  id: ['ids', 'platformIds'],
  customer_id: ['platformIds'],
  email: ['emails'],
};

/** An argument naming a customer, as the document writes it: a literal or a variable. */
type Naming = { kinds: (keyof NamedCustomers)[]; value: ValueNode };

/** A cacheable operation's customer-naming arguments; null when some root field is not cacheable. */
function namingArguments(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null): Naming[] | null {
  const operation = getOperationAST(document, operationName);
  const query = schema.getQueryType();
  if (operation?.operation !== 'query' || !query) return null;
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d]] : [])));
  const fields = query.getFields();
  const found: Naming[] = [];
  const seen = new Set<string>();
  const visit = (set: SelectionSetNode): boolean => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (!visit(selection.selectionSet)) return false;
      } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value);
        if (!fragment || seen.has(fragment.name.value)) continue;
        seen.add(fragment.name.value);
        if (!visit(fragment.selectionSet)) return false;
      } else if (selection.name.value !== '__typename') {
        const cachedBy = fields[selection.name.value]?.extensions?.cachedBy as CachedBy | undefined;
        if (!cachedBy) return false;
        if (cachedBy === 'customer') {
          for (const arg of selection.arguments ?? []) {
            const kinds = NAMING[arg.name.value];
            if (kinds) found.push({ kinds, value: arg.value });
          }
        }
      }
    }
    return true;
  };
  return visit(operation.selectionSet) ? found : null;
}

const plans = new WeakMap<DocumentNode, Map<string, Naming[] | null>>();

/**
 * The customers a query's answer depends on, by the identifiers its arguments give them (a
 * session's own customer is added by the caller); null when the operation may not be cached.
 * The document's analysis is kept per parsed document (Yoga hands back the same one for the same text).
 */
export function customersNamed(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | null | undefined,
): NamedCustomers | null {
  let byOperation = plans.get(document);
  if (!byOperation) plans.set(document, (byOperation = new Map()));
  const name = operationName ?? '';
  let naming = byOperation.get(name);
  if (naming === undefined) byOperation.set(name, (naming = namingArguments(schema, document, operationName)));
  if (!naming) return null;
  const defaults = getOperationAST(document, operationName)?.variableDefinitions ?? [];
  const named: NamedCustomers = { ids: [], platformIds: [], emails: [] };
  for (const { kinds, value } of naming) {
    let given: unknown;
    if (value.kind === Kind.VARIABLE) {
      const variable = value.name.value;
      const fallback = defaults.find((d) => d.variable.name.value === variable)?.defaultValue;
      given = variables?.[variable] ?? (fallback ? valueFromASTUntyped(fallback) : undefined);
    } else {
      given = valueFromASTUntyped(value);
    }
    if (typeof given !== 'string' && typeof given !== 'number') continue;
    for (const kind of kinds) named[kind].push(String(given));
  }
  return named;
}

/** The instant a cached answer stops being true by the clock alone, as the fields computing it note it. */
export interface AnswerLife {
  until: number;
}

/** Notes that the value being answered changes at `at` with no write (when the answer may be cached). */
export function changesAt(ctx: Context, at: Date | null | undefined) {
  if (at && ctx.answerLife && at.getTime() < ctx.answerLife.until) ctx.answerLife.until = at.getTime();
}
