// `extensions.cost` on every GraphQL answer: what the document asked for, as the cost limit
// (graphql-limits.ts) computes it, the limit, and the budget left in the rate-limit window
// (rate-limit.ts), so a client learns where it stands before it meets a limit. The cost is
// computed by graphql-armor's own rule with the limit's options, once per parsed document
// (Yoga's parser cache hands the same document back for the same text, and its validation
// cache skips the rules on a document seen before, so the limit's own visit cannot be read).
// Answers refused before the document is read (401, 403, 429) carry no cost.
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { type DocumentNode, type ExecutionResult, type GraphQLSchema, Kind, validate } from 'graphql';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import { requestState } from '../request-state.js';
import { COST_LIMIT } from './graphql-limits.js';

/** Each operation's cost, in the document's order (the rule visits them in turn). */
const costs = new WeakMap<DocumentNode, number[]>();

function costsOf(schema: GraphQLSchema, document: DocumentNode): number[] {
  let found = costs.get(document);
  if (!found) {
    const each: number[] = [];
    const rule = costLimitRule({ ...COST_LIMIT, maxCost: Infinity, onAccept: [(_context, { n }) => void each.push(n)] });
    validate(schema, document, [rule]);
    costs.set(document, (found = each));
  }
  return found;
}

/** The cost of the operation a request runs: the named one, or the document's only one. */
function requestedCost(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null): number | null {
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const index = operationName ? operations.findIndex((o) => o.name?.value === operationName) : operations.length === 1 ? 0 : -1;
  return index < 0 ? null : (costsOf(schema, document)[index] ?? null);
}

export function useCostReport(): Plugin {
  return {
    onValidate({ params: { schema, documentAST }, context }) {
      const state = requestState(context);
      const { params } = context as { params?: GraphQLParams };
      state.requestedCost = requestedCost(schema, documentAST, params?.operationName);
    },
    onResultProcess({ result, setResult, serverContext }) {
      const state = requestState(serverContext);
      if (state.kind !== 'graphql' || Array.isArray(result) || Symbol.asyncIterator in result) return;
      const single = result as ExecutionResult;
      const budget = state.rateBudget;
      setResult({
        ...single,
        extensions: {
          ...single.extensions,
          cost: {
            requested: state.requestedCost ?? null,
            limit: COST_LIMIT.maxCost,
            rate_limit: budget
              ? { policy: budget.policy, limit: budget.limit, remaining: budget.remaining, reset_seconds: budget.resetSeconds }
              : null,
          },
        },
      });
    },
  };
}
