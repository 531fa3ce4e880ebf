// API key scopes (spec section 5). A key stores `read:<scope>` / `write:<scope>`;
// `write:x` also allows the read endpoints of x. `events` is ours (the spec shows no events):
// a read scope like the spec's, so Full Access and Read-Only keys get it by the spec's own rules.
import type { ApiKeyType } from '../../generated/prisma/enums.js';

export const scopeLevels = {
  customers: ['read', 'write'],
  orders: ['write'],
  rewards: ['read', 'write'],
  transactions: ['read', 'write'],
  activities: ['read'],
  tiers: ['read'],
  earning_rules: ['read'],
  referrals: ['read'],
  points: ['read'],
  booster_campaigns: ['read', 'write'],
  events: ['read'],
} as const satisfies Record<string, readonly ('read' | 'write')[]>;

export type ScopeName = keyof typeof scopeLevels;

/** What each scope allows (spec section 5), for the people choosing a key's scopes. */
export const scopeDescriptions: Record<ScopeName, string> = {
  customers: 'View customer profiles and points balances',
  orders: 'Used by no endpoint',
  rewards: 'View the reward catalogue; redeem points for rewards',
  transactions: 'View points transaction history; adjust points manually',
  activities: 'View the customer activity log',
  tiers: 'View VIP tier configuration and customer tier status',
  earning_rules: 'View earning rules',
  referrals: 'View referral program configuration and customer referrals',
  points: 'Estimate the points a cart will earn',
  booster_campaigns: 'View active booster campaigns; no write endpoints exist',
  events: 'Read the events feed: every webhook event of the retention period (at least 30 days)',
};
type Access = 'read' | 'write';
export type ScopeGrant = `${Access}:${ScopeName}`;

/** The kinds of key (spec section 5): Full Access, Read-Only, or Custom (per scope). */
export const keyTypes = ['full', 'read_only', 'custom'] as const satisfies readonly ApiKeyType[];
export type KeyType = (typeof keyTypes)[number];

export const scopeNames = Object.keys(scopeLevels) as ScopeName[];

function isScopeName(name: string): name is ScopeName {
  return Object.hasOwn(scopeLevels, name);
}

/** Full Access: the highest level each scope supports. */
export function fullAccessScopes(): ScopeGrant[] {
  return scopeNames.map((s) => `${scopeLevels[s].at(-1)!}:${s}` as ScopeGrant);
}

/** Read-Only: read access for every scope that has a read level. */
export function readOnlyScopes(): ScopeGrant[] {
  return scopeNames.filter((s) => (scopeLevels[s] as readonly Access[]).includes('read')).map((s) => `read:${s}` as ScopeGrant);
}

/**
 * Custom: per scope No Access (omitted), Read or Read/Write, where the scope allows it.
 * Returns the grants, or the list of problems.
 */
export function customScopes(levels: Record<string, string>): { grants: ScopeGrant[] } | { errors: string[] } {
  const errors: string[] = [];
  const grants: ScopeGrant[] = [];
  for (const [name, level] of Object.entries(levels)) {
    if (!isScopeName(name)) {
      errors.push(`unknown scope "${name}" (scopes: ${scopeNames.join(', ')})`);
    } else if (level === 'none') {
      continue;
    } else if (!(scopeLevels[name] as readonly string[]).includes(level)) {
      errors.push(`scope "${name}" allows ${scopeLevels[name].join(' or ')}, not "${level}"`);
    } else {
      grants.push(`${level as Access}:${name}`);
    }
  }
  return errors.length ? { errors } : { grants: sortGrants(grants) };
}

function sortGrants(grants: ScopeGrant[]) {
  return [...grants].sort((a, b) => scopeNames.indexOf(a.split(':')[1] as ScopeName) - scopeNames.indexOf(b.split(':')[1] as ScopeName));
}

/** Whether `granted` allows `required` (`read:x` is allowed by `read:x` or `write:x`). */
export function allows(granted: readonly string[], required: ScopeGrant): boolean {
  if (granted.includes(required)) return true;
  const [access, scope] = required.split(':');
  return access === 'read' && granted.includes(`write:${scope}`);
}
