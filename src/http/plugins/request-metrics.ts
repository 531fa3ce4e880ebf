// Each answer counted and timed for /metrics, by face, route (REST) or operation name
// (GraphQL), method and status. Operation names are the client's words: only the first
// MAX_OPERATIONS distinct names get a label of their own, so a client cannot grow the
// metrics without bound.
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { requestDuration, requests } from '../../observability/metrics.js';
import { type RequestState, requestState } from '../request-state.js';

const MAX_OPERATIONS = 100;
const OPERATION_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,63}$/;

export function useRequestMetrics(face: 'public' | 'admin'): Plugin {
  const operations = new Set<string>();
  const routeOf = (state: RequestState) => {
    if (state.route) return state.route.route.path;
    const name = state.operationName;
    if (!name || !OPERATION_NAME.test(name)) return state.kind === 'graphql' ? 'anonymous' : state.kind;
    if (operations.size < MAX_OPERATIONS) operations.add(name);
    return operations.has(name) ? name : 'other';
  };
  return {
    onExecute({ args }) {
      const state = requestState(args.contextValue as object);
      if (!state.route) state.operationName = getOperationAST(args.document, args.operationName)?.name?.value;
    },
    onResponse({ request, response, serverContext }) {
      const state = requestState(serverContext);
      const labels = { face: face === 'admin' ? 'admin' : state.kind, route: routeOf(state), method: request.method };
      // a literal of its own, not `{ ...labels, status }`: V8 made a new hidden class for each such copy
      requests.inc({ face: labels.face, route: labels.route, method: labels.method, status: String(response.status) });
      requestDuration.observe(labels, (performance.now() - state.startedAt) / 1000);
    },
  };
}
