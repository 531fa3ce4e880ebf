// The whole graph: every module that declares types and fields, imported once for both faces.
// The order of these imports is the order of declaration, which is the order of the public
// schema's types and root fields: SOFA lists the OpenAPI document's components and paths in
// that order, and openapi.json (the REST contract) is snapshot-tested.
import { PothosSubGraphPlugin } from '@pothos/plugin-sub-graph';
import { type GraphQLObjectType, GraphQLSchema } from 'graphql';
import { builder } from './builder.js';
import './scalars.js';
import './enums.js';
import './envelopes.js';
import './types/api-keys.js';
import './types/customers.js';
import './types/activities.js';
import './types/boosters.js';
import './types/rewards.js';
import './types/customer-rewards.js';
import './types/earning-rules.js';
import './types/estimate.js';
import './types/events.js';
import './types/merchant.js';
import './types/referrals.js';
import './types/tiers.js';
import './types/transactions.js';
import './types/dashboard.js';
import './types/liability.js';
import './types/order-periods.js';
import './types/valuation.js';
import './types/replay.js';
import './types/webhooks.js';
import './types/privacy.js';
import './types/audit.js';
import './types/customer-sessions.js';
import './types/storefront-keys.js';
import './types/events-feed.js';
import './types/program-import.js';

/**
 * The whole graph, built once. Each face is filtered from it by the sub-graph plugin's own
 * filter, which is what `toSchema({ subGraph })` runs after a whole build of its own: three
 * builds fewer at start-up (npm run bench measures the start-up).
 */
const whole = builder.toSchema({ sortSchema: false });
const declarationOrder = Object.keys(whole.getTypeMap());

/** One face of the graph. The sub-graph plugin lists a face's types in the order its root
 * fields reach them; this keeps the order they were declared in. */
export function faceSchema(face: 'public' | 'admin' | ('public' | 'graph')[]): GraphQLSchema {
  const config = PothosSubGraphPlugin.createSubGraph(whole, face, builder).toConfig();
  const rank = (name: string) => declarationOrder.indexOf(name);
  return new GraphQLSchema({ ...config, types: [...config.types].sort((a, b) => rank(a.name) - rank(b.name)) });
}

type RootType = (type: GraphQLObjectType) => GraphQLObjectType;

/** The schema with its Query and/or Mutation type replaced by what `replace` makes of it. */
export function withRootTypes(schema: GraphQLSchema, replace: { query?: RootType; mutation?: RootType }): GraphQLSchema {
  const config = schema.toConfig();
  const query = config.query && replace.query ? replace.query(config.query) : config.query;
  const mutation = config.mutation && replace.mutation ? replace.mutation(config.mutation) : config.mutation;
  return new GraphQLSchema({
    ...config,
    query,
    mutation,
    types: config.types.map((type) => (type === config.query ? query! : type === config.mutation ? mutation! : type)),
  });
}
