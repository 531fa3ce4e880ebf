// The public schema: /graphql serves the public face with the graph's links; REST /v1 (SOFA)
// serves the public face alone, so its answers never gain a link (src/graphql/links.ts).
import { GraphQLObjectType, type GraphQLSchema, type ObjectTypeDefinitionNode, parse, printType } from 'graphql';
import { faceSchema, withRootTypes } from './graph.js';

export const schema = faceSchema(['public', 'graph']);

/**
 * The schema with its root types' SDL as their AST nodes, as a schema written in SDL has them.
 * SOFA reads each route argument's description from its root type's AST; a built schema has
 * none, so it printed and parsed the whole root type again for every argument of every route
 * (90 ms of start-up, bench/README.md).
 */
function withRootTypeAst(face: GraphQLSchema): GraphQLSchema {
  const withAst = (type: GraphQLObjectType) =>
    new GraphQLObjectType({ ...type.toConfig(), astNode: parse(printType(type)).definitions[0] as ObjectTypeDefinitionNode });
  return withRootTypes(face, { query: withAst, mutation: withAst });
}

export const restSchema = withRootTypeAst(faceSchema('public'));
