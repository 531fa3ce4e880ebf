// Placeholder for the merchant admin GraphQL API (/admin/graphql); replaced by its owner.
import { createSchema, createYoga } from 'graphql-yoga';
import type { Db } from '../db/client.js';

export const ADMIN_PATH = '/admin/graphql';

export function createAdminServer(_opts: { db: Db }) {
  return createYoga({
    graphqlEndpoint: ADMIN_PATH,
    schema: createSchema({ typeDefs: 'type Query { ok: Boolean }' }),
  });
}
