// The admin app's session: /admin/session signs in (POST {"token": "<admin token>"}: the token
// is checked once, counted against the admin sign-in lockout, and never kept by the browser),
// tells the signed-in page who it is and its CSRF token (GET), and signs out (DELETE). Every
// request to the app's GraphQL endpoint must carry the session cookie and, in X-CSRF-Token,
// the session's CSRF token: it runs the admin schema as the session's merchant.
// GET /admin/session/policy tells the sign-in page how long a session lasts, as configured
// (ADMIN_SESSION_IDLE_SECONDS, ADMIN_SESSION_MAX_SECONDS): it needs no session.
import type { Plugin } from 'graphql-yoga';
import type { Db } from '../../db/client.js';
import {
  type AdminSessionView,
  closeSession,
  csrfTokenOf,
  findSession,
  isCsrfTokenOf,
  openSession,
  purgeExpiredSessions,
  type SessionPolicy,
  touchEveryMs,
} from '../../domain/access/admin-sessions.js';
import { AppError } from '../../domain/shared/errors.js';
import { appErrorResponse } from '../errors.js';
import { type AdminSignIn, signInAttempt } from '../plugins/admin-auth.js';
import { readBody } from '../plugins/body.js';
import { checkRequest } from '../plugins/checks.js';
import { sessionCookie, sessionIdOf } from './cookie.js';

export const SESSION_PATH = '/admin/session';
const SESSION_POLICY_PATH = `${SESSION_PATH}/policy`;
const CSRF_HEADER = 'x-csrf-token';
const PURGE_EVERY_MS = 3600_000;
const JSON_TYPE = /^application\/json\b/i;
/** A sign-in body holds one token: nothing larger is read. */
const SIGN_IN_LIMIT = 4096;

const sessionEnded = () => new AppError('invalid_token', 'Your session has ended: sign in again');
const csrfRefused = () => new AppError('csrf_rejected', `The ${CSRF_HEADER} header is missing or is not this session's`);

async function describe(db: Db, id: string, session: AdminSessionView) {
  const merchant = await db.merchant.findUniqueOrThrow({
    where: { id: session.merchantId },
    select: { id: true, slug: true, name: true, currency: true, locale: true, timezone: true },
  });
  return {
    merchant,
    csrf_token: csrfTokenOf(id),
    expires_at: session.expiresAt.toISOString(),
    idle_expires_at: session.idleExpiresAt.toISOString(),
  };
}

function tokenOf(body: string): string | undefined {
  try {
    const token = (JSON.parse(body) as { token?: unknown } | null)?.token;
    return typeof token === 'string' ? token.trim() : undefined;
  } catch {
    return undefined;
  }
}

const notAllowed = (method: string, path: string, allow: string) => {
  const refused = appErrorResponse(new AppError('method_not_allowed', `${method} is not allowed on ${path}`));
  refused.headers.set('Allow', allow);
  return refused;
};

/** The session's lifetimes as configured; a session left alone ends up to idle_margin_seconds after idle_seconds. */
const describePolicy = (policy: SessionPolicy) => ({
  idle_seconds: policy.idleSeconds,
  max_seconds: policy.maxSeconds,
  idle_margin_seconds: touchEveryMs(policy) / 1000,
});

/** POST, GET and DELETE /admin/session; GET /admin/session/policy. */
export function useSessionEndpoint(signIn: AdminSignIn, policy: SessionPolicy): Plugin & { stop(): void } {
  const { db } = signIn;
  const timer = setInterval(() => void purgeExpiredSessions(db).catch(() => {}), PURGE_EVERY_MS).unref();
  return {
    onRequest: checkRequest(async ({ request, url, state, client }) => {
      if (url.pathname === SESSION_POLICY_PATH) {
        if (request.method !== 'GET' && request.method !== 'HEAD') return notAllowed(request.method, SESSION_POLICY_PATH, 'GET');
        return Response.json(describePolicy(policy));
      }
      if (url.pathname.startsWith(`${SESSION_PATH}/`)) throw new AppError('not_found', `No route ${request.method} ${url.pathname}`);
      if (url.pathname !== SESSION_PATH) return;
      const id = sessionIdOf(request);
      switch (request.method) {
        case 'POST': {
          const type = request.headers.get('content-type');
          if (!type || !JSON_TYPE.test(type)) {
            throw new AppError('unsupported_media_type', 'Send {"token": "<admin token>"} as application/json');
          }
          const token = tokenOf(await readBody(request, SIGN_IN_LIMIT));
          const result = await signInAttempt(signIn, { client, path: url.pathname, kind: state.kind, token: () => token });
          if ('refused' in result) return result.refused;
          const session = await openSession(db, result.merchantId, policy);
          return Response.json(await describe(db, session.id, session), {
            status: 201,
            headers: { 'Set-Cookie': sessionCookie(request, state, session.id, policy.maxSeconds) },
          });
        }
        case 'GET': {
          const session = id && (await findSession(db, id, policy));
          if (!id || !session) throw sessionEnded();
          return Response.json(await describe(db, id, session));
        }
        case 'DELETE': {
          if (id) {
            if (!isCsrfTokenOf(id, request.headers.get(CSRF_HEADER))) throw csrfRefused();
            await closeSession(db, id);
          }
          return new Response(null, { status: 204, headers: { 'Set-Cookie': sessionCookie(request, state, '', 0) } });
        }
        default:
          return notAllowed(request.method, SESSION_PATH, 'GET, POST, DELETE');
      }
    }),
    stop: () => clearInterval(timer),
  };
}

/** The app's GraphQL endpoint: the session's merchant, with its CSRF token on every request. */
export function useSessionAuth(db: Db, policy: SessionPolicy): Plugin {
  return {
    onRequest: checkRequest(async ({ request, state }) => {
      if (state.kind !== 'graphql') return;
      const id = sessionIdOf(request);
      const session = id && (await findSession(db, id, policy));
      if (!id || !session) throw sessionEnded();
      if (!isCsrfTokenOf(id, request.headers.get(CSRF_HEADER))) throw csrfRefused();
      state.merchantId = session.merchantId;
      state.actor = `session:${session.rowId}`;
    }),
  };
}
