// Who a public request acts as: a merchant's API key (api-keys.ts), a shopper's customer
// session (customer-sessions.ts) or a signed-out visitor's publishable key
// (storefront/storefront-keys.ts). Both modules, and everything that authenticates, name these.

export interface KeyPrincipal {
  kind: 'api_key';
  keyId: string;
  merchantId: string;
  scopes: string[];
}

export interface SessionPrincipal {
  kind: 'session';
  /** The token's id (jti). */
  sessionId: string;
  merchantId: string;
  /** The internal id of the session's customer. */
  customerId: string;
  scopes: readonly string[];
  issuedAt: Date;
  expiresAt: Date;
  /** The id of the API key that minted the session (or the one it renews), which may end or renew it. */
  mintedBy?: string;
}

/** A signed-out visitor's page, by a publishable storefront key: the public program only. */
export interface GuestPrincipal {
  kind: 'guest';
  /** The publishable key's id. */
  keyId: string;
  merchantId: string;
  /** None: a guest reads only the fields declared for guests, whatever their scope. */
  scopes: readonly string[];
}

export type Principal = KeyPrincipal | SessionPrincipal | GuestPrincipal;
