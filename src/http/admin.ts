// The merchant admin GraphQL API (/admin/graphql): its own schema, never exposed as REST,
// authenticated by the merchant's admin token. A public API key is not an admin token
// (different prefix and checksum), so it is refused here before the database is asked.
import { GraphQLError, visit } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import type { Db } from '../db/client.js';
import { AppError, type ErrorDetails, errorStatus, validationError } from '../domain/shared/errors.js';
import { hashToken, isWellFormed } from '../domain/access/tokens.js';
import { adminSchema } from '../schema/admin/index.js';
import type { AdminContext } from '../schema/admin/builder.js';
import { maskError, toGraphQLError } from './errors.js';

export const ADMIN_PATH = '/admin/graphql';

const invalidToken = () => new AppError('invalid_token', 'The admin token is invalid');

/** Resolves `Authorization: Bearer <admin token>` to its merchant's id, or 401. */
export async function authenticateAdmin(db: Db, header: string | null): Promise<string> {
  const token = header?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  if (!token || !isWellFormed('admin', token)) throw invalidToken();
  const merchant = await db.merchant.findUnique({ where: { adminTokenHash: hashToken(token) }, select: { id: true } });
  if (!merchant) throw invalidToken();
  return merchant.id;
}

function useAdminAuth(db: Db, merchants: WeakMap<Request, string>): Plugin {
  return {
    async onRequest({ request, endResponse }) {
      if (request.method === 'OPTIONS') return; // CORS preflight carries no credentials
      try {
        merchants.set(request, await authenticateAdmin(db, request.headers.get('authorization')));
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        endResponse(Response.json({ errors: [toGraphQLError(err).toJSON()] }, { status: err.status }));
      }
    },
  };
}

/** Paths of string inputs holding NUL, which PostgreSQL refuses in text and JSON. */
function nulPaths(value: unknown, path: string, out: ErrorDetails) {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) out[path || '_'] = ['must not contain NUL characters'];
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => nulPaths(v, `${path}.${i}`, out));
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) nulPaths(v, path ? `${path}.${k}` : k, out);
  }
}

/** Refuses NUL characters in variables and string literals with 422, not a database 500. */
const useNoNulInputs: Plugin = {
  onExecute({ args, setResultAndStopExecution }) {
    const details: ErrorDetails = {};
    nulPaths(args.variableValues ?? {}, '', details);
    visit(args.document, {
      StringValue(node) {
        if (node.value.includes('\u0000')) details.query = ['must not contain NUL characters'];
      },
    });
    if (Object.keys(details).length) {
      setResultAndStopExecution({ errors: [toGraphQLError(validationError(details))] });
    }
  },
};

const VARIABLE_ERROR = /^Variable "\$(\w+)"/;

/** As the public API, plus: a variable GraphQL cannot coerce is a validation_error naming it. */
function adminMaskError(error: unknown, message: string): Error {
  const masked = maskError(error, message);
  if (!(masked instanceof GraphQLError) || masked.extensions?.code) return masked;
  const variable = VARIABLE_ERROR.exec(masked.message)?.[1];
  // amended in place: Yoga logs every error its mask replaces, and this one is the client's
  if (variable) {
    Object.assign(masked.extensions, {
      code: 'validation_error',
      details: { [variable]: [masked.message] },
      http: { status: errorStatus.validation_error },
    });
  }
  return masked;
}

export function createAdminServer({ db }: { db: Db }) {
  const merchants = new WeakMap<Request, string>();
  return createYoga<object, AdminContext>({
    schema: adminSchema,
    graphqlEndpoint: ADMIN_PATH,
    landingPage: false,
    graphiql: false,
    maskedErrors: { maskError: adminMaskError },
    context: ({ request }): AdminContext => {
      const merchantId = merchants.get(request);
      if (!merchantId) throw invalidToken();
      return { db, merchantId };
    },
    plugins: [useAdminAuth(db, merchants), useNoNulInputs],
  });
}
