// The public contract our clients pin: schema.graphql (GraphQL) and openapi.json (REST v1),
// compared with the last released copies in api/released/. A breaking change (a client's
// working request that would fail or read something else) may ship only when CHANGELOG.md
// names it under "## Unreleased"; `npm run contract:release` makes the current contract the
// released one (with a version heading in the CHANGELOG).
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CriticalityLevel, diff } from '@graphql-inspector/core';
import { buildSchema } from 'graphql';

const root = path.resolve(import.meta.dirname, '..');
const read = (file: string) => readFile(path.join(root, file), 'utf8');

export interface BreakingChange {
  /** What a CHANGELOG entry must name, in backticks: a GraphQL path or `METHOD /path`. */
  subject: string;
  message: string;
}

/** The released and current text of a contract file (schema.graphql or openapi.json). */
export const contractFiles = (file: 'schema.graphql' | 'openapi.json') => Promise.all([read(`api/released/${file}`), read(file)]);

export async function breakingGraphQLChanges(released: string, current: string): Promise<BreakingChange[]> {
  const changes = await diff(buildSchema(released), buildSchema(current));
  return changes
    .filter((c) => c.criticality.level === CriticalityLevel.Breaking)
    .map((c) => ({ subject: c.path ?? c.message, message: c.message }));
}

type Json = Record<string, any>;

/** REST: removed operations, parameters or response fields, new required inputs, changed types. */
export function breakingRestChanges(releasedText: string, currentText: string): BreakingChange[] {
  const [released, current] = [releasedText, currentText].map((text) => JSON.parse(text) as Json);
  const found: BreakingChange[] = [];
  const resolve = (doc: Json, schema: Json | undefined): Json | undefined =>
    schema?.$ref ? resolve(doc, doc.components.schemas[schema.$ref.split('/').pop()]) : schema;
  // OpenAPI 3.1's null: `type: [t, "null"]`, or `anyOf: [schema, {type: "null"}]`
  const withoutNull = (doc: Json, schema: Json | undefined): { schema?: Json; nullable: boolean } => {
    const branches = schema?.anyOf as Json[] | undefined;
    if (branches?.length === 2 && branches.some((b) => b.type === 'null')) {
      return {
        schema: resolve(
          doc,
          branches.find((b) => b.type !== 'null'),
        ),
        nullable: true,
      };
    }
    const resolved = resolve(doc, schema);
    if (!Array.isArray(resolved?.type)) return { schema: resolved, nullable: false };
    const types = resolved.type.filter((t: string) => t !== 'null');
    return { schema: { ...resolved, type: types.length === 1 ? types[0] : types }, nullable: types.length < resolved.type.length };
  };
  const compareOutput = (subject: string, before: Json | undefined, after: Json | undefined, where: string, depth = 0) => {
    const [was, now] = [withoutNull(released!, before), withoutNull(current!, after)];
    const [b, a] = [was.schema, now.schema];
    if (!b || depth > 6) return;
    if (!a) return void found.push({ subject, message: `${where} was removed` });
    if (now.nullable && !was.nullable) found.push({ subject, message: `${where} may now be null` });
    if (String(b.type) !== String(a.type))
      return void found.push({ subject, message: `${where} changed type from ${b.type} to ${a.type}` });
    for (const [name, schema] of Object.entries((b.properties ?? {}) as Json)) {
      compareOutput(subject, schema, a.properties?.[name], `${where}.${name}`, depth + 1);
    }
    if (b.items) compareOutput(subject, b.items, a.items, `${where}[]`, depth + 1);
  };
  for (const [p, operations] of Object.entries(released!.paths as Json)) {
    for (const [method, op] of Object.entries(operations as Json)) {
      const subject = `${method.toUpperCase()} ${p}`;
      const now = current!.paths?.[p]?.[method];
      if (!now) {
        found.push({ subject, message: 'the operation was removed' });
        continue;
      }
      const params = (o: Json) => new Map<string, Json>((o.parameters ?? []).map((x: Json) => [`${x.in}:${x.name}`, x]));
      const [before, after] = [params(op), params(now)];
      for (const [key, param] of after) {
        if (param.required && !before.get(key)?.required) found.push({ subject, message: `parameter ${key} is now required` });
      }
      for (const key of before.keys()) if (!after.has(key)) found.push({ subject, message: `parameter ${key} was removed` });
      const body = (o: Json) => resolve(o === op ? released! : current!, o.requestBody?.content?.['application/json']?.schema);
      const newlyRequired = (body(now)?.required ?? []).filter((n: string) => !(body(op)?.required ?? []).includes(n));
      for (const name of newlyRequired) found.push({ subject, message: `body field ${name} is now required` });
      for (const [status, response] of Object.entries((op.responses ?? {}) as Json)) {
        const schemaOf = (r: Json | undefined) => r?.content?.['application/json']?.schema;
        if (!response.content) continue;
        compareOutput(subject, schemaOf(response), schemaOf(now.responses?.[status]), `response ${status}`);
      }
    }
  }
  return found;
}

/** The text of CHANGELOG.md's "## Unreleased" section. */
export async function unreleasedNotes(): Promise<string> {
  const text = await read('CHANGELOG.md');
  return /^## Unreleased\s*$([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(text)?.[1] ?? '';
}

export async function releaseContract(version: string) {
  const changelog = await read('CHANGELOG.md');
  const date = new Date().toISOString().slice(0, 10);
  await writeFile(path.join(root, 'CHANGELOG.md'), changelog.replace(/^## Unreleased\s*$/m, `## Unreleased\n\n## ${version} (${date})`));
  for (const file of ['schema.graphql', 'openapi.json']) await writeFile(path.join(root, 'api/released', file), await read(file));
  console.log(`released ${version}: api/released/ now holds the current contract`);
}

if (process.argv[1] === import.meta.filename) {
  const version = process.argv[2];
  if (!version) {
    console.error('usage: npm run contract:release -- <version>');
    process.exit(1);
  }
  await releaseContract(version);
}
