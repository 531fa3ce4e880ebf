// The client's address, decided once per request (client-address.ts, by TRUST_PROXY) and kept
// in the request's state for the plugins that count or log per client: the admin sign-in
// lockout (through checks.ts) and the request log; with it, whether the peer is a trusted proxy
// (the admin app's own origin). First in each face's plugins.
import type { Plugin } from 'graphql-yoga';
import type { TrustProxy } from '../../config.js';
import { clientAddress, compileTrust, fromTrustedProxy, peerOf } from '../client-address.js';
import { requestState } from '../request-state.js';

export function useClientAddress(setting: TrustProxy): Plugin {
  const trust = compileTrust(setting);
  return {
    onRequest({ request, serverContext }) {
      const state = requestState(serverContext);
      const peer = peerOf(serverContext);
      state.client = clientAddress(peer, request.headers.get('x-forwarded-for'), trust);
      state.proxied = fromTrustedProxy(peer, trust);
    },
  };
}
