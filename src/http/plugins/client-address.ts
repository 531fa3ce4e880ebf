// The client's address, decided once per request (client-address.ts, by TRUST_PROXY) and kept
// in the request's state for the plugins that count or log per client: the admin sign-in
// lockout (through checks.ts) and the request log. First in each face's plugins.
import type { Plugin } from 'graphql-yoga';
import type { TrustProxy } from '../../config.js';
import { clientAddress, compileTrust, peerOf } from '../client-address.js';
import { requestState } from '../request-state.js';

export function useClientAddress(setting: TrustProxy): Plugin {
  const trust = compileTrust(setting);
  return {
    onRequest({ request, serverContext }) {
      requestState(serverContext).client = clientAddress(peerOf(serverContext), request.headers.get('x-forwarded-for'), trust);
    },
  };
}
