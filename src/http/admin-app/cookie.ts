// The admin app's session cookie: HttpOnly (no script reads it), SameSite=Strict (no other
// site's page sends it), Path=/admin (only the app's own requests carry it), Secure when the
// request came over HTTPS (directly or, behind a proxy TRUST_PROXY believes, X-Forwarded-Proto: https).
import type { RequestState } from '../request-state.js';

const SESSION_COOKIE = 'loyalty_admin_session';

/**
 * The scheme and host the browser used: the request's, or, when the peer is a trusted proxy
 * (`proxied`, client-address.ts), its X-Forwarded-* ones; from anyone else they are the client's
 * own words, and believing them would let it choose the origin the same-origin check compares with.
 */
export function ownOrigin(request: Request, { proxied }: Pick<RequestState, 'proxied'>): string {
  const url = new URL(request.url);
  const first = (name: string) => (proxied && request.headers.get(name)?.split(',')[0]?.trim()) || undefined;
  const proto = first('x-forwarded-proto') ?? url.protocol.slice(0, -1);
  const host = first('x-forwarded-host') ?? request.headers.get('host') ?? url.host;
  return `${proto}://${host}`;
}

/** The session id the request's cookie holds, if any. */
export function sessionIdOf(request: Request): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === SESSION_COOKIE) return part.slice(at + 1).trim() || undefined;
  }
  return undefined;
}

/** Set-Cookie for a new session (maxAge seconds), or one that deletes it (maxAge 0). */
export function sessionCookie(request: Request, state: Pick<RequestState, 'proxied'>, id: string, maxAge: number): string {
  return [
    `${SESSION_COOKIE}=${id}`,
    'Path=/admin',
    `Max-Age=${maxAge}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(ownOrigin(request, state).startsWith('https://') ? ['Secure'] : []),
  ].join('; ');
}
