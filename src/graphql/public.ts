// The public schema (/graphql and, through SOFA, REST /v1): the graph's public face.
import { faceSchema } from './graph.js';

export const schema = faceSchema('public');
