// `npm run clients:generate -- <dir>`: typed clients from the committed API documents, with
// the ecosystem's usual tools, into <dir> (default ./loyalty-client):
// - <dir>/loyalty-api.ts: a fetch client for REST v1 from openapi.json (swagger-typescript-api;
//   openapi-typescript needs TypeScript's JavaScript API, which TypeScript 7 no longer has);
// - <dir>/graphql-env.d.ts and <dir>/graphql.ts: gql.tada's introspection of schema.graphql
//   and its `graphql()` tag, which types each document's result and variables. What
//   `gql.tada generate-output` writes; its CLI reads tsconfig.json through TypeScript's
//   JavaScript API too, so with TypeScript 7 the same output is written here directly.
import { spawnSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { minifyIntrospection, outputIntrospectionFile } from 'gql.tada/internal';
import { buildSchema, introspectionFromSchema } from 'graphql';

const root = path.resolve(import.meta.dirname, '..');

export async function generateClients(dir: string) {
  await mkdir(dir, { recursive: true });
  const rest = spawnSync(
    process.execPath,
    [
      path.join(root, 'node_modules/swagger-typescript-api/dist/cli.mjs'),
      'generate',
      '--path',
      path.join(root, 'openapi.json'),
      '--output',
      dir,
      '--name',
      'loyalty-api.ts',
      '--enum-style=union',
      '--silent',
    ],
    { encoding: 'utf8' },
  );
  if (rest.status !== 0) throw new Error(`swagger-typescript-api failed:\n${rest.stderr}${rest.stdout}`);

  const schema = buildSchema(await readFile(path.join(root, 'schema.graphql'), 'utf8'));
  const introspection = outputIntrospectionFile(minifyIntrospection(introspectionFromSchema(schema)), {
    fileType: '.d.ts',
    shouldPreprocess: true,
  });
  await writeFile(path.join(dir, 'graphql-env.d.ts'), introspection);
  await writeFile(
    path.join(dir, 'graphql.ts'),
    [
      "import { initGraphQLTada } from 'gql.tada';",
      "import type { introspection } from './graphql-env.d.ts';",
      '',
      'export const graphql = initGraphQLTada<{',
      '  introspection: introspection;',
      '  scalars: { DateTime: string; Date: string };',
      '}>();',
      "export type { FragmentOf, ResultOf, VariablesOf } from 'gql.tada';",
      '',
    ].join('\n'),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = path.resolve(process.argv[2] ?? 'loyalty-client');
  await generateClients(dir);
  console.log(`wrote ${path.join(dir, 'loyalty-api.ts')}, graphql-env.d.ts and graphql.ts`);
}
