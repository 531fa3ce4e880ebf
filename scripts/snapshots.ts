// The committed API descriptions: schema.graphql (public GraphQL), openapi.json (REST v1,
// as SOFA serves it at /v1/openapi.json) and admin.graphql, with the admin schema's types for
// the admin app's typed GraphQL documents (gql.tada's introspection file). Tests compare them with the
// code; `npm run schema:write` rewrites them deliberately.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { minifyIntrospection, outputIntrospectionFile } from 'gql.tada/internal';
import { introspectionFromSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { loadConfig } from '../src/config.js';
import { createPrisma } from '../src/db/client.js';
import { adminSchema } from '../src/graphql/admin.js';
import { schema } from '../src/graphql/public.js';
import { createApp } from '../src/http/app.js';

const root = path.resolve(import.meta.dirname, '..');

export const snapshotFiles = {
  'schema.graphql': async () => `${printSchema(lexicographicSortSchema(schema))}\n`,
  'admin.graphql': async () => `${printSchema(lexicographicSortSchema(adminSchema))}\n`,
  'admin-app/src/graphql-env.d.ts': async () =>
    outputIntrospectionFile(minifyIntrospection(introspectionFromSchema(lexicographicSortSchema(adminSchema))), {
      fileType: '.d.ts',
      shouldPreprocess: true,
    }),
  'openapi.json': async () => {
    // no query runs: the client is never connected
    const app = createApp({
      db: createPrisma('postgresql://unused@127.0.0.1:1/unused'),
      config: loadConfig({ ...process.env, LOG_LEVEL: 'silent', RATE_LIMIT_PER_KEY: '0', RATE_LIMIT_PER_MERCHANT: '0' }),
    });
    const res = await app.fetch('http://localhost/v1/openapi.json');
    return `${JSON.stringify(await res.json(), null, 2)}\n`;
  },
} as const;

export async function readSnapshot(name: keyof typeof snapshotFiles) {
  return readFile(path.join(root, name), 'utf8').catch(() => '');
}

export async function writeSnapshots() {
  for (const [name, render] of Object.entries(snapshotFiles)) {
    await writeFile(path.join(root, name), await render());
    console.log(`wrote ${name}`);
  }
}
