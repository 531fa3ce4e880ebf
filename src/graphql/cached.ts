// What a storefront answer depends on, so that it can be kept and served again exactly
// (src/http/plugins/response-cache.ts). Each root field that may be cached declares it: the
// merchant's program alone (`cachedByProgram`), or the program and the customer its arguments
// or the customer session name (`cachedByCustomer`). A field reaches nothing else: the links of
// a customer are its own records and the program (a referral's referee platform id excepted,
// which the database handles: migration answer_revisions). A document is cached only when every
// root field it selects declares one, and it selects one at least. What changes with the clock
// alone (a code expiring, a booster starting) is noted by the field that reads the clock
// (`changesAt`).
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
  let reads = false;
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
        reads = true;
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
  // a document of `__typename` alone reads nothing: running it costs less than reading the revisions
  return visit(operation.selectionSet) && reads ? found : null;
}

/**
 * How a cacheable operation names its customers, with every variable default resolved: what
 * the customers named are follows from the request's variables alone, without the document.
 */
export type AnswerPlan = { kinds: (keyof NamedCustomers)[]; variable?: string; value: unknown }[];

const plans = new WeakMap<DocumentNode, Map<string, AnswerPlan | null>>();

/**
 * The plan of an operation whose answer may be kept; null when it may not. Kept per parsed
 * document (Yoga hands back the same one for the same text).
 */
export function answerPlan(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): AnswerPlan | null {
  let byOperation = plans.get(document);
  if (!byOperation) plans.set(document, (byOperation = new Map()));
  const name = operationName ?? '';
  let plan = byOperation.get(name);
  if (plan === undefined) {
    const naming = namingArguments(schema, document, operationName);
    const defaults = getOperationAST(document, operationName)?.variableDefinitions ?? [];
    plan =
      naming?.map(({ kinds, value }) => {
        if (value.kind !== Kind.VARIABLE) return { kinds, value: valueFromASTUntyped(value) };
        const variable = value.name.value;
        const fallback = defaults.find((d) => d.variable.name.value === variable)?.defaultValue;
        return { kinds, variable, value: fallback ? valueFromASTUntyped(fallback) : undefined };
      }) ?? null;
    byOperation.set(name, plan);
  }
  return plan;
}

/** The customers an answer depends on, by the identifiers the plan's arguments give them (a session's own is added by the caller). */
export function customersNamed(plan: AnswerPlan, variables: Record<string, unknown> | null | undefined): NamedCustomers {
  const named: NamedCustomers = { ids: [], platformIds: [], emails: [] };
  for (const { kinds, variable, value } of plan) {
    const given = variable === undefined ? value : (variables?.[variable] ?? value);
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
