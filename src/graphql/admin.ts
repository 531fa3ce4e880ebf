// The merchant admin schema (/admin/graphql): the graph's admin face. Never exposed as REST.
import { GraphQLObjectType, type GraphQLSchema } from 'graphql';
import { withAudit } from './audit.js';
import { faceSchema, withRootTypes } from './graph.js';

const ADMIN_PREFIX = /^admin_/;

/**
 * One builder cannot hold two Query fields of one name, and seven admin root fields share
 * theirs with a public field that takes other arguments and answers otherwise (customers,
 * customer, rewards, earning_rules, tiers, booster_campaigns, referral_program). They are
 * declared as `admin_<name>` and served here under their own name: Pothos (and its sub-graph
 * plugin) has no field name per sub-graph.
 */
function withAdminRootNames(schema: GraphQLSchema): GraphQLSchema {
  return withRootTypes(schema, {
    query: (type) => {
      const query = type.toConfig();
      const fields = Object.fromEntries(Object.entries(query.fields).map(([name, field]) => [name.replace(ADMIN_PREFIX, ''), field]));
      if (Object.keys(fields).length < Object.keys(query.fields).length) {
        throw new Error('An admin_<name> root field clashes with an admin root field <name>');
      }
      return new GraphQLObjectType({ ...query, fields });
    },
  });
}

// every admin change is audited (graphql/audit.ts)
export const adminSchema = withAudit(withAdminRootNames(faceSchema('admin')));
