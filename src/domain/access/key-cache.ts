// Authenticating API keys without a database round trip per request. Each process keeps the
// principals of the keys it has seen; a trigger NOTIFYs every instance on the database when
// a key is revoked, changed or deleted (migration auth_notifications), and each drops that
// key at once. While the notification feed (the app's, db/notifications.ts) is down nothing is
// cached, so a revocation can never be missed; without a feed every request asks the database. A key
// revoked in this very process is forgotten before the revocation returns.

import type { Db } from '../../db/client.js';
import { type NotificationFeed, notifiedCache } from '../../db/notifications.js';
import { type MaybePromise, whenReady } from '../shared/maybe-promise.js';
import { bearerKey, noteKeyUse, onKeyRevokedHere, principalOfKey } from './api-keys.js';
import type { KeyPrincipal } from './principal.js';

const MAX_KEYS = 10_000;

export interface KeyAuthenticator {
  /** The key's principal: at once when cached. */
  authenticate(header: string | null): MaybePromise<KeyPrincipal>;
  close(): void;
}

export function keyAuthenticator(db: Db, feed?: NotificationFeed): KeyAuthenticator {
  const cache = notifiedCache<KeyPrincipal>(() => feed?.live ?? false, MAX_KEYS);
  const unsubscribeFeed = feed?.subscribe({ onMessage: (hash) => cache.forget(hash), onReset: () => cache.clear() });
  const unsubscribe = onKeyRevokedHere((hash) => cache.forget(hash));

  return {
    authenticate(header) {
      const key = bearerKey(header);
      return whenReady(
        cache.get(key.hash, () => principalOfKey(db, key)),
        (principal) => {
          noteKeyUse(db, principal.keyId);
          return principal;
        },
      );
    },
    close() {
      unsubscribe();
      unsubscribeFeed?.();
    },
  };
}
