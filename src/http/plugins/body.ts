// The request body, read once: REST bodies must be JSON (415), no body may exceed the limit
// (413, refused without buffering it), and no input may hold NUL, which PostgreSQL text
// cannot store (422, naming the fields that hold it). The rest of the pipeline gets a
// request that holds the body, since the original stream is consumed.
import type { Plugin } from 'graphql-yoga';
import { AppError, type ErrorDetails, validationError } from '../../domain/shared/errors.js';
import { checkRequest } from './checks.js';

const JSON_TYPE = /^application\/(.+\+)?json\b/i;
const NUL = '\u0000';
/** NUL written as a GraphQL string escape, inside a query document. */
const NUL_ESCAPE = /\\u0000/i;

export function useBody(limit: number): Plugin {
  return {
    onRequest: checkRequest(({ request, url, state, setRequest, fetchAPI }) => {
      if (state.kind === 'other' || state.kind === 'document') return;
      const checkNul = () => {
        const nul = nulDetails(url, state.body, state.kind === 'graphql');
        if (nul) throw validationError(nul);
      };
      if (request.method !== 'POST') return checkNul();
      const contentType = request.headers.get('content-type');
      if (state.kind === 'rest' && contentType && !JSON_TYPE.test(contentType)) {
        throw new AppError('unsupported_media_type', `Send the body as application/json, not ${contentType}`);
      }
      return readBody(request, limit).then((body) => {
        state.body = body;
        setRequest(new fetchAPI.Request(request.url, { method: request.method, headers: request.headers, body }));
        checkNul();
      });
    }),
  };
}

/** Reads the whole body, refusing more than `limit` bytes without buffering them. */
export async function readBody(request: Request, limit: number): Promise<string> {
  const length = request.headers.get('content-length');
  const declared = Number(length ?? 0);
  if (declared > limit) throw tooLarge(limit);
  // a declared length is the body's length (Node's parser holds the client to it): read it whole
  if (length !== null && Number.isInteger(declared)) return request.text();
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      void reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const tooLarge = (limit: number) => new AppError('payload_too_large', `The request body exceeds ${limit} bytes`);

/** Where the request holds NUL: the fields of its JSON input (a GraphQL request's variables and query), or the request itself. */
function nulDetails(url: URL, body: string, graphql: boolean): ErrorDetails | null {
  const params = url.searchParams;
  const inUrl = /%00/.test(url.pathname + url.search);
  const escaped = NUL_ESCAPE.test(body) || (graphql && NUL_ESCAPE.test(params.get('query') ?? ''));
  if (!inUrl && !escaped && !body.includes(NUL)) return null;
  const message = ['must not contain NUL (U+0000) characters'];
  const details: ErrorDetails = {};
  // a REST query parameter is named (`line_items[0][x]` as line_items); the path, or GraphQL's parameters, as the request
  const inParams = graphql ? [] : [...params].filter(([name, value]) => name.includes(NUL) || value.includes(NUL));
  for (const [name] of inParams) details[name.replace(/\[.*$/, '')] = message;
  if (/%00/.test(graphql ? url.pathname + url.search : url.pathname) || (inUrl && !inParams.length)) details.request = message;
  let input: unknown;
  try {
    input = body
      ? JSON.parse(body)
      : graphql
        ? { query: params.get('query'), variables: JSON.parse(params.get('variables') ?? 'null') }
        : undefined;
  } catch {
    if (body.includes(NUL)) details.request = message;
  }
  if (graphql && input && typeof input === 'object') {
    const { query, variables } = input as { query?: unknown; variables?: unknown };
    if (typeof query === 'string' && (query.includes(NUL) || NUL_ESCAPE.test(query))) details.query = message;
    for (const path of nulPaths(variables)) details[path] = message;
  } else {
    for (const path of nulPaths(input)) details[path] = message;
  }
  return Object.keys(details).length ? details : null;
}

/** Paths (a.b.0) of the strings and keys in `value` that hold NUL. */
function nulPaths(value: unknown, path = ''): string[] {
  if (typeof value === 'string') return value.includes(NUL) ? [path || 'body'] : [];
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, v]) => {
    const at = path ? `${path}.${key}` : key;
    return key.includes(NUL) ? [at] : nulPaths(v, at);
  });
}
