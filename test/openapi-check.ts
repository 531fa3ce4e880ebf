// Every REST answer a test receives through the harness is checked against the OpenAPI
// document the service serves (/v1/openapi.json): its status must be one the operation
// documents, its required headers present and each documented header of the right form, and
// its body valid against the status's schema. So any test anywhere fails when the code and the
// published contract drift apart. Requests that are no documented operation (an unknown path,
// another method) are not checked.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

type Json = Record<string, any>;

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const DOCUMENT_ID = 'https://loyalty.test/openapi.json';

interface Operation {
  path: string;
  method: string;
  pattern: RegExp;
  op: Json;
}

export interface ContractCheck {
  /** Throws an Error naming every disagreement between the answer and the document. */
  check(method: string, url: URL, response: Response): Promise<void>;
}

export function contractCheck(doc: Json): ContractCheck {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
  ajv.addFormat('double', { type: 'number', validate: (n: number) => Number.isFinite(n) });
  ajv.addSchema({ ...doc, $id: DOCUMENT_ID });
  const base = new URL(doc.servers?.[0]?.url ?? '/', 'http://x').pathname.replace(/\/$/, '');

  // fixed paths before parameter paths, as the service routes them (/customers/balance before /customers/{id})
  const operations: Operation[] = Object.entries(doc.paths as Record<string, Json>)
    .sort(([a], [b]) => a.split('{').length - b.split('{').length)
    .flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({
        path,
        method: method.toUpperCase(),
        pattern: new RegExp(`^${base}${path.replace(/\{\w+\}/g, '[^/]+')}$`),
        op,
      })),
    );
  const pointerKey = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
  /** The node at a JSON pointer of the document, following a $ref to its target (and its pointer). */
  const at = (pointer: string): { node: Json; pointer: string } => {
    const node = pointer
      .split('/')
      .slice(1)
      .reduce((n: Json, key) => n[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    return node.$ref ? at(node.$ref.slice(1)) : { node, pointer };
  };
  const validators = new Map<string, ValidateFunction>();
  /** The schema at `pointer`, compiled where it stands, so that its $refs resolve against the document. */
  const validator = (pointer: string) => {
    let v = validators.get(pointer);
    if (!v) {
      v = ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
      validators.set(pointer, v);
    }
    return v;
  };

  return {
    async check(method, url, response) {
      const found = operations.find((o) => o.method === method && o.pattern.test(url.pathname));
      if (!found) return;
      const { path } = found;
      const where = `${method} ${url.pathname}${url.search} → ${response.status}`;
      const status = String(response.status);
      if (!found.op.responses[status]) throw new Error(`${where}: status ${status} is not documented for ${method.toLowerCase()} ${path}`);
      const answer = at(`/paths/${pointerKey(path)}/${method.toLowerCase()}/responses/${status}`);
      const problems: string[] = [];
      for (const name of Object.keys(answer.node.headers ?? {})) {
        const spec = at(`${answer.pointer}/headers/${pointerKey(name)}`);
        const value = response.headers.get(name);
        if (value === null) {
          if (spec.node.required) problems.push(`header ${name} is required`);
          continue;
        }
        const v = validator(`${spec.pointer}/schema`);
        if (!v(value)) problems.push(`header ${name}: ${ajv.errorsText(v.errors)}`);
      }
      if (answer.node.content?.['application/json']) {
        const text = await response.clone().text();
        if (!(response.headers.get('content-type') ?? '').startsWith('application/json')) {
          problems.push(`content-type ${response.headers.get('content-type')} is not application/json`);
        }
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          problems.push(`the body is not JSON: ${text.slice(0, 200)}`);
        }
        const v = validator(`${answer.pointer}/content/application~1json/schema`);
        if (body !== undefined && !v(body)) {
          problems.push(`body: ${ajv.errorsText(v.errors, { separator: '\n  ' })}\n  ${text.slice(0, 500)}`);
        }
      }
      if (problems.length > 0) throw new Error(`${where} disagrees with openapi.json:\n  ${problems.join('\n  ')}`);
    },
  };
}
