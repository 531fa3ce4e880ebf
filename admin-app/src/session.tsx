// Who is signed in. The admin token is sent once, to POST /admin/session, and forgotten: the
// browser keeps only the HttpOnly session cookie (which no script can read) and, in memory,
// the session's CSRF token, which GET /admin/session gives back after a reload.
import { createContext, type ReactNode, useCallback, useContext, useEffect, useState } from 'react';
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

export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<State>({ kind: 'loading' });
  const signedIn = useCallback((session: Session) => {
    setCsrfToken(session.csrf_token);
    // numbers, money and dates follow the shop's settings from the first page on
    setShop(session.merchant);
    setState({ kind: 'signed-in', session });
  }, []);

  useEffect(() => {
    whenSessionEnds(() => setState({ kind: 'signed-out', notice: 'Your session has ended. Sign in again.' }));
    fetch(SESSION_URL, { credentials: 'same-origin' })
      .then(async (res) => (res.ok ? signedIn((await res.json()) as Session) : setState({ kind: 'signed-out' })))
      .catch(() => setState({ kind: 'signed-out', notice: 'The service could not be reached.' }));
  }, [signedIn]);

  const signIn = async (token: string) => {
    try {
      const res = await fetch(SESSION_URL, { method: 'POST', credentials: 'same-origin', headers: json, body: JSON.stringify({ token }) });
      if (res.ok) {
        signedIn((await res.json()) as Session);
        return null;
      }
      if (res.status === 429) {
        const wait = Number(res.headers.get('retry-after') ?? 0);
        return `Too many failed sign-ins from this address. Try again in ${Math.ceil(wait / 60)} minute(s).`;
      }
      if (res.status === 401) return 'That admin token is not valid. Check it and try again.';
      const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
      return body?.error?.message ?? `Sign-in failed (${res.status}).`;
    } catch {
      return 'The service could not be reached. Check your connection and try again.';
    }
  };

  const signOut = async () => {
    await fetch(SESSION_URL, { method: 'DELETE', credentials: 'same-origin', headers: csrfHeaders() }).catch(() => {});
    setCsrfToken('');
    setState({ kind: 'signed-out', notice: 'You are signed out.' });
  };

  const updateMerchant = (changes: Partial<Session['merchant']>) => {
    setShop(changes);
    setState((s) => (s.kind === 'signed-in' ? { ...s, session: { ...s.session, merchant: { ...s.session.merchant, ...changes } } } : s));
  };

  return <SessionContext.Provider value={{ state, signIn, signOut, updateMerchant }}>{children}</SessionContext.Provider>;
}
