// The admin app's session cookie: HttpOnly (no script reads it), SameSite=Strict (no other
// site's page sends it), Path=/admin (only the app's own requests carry it), Secure when the
// request came over HTTPS (directly or, behind a proxy, X-Forwarded-Proto: https).
const SESSION_COOKIE = 'loyalty_admin_session';

/** The scheme and host the browser used: the request's, or the proxy's X-Forwarded-* ones. */
export function ownOrigin(request: Request): string {
  const url = new URL(request.url);
  const first = (name: string) => request.headers.get(name)?.split(',')[0]?.trim() || undefined;
  const proto = first('x-forwarded-proto') ?? url.protocol.slice(0, -1);
  const host = first('x-forwarded-host') ?? request.headers.get('host') ?? url.host;
  return `${proto}://${host}`;
}

const isHttps = (request: Request) => ownOrigin(request).startsWith('https://');

/** The session id the request's cookie holds, if any. */
export function sessionIdOf(request: Request): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === SESSION_COOKIE) return part.slice(at + 1).trim() || undefined;
  }
  return undefined;
}

/** Set-Cookie for a new session (maxAge seconds), or one that deletes it (maxAge 0). */
export function sessionCookie(request: Request, id: string, maxAge: number): string {
  return [
    `${SESSION_COOKIE}=${id}`,
    'Path=/admin',
    `Max-Age=${maxAge}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(isHttps(request) ? ['Secure'] : []),
  ].join('; ');
}
