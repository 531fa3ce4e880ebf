// GraphQL answers with data are 200. An error's `http.status` (403 insufficient_scope, 404,
// 422...) decides the status when the operation failed as a whole (`data` is null: every root
// field is non-null); when only a nullable field failed, such as a graph link the key lacks
// the scope for, the rest of the answer stands and the client reads the error from `errors`.
// GraphQL requests only: REST answers keep their statuses.
import type { ExecutionResult } from 'graphql';
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { requestState } from '../request-state.js';

function withoutStatus(error: GraphQLError): GraphQLError {
  const http = error.extensions?.http as { status?: number } | undefined;
  if (!http?.status) return error;
  const { status: _status, ...rest } = http;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...error.extensions, http: rest },
  });
}

export function usePartialData(): Plugin {
  return {
    onResultProcess({ result, setResult, serverContext }) {
      if (requestState(serverContext).kind !== 'graphql') return;
      if (Array.isArray(result) || Symbol.asyncIterator in result) return;
      const single = result as ExecutionResult;
      if (single.data == null || !single.errors?.length) return;
      setResult({ ...single, errors: single.errors.map(withoutStatus) });
    },
  };
}
