import { type FormEvent, useEffect, useState } from 'react';
import { SESSION_POLICY_URL, type SessionPolicy } from '../api';
import { formatDuration } from '../format';
import { useSession } from '../session';
import { Alert, PageTitle, TextField } from '../ui';

export function SignIn({ notice }: { notice?: string }) {
  const { signIn } = useSession();
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [policy, setPolicy] = useState<SessionPolicy | null>(null);

  // how long a session lasts is the service's setting (ADMIN_SESSION_IDLE_SECONDS, ADMIN_SESSION_MAX_SECONDS)
  useEffect(() => {
    let live = true;
    fetch(SESSION_POLICY_URL, { credentials: 'same-origin' })
      .then(async (res) => (res.ok ? ((await res.json()) as SessionPolicy) : null))
      .then((p) => live && setPolicy(p))
      .catch(() => {});
    return () => {
      live = false;
    };
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!token.trim()) {
      setError('Enter your admin token.');
      return;
    }
    setBusy(true);
    const failure = await signIn(token.trim());
    setBusy(false);
    setError(failure);
    // the token is not kept, not even in the form
    if (!failure) setToken('');
  };

  return (
    <main className="sign-in" id="main">
      <form onSubmit={submit} noValidate>
        <PageTitle>Sign in to the loyalty admin</PageTitle>
        <p>
          Use your shop's admin token (it starts with <code>lpa_</code>; <code>npm start</code> prints it on the first start, and{' '}
          <code>loyalty merchants token</code> issues a new one). It is sent once: this browser keeps only a session that ends when
          you sign out
          {policy ? (
            <>
              , after {formatDuration(policy.idle_seconds)} without use, or {formatDuration(policy.max_seconds)} after you sign in,
              however busy.
            </>
          ) : (
            ' or after a time without use.'
          )}
        </p>
        {notice && <Alert tone="info">{notice}</Alert>}
        <TextField
          label="Admin token"
          type="password"
          autoComplete="off"
          spellCheck={false}
          value={token}
          onChange={(e) => setToken(e.target.value)}
          errors={error ? [error] : undefined}
        />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
