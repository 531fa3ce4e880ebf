// Who is signed in. The admin token is sent once, to POST /admin/session, and forgotten: the
// browser keeps only the HttpOnly session cookie (which no script can read) and, in memory,
// the session's CSRF token, which GET /admin/session gives back after a reload.
import { createContext, type ReactNode, useCallback, useContext, useEffect, useState } from 'react';
import type { ErrorCode } from '../../src/domain/shared/errors';
import { codeMessages, messages } from '../../src/domain/shared/messages';
import { csrfHeaders, SESSION_URL, setCsrfToken, whenSessionEnds } from './api';
import { setShop } from './format';

export interface Session {
  merchant: { id: string; slug: string; name: string; currency: string; locale: string; timezone: string };
  csrf_token: string;
  expires_at: string;
  idle_expires_at: string;
}

type State = { kind: 'loading' } | { kind: 'signed-out'; notice?: string } | { kind: 'signed-in'; session: Session };

interface SessionApi {
  state: State;
  signIn(token: string): Promise<string | null>;
  signOut(): Promise<void>;
  /** The settings page changed the shop's name, currency, language or time zone. */
  updateMerchant(changes: Partial<Session['merchant']>): void;
}

const SessionContext = createContext<SessionApi | null>(null);

/** The signed-in shop's currency (ISO 4217), for showing amounts. */
export function useCurrency(): string {
  const { state } = useSession();
  return state.kind === 'signed-in' ? state.session.merchant.currency : 'USD';
}

export function useSession(): SessionApi {
  const api = useContext(SessionContext);
  if (!api) throw new Error('useSession outside SessionProvider');
  return api;
}

const json = { 'content-type': 'application/json' };

/**
 * An answer's JSON body (null when it has none), read whatever its status: a refusal's body left
 * unread keeps its request open in the browser, and a signed-out page never settles.
 */
export const bodyOf = (res: Response): Promise<unknown> => res.json().catch(() => null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<State>({ kind: 'loading' });
  const signedIn = useCallback((session: Session) => {
    setCsrfToken(session.csrf_token);
    // numbers, money and dates follow the shop's settings from the first page on
    setShop(session.merchant);
    setState({ kind: 'signed-in', session });
  }, []);

  useEffect(() => {
    whenSessionEnds(() => setState({ kind: 'signed-out', notice: messages.signIn.sessionEnded }));
    fetch(SESSION_URL, { credentials: 'same-origin' })
      .then(async (res) => {
        const body = await bodyOf(res);
        if (res.ok) signedIn(body as Session);
        else setState({ kind: 'signed-out' });
      })
      .catch(() => setState({ kind: 'signed-out', notice: messages.unreachable }));
  }, [signedIn]);

  const signIn = async (token: string) => {
    try {
      const res = await fetch(SESSION_URL, { method: 'POST', credentials: 'same-origin', headers: json, body: JSON.stringify({ token }) });
      const body = await bodyOf(res);
      if (res.ok) {
        signedIn(body as Session);
        return null;
      }
      if (res.status === 429) {
        const wait = Number(res.headers.get('retry-after') ?? 0);
        return messages.signIn.tooManyAttempts(Math.max(1, Math.ceil(wait / 60)));
      }
      if (res.status === 401) return messages.signIn.tokenInvalid;
      // any other refusal in the catalogue's words for its code (the service's own message is an integrator's)
      const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
      return typeof code === 'string' && Object.hasOwn(codeMessages, code) ? codeMessages[code as ErrorCode] : codeMessages.internal_error;
    } catch {
      return messages.unreachable;
    }
  };

  const signOut = async () => {
    await fetch(SESSION_URL, { method: 'DELETE', credentials: 'same-origin', headers: csrfHeaders() }).then(bodyOf, () => {});
    setCsrfToken('');
    setState({ kind: 'signed-out', notice: messages.signIn.signedOut });
  };

  const updateMerchant = (changes: Partial<Session['merchant']>) => {
    setShop(changes);
    setState((s) => (s.kind === 'signed-in' ? { ...s, session: { ...s.session, merchant: { ...s.session.merchant, ...changes } } } : s));
  };

  return <SessionContext.Provider value={{ state, signIn, signOut, updateMerchant }}>{children}</SessionContext.Provider>;
}
