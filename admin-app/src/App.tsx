// The signed-in shell: a skip link, the navigation, the page for the path, and sign-out.
import { type ReactNode, useEffect } from 'react';
import { ApiKeys } from './pages/ApiKeys';
import { AuditLog } from './pages/AuditLog';
import { Customer } from './pages/Customer';
import { Customers } from './pages/Customers';
import { Dashboard } from './pages/Dashboard';
import { Finance } from './pages/Finance';
import { Program } from './pages/Program';
import { Settings } from './pages/Settings';
import { SignIn } from './pages/SignIn';
import { Storefront } from './pages/Storefront';
import { Webhooks } from './pages/Webhooks';
import { Link, navigate, usePath } from './router';
import { useSession } from './session';
import { NotFound } from './ui';

const sections = [
  { to: '/dashboard', label: 'Dashboard' },
  { to: '/customers', label: 'Customers' },
  { to: '/program', label: 'Program' },
  { to: '/finance', label: 'Finance' },
  { to: '/integrations', label: 'Integrations' },
  { to: '/audit-log', label: 'Audit log' },
  { to: '/settings', label: 'Settings' },
];

function Page({ path }: { path: string }): ReactNode {
  if (path === '/dashboard') return <Dashboard />;
  if (path === '/customers') return <Customers />;
  const customer = /^\/customers\/([^/]+)$/.exec(path);
  if (customer) return <Customer id={decodeURIComponent(customer[1]!)} />;
  if (path === '/program' || path.startsWith('/program/')) return <Program path={path} />;
  if (path === '/integrations/api-keys' || path === '/integrations') return <ApiKeys />;
  if (path === '/integrations/webhooks' || /^\/integrations\/webhooks\/[^/]+$/.test(path)) return <Webhooks path={path} />;
  if (path === '/integrations/storefront') return <Storefront />;
  if (path === '/finance') return <Finance />;
  if (path === '/audit-log') return <AuditLog />;
  if (path === '/settings') return <Settings />;
  return <NotFound />;
}

export function App() {
  const { state, signOut } = useSession();
  const path = usePath();
  useEffect(() => {
    if (state.kind !== 'signed-in') return;
    if (path === '/') navigate('/dashboard', { replace: true });
    // the section's first tab, so that the tabs show where one is
    if (path === '/integrations') navigate('/integrations/api-keys', { replace: true });
  }, [state.kind, path]);

  if (state.kind === 'loading') return <p className="loading">Loading…</p>;
  if (state.kind === 'signed-out') return <SignIn notice={state.notice} />;
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Loyalty admin</span>
        <nav aria-label="Sections">
          <ul>
            {sections.map((s) => (
              <li key={s.to}>
                <Link to={s.to}>{s.label}</Link>
              </li>
            ))}
          </ul>
        </nav>
        <span className="merchant">{state.session.merchant.name}</span>
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Page path={path} />
      </main>
    </>
  );
}
