// The Integrations section's tabs: REST API keys, webhooks and the storefront, each a page of
// its own path (under its own title), so a tab can be linked to.
import { Link } from '../router';

const tabs = [
  { to: '/integrations/api-keys', label: 'API keys' },
  { to: '/integrations/webhooks', label: 'Webhooks' },
  { to: '/integrations/storefront', label: 'Storefront' },
];

export function IntegrationsNav() {
  return (
    <nav aria-label="Integrations" className="subnav">
      <ul>
        {tabs.map((t) => (
          <li key={t.to}>
            <Link to={t.to}>{t.label}</Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
