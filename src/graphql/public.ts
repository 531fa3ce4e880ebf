// The public schema: /graphql serves the public face with the graph's links; REST /v1 (SOFA)
// serves the public face alone, so its answers never gain a link (src/graphql/links.ts).
import { faceSchema } from './graph.js';

export const schema = faceSchema(['public', 'graph']);

export const restSchema = faceSchema('public');
