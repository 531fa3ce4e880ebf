import { type FormEvent, useEffect, useState } from 'react';
import { messages } from '../../../src/domain/shared/messages';
import { SESSION_POLICY_URL, type SessionPolicy } from '../api';
import { formatDuration } from '../format';
import { bodyOf, useSession } from '../session';
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
      .then(async (res) => {
        const body = await bodyOf(res);
        return res.ok ? (body as SessionPolicy) : null;
      })
      .then((p) => live && setPolicy(p))
      .catch(() => {});
    return () => {
      live = false;
    };
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!token.trim()) {
      setError(messages.signIn.tokenMissing);
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
          Sign in with your shop's admin token: a long code that starts with <code>lpa_</code>. Whoever set up the loyalty program for your
          shop received it when the shop was created; ask them for it, or for a new one if it was lost (a new token replaces the old one,
          which then stops working). Paste it below.
        </p>
        <p>
          The token is sent once: this browser keeps only a session, which ends when you sign out
          {policy ? (
            <>
              , after {formatDuration(policy.idle_seconds)} without use, or {formatDuration(policy.max_seconds)} after you sign in, however
              busy.
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
        <details className="operator-note">
          <summary>For the person who runs the service</summary>
          <p>
            Admin tokens are issued on the service's machine, with its command line: the first start prints one for the first shop, creating
            a shop prints its token, and issuing a new token for a shop replaces the old one. The operator's guide is{' '}
            <code>docs/admin.md</code> and <code>docs/cli.md</code> in the service's sources, or{' '}
            <a href="/docs">the API reference served by this service</a>.
          </p>
        </details>
      </form>
    </main>
  );
}
