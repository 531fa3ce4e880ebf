// Limits on GraphQL requests and documents, for every GraphQL face (REST runs fixed documents
// and never reaches these hooks): parameters that are not JSON (400 BAD_REQUEST), a body
// GraphQL cannot read (415); depth, cost, aliases, tokens and directives, each refusal with
// its code (domain/shared/errors.ts); no operation the schema has no root type for (no
// subscriptions); no field suggestions; and introspection when configured off. Apart from
// the request's parameters, validation-phase plugins: a refused document reports GraphQL
// validation errors (400 for application/graphql-response+json, 200 for application/json).
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { useDisableIntrospection } from '@graphql-yoga/plugin-disable-introspection';
import { type ASTVisitor, GraphQLError, type ValidationContext } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { AppError, type documentLimitCodes } from '../../domain/shared/errors.js';
import { badRequest, documentLimitError, toGraphQLError } from '../errors.js';

type Reject = NonNullable<NonNullable<NonNullable<Parameters<typeof EnvelopArmorPlugin>[0]>['maxDepth']>['onReject']>[number];

/** A limit's refusal, as a validation error with the limit's code (graphql-armor would throw it, uncoded). */
const refuse = (code: (typeof documentLimitCodes)[number]) => ({
  propagateOnRejection: false,
  onReject: [((context, err) => context?.reportError(documentLimitError(code, err.message))) as Reject],
});

/**
 * The spec's "Operation Type Existence" rule (graphql-js 17's KnownOperationTypesRule): the
 * schema has no subscription type, and an executor asked to run one fails as a 500.
 */
function KnownOperationTypes(context: ValidationContext): ASTVisitor {
  const schema = context.getSchema();
  return {
    OperationDefinition(node) {
      if (!schema.getRootType(node.operation)) {
        context.reportError(new GraphQLError(`The ${node.operation} operation is not supported by the schema.`, { nodes: node }));
      }
    },
  };
}

const useKnownOperationTypes: Plugin<Record<string, unknown>> = {
  onValidate({ addValidationRule }) {
    addValidationRule(KnownOperationTypes);
  },
};

type RequestParser = (request: Request) => unknown;
const isThenable = (value: unknown): value is PromiseLike<unknown> => typeof (value as PromiseLike<unknown>)?.then === 'function';
/** Requests whose parameters Yoga reads from a query string (the URL's, or a form body's). */
const FORM = /^application\/x-www-form-urlencoded\b/i;

const notJson = (err: unknown): never => {
  if (err instanceof SyntaxError) throw badRequest(`The variables and extensions parameters must be JSON (${err.message})`);
  throw err;
};

/**
 * Yoga reads a GET's (or a form's) parameters with JSON.parse and lets its SyntaxError through,
 * a 500: here it is 400 BAD_REQUEST, as Yoga answers a POST body that is not JSON. A POST no
 * parser reads (Yoga: 415 without a body) is 415 unsupported_media_type in GraphQL's shape.
 */
const useRequestParameters: Plugin<Record<string, unknown>> = {
  onRequestParse({ request, requestParser, setRequestParser }) {
    if (!requestParser) {
      if (request.method !== 'POST') return;
      const type = request.headers.get('content-type');
      throw toGraphQLError(new AppError('unsupported_media_type', `Send the request as application/json${type ? `, not ${type}` : ''}`));
    }
    if (request.method !== 'GET' && !FORM.test(request.headers.get('content-type') ?? '')) return;
    const parse = requestParser as RequestParser;
    setRequestParser(((req: Request) => {
      try {
        const params = parse(req);
        // a form's parser reads the body first: a promise (whatwg-node's)
        return isThenable(params) ? params.then(undefined, notJson) : params;
      } catch (err) {
        return notJson(err);
      }
    }) as typeof requestParser);
  },
};

/** The cost limit and how it counts (graphql-armor's defaults otherwise); cost-report.ts reports the same count. */
export const COST_LIMIT = { maxCost: 5000 } as const;

export function graphqlLimits({ introspection }: { introspection: boolean }): Plugin<Record<string, unknown>>[] {
  return [
    useRequestParameters,
    EnvelopArmorPlugin({
      maxDepth: { n: 8, ...refuse('query_too_deep') },
      costLimit: { ...COST_LIMIT, ...refuse('query_too_costly') },
      maxAliases: { n: 15, ...refuse('too_many_aliases') },
      // counted while parsing: no validation context to report to, so the refusal is thrown
      maxTokens: {
        n: 2000,
        onReject: [
          (_context, err) => {
            throw documentLimitError('too_many_tokens', err.message);
          },
        ],
      },
      maxDirectives: { n: 20, ...refuse('too_many_directives') },
      blockFieldSuggestion: { enabled: true },
    }),
    useKnownOperationTypes,
    ...(introspection ? [] : [useDisableIntrospection()]),
  ];
}
