// A small router over the History API: the app's pages are paths under /admin, so a page can be
// bookmarked, reloaded (the service answers index.html) and opened with the back button.
import { type AnchorHTMLAttributes, type MouseEvent, useEffect, useState } from 'react';

const BASE = '/admin';
const NAVIGATE = 'admin:navigate';

const current = () => {
  const path = window.location.pathname.slice(BASE.length) || '/';
  return path.length > 1 ? path.replace(/\/$/, '') : path;
};

/** The app path (without /admin), kept current across links and the back button. */
export function usePath(): string {
  const [path, setPath] = useState(current);
  useEffect(() => {
    const update = () => setPath(current());
    window.addEventListener('popstate', update);
    window.addEventListener(NAVIGATE, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(NAVIGATE, update);
    };
  }, []);
  return path;
}

export function navigate(to: string, { replace = false } = {}) {
  if (replace) window.history.replaceState(null, '', BASE + to);
  else window.history.pushState(null, '', BASE + to);
  window.dispatchEvent(new Event(NAVIGATE));
}

/** A link within the app: no page load; marked aria-current when it is the page shown. */
export function Link({ to, exact = false, ...props }: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string; exact?: boolean }) {
  const path = usePath();
  const active = exact ? path === to : path === to || path.startsWith(`${to}/`);
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a {...props} href={BASE + to} onClick={onClick} aria-current={active ? 'page' : undefined} />;
}
