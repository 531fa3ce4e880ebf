// Which address a request comes from: the one function for everything that counts or logs
// per client (the admin sign-in lockout, the request log). Behind proxies the socket's peer is
// the nearest proxy, and X-Forwarded-For lists the addresses the proxies saw, the nearest last
// (anything before them is whatever the client wrote). TRUST_PROXY says how far to believe it,
// as Express's and Fastify's `trust proxy` do: walking from the socket's peer back through
// X-Forwarded-For, the client is the first address that is not a trusted proxy.
// - none (the default, or 0): the socket's peer; X-Forwarded-For is ignored, as anyone can send it;
// - a count n: the n nearest hops are proxies; the client is the address the outermost one saw;
// - addresses/CIDRs: proxies are the hops at those addresses.
// The same rule decides whether X-Forwarded-Proto and X-Forwarded-Host (the scheme and host the
// browser used, which the admin app's cookie and same-origin check need) are believed: only when
// the socket's peer is a trusted proxy, as Express's req.protocol and req.hostname do.
import { BlockList, isIP } from 'node:net';
import type { TrustProxy } from '../config.js';

/** Whether the hop at `address`, `hop` steps from the socket's peer (0), is a trusted proxy. */
export type Trust = (address: string, hop: number) => boolean;

export const trustNone: Trust = () => false;

export function compileTrust(setting: TrustProxy): Trust {
  if ('hops' in setting) {
    const { hops } = setting;
    return hops > 0 ? (_, hop) => hop < hops : trustNone;
  }
  const proxies = new BlockList();
  for (const entry of setting.addresses) {
    const [address = '', bits] = entry.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) proxies.addAddress(address, type);
    else proxies.addSubnet(address, Number(bits), type);
  }
  // an IPv4 rule also matches the IPv4-mapped IPv6 form (::ffff:10.0.0.1) of a dual-stack socket
  return (address) => {
    const family = isIP(address);
    return family !== 0 && proxies.check(address, family === 6 ? 'ipv6' : 'ipv4');
  };
}

/** An IPv4 client seen through an IPv6 socket (::ffff:203.0.113.7) as itself. */
const plain = (address: string) => (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address.toLowerCase());

/**
 * The client's address: `peer` (the socket's; none for an in-process call, 'local'), or an
 * address of `forwardedFor` (X-Forwarded-For, repeated headers joined by commas) as `trust` allows.
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | null | undefined, trust: Trust): string {
  const socket = peer ? plain(peer) : 'local';
  if (!forwardedFor || trust === trustNone) return socket;
  // nearest first: the peer, then X-Forwarded-For from its right end
  const chain = [
    socket,
    ...forwardedFor
      .split(',')
      .map((a) => plain(a.trim()))
      .filter(Boolean)
      .reverse(),
  ];
  let hop = 0;
  while (hop < chain.length - 1 && trust(chain[hop]!, hop)) hop += 1;
  return chain[hop]!;
}

/** Whether the socket's peer is a proxy `trust` believes, so its X-Forwarded-Proto and -Host count. */
export function fromTrustedProxy(peer: string | undefined, trust: Trust): boolean {
  return trust !== trustNone && trust(peer ? plain(peer) : 'local', 0);
}

/** The socket's peer address of a request Yoga serves from Node's HTTP server (none in process). */
export function peerOf(serverContext: object): string | undefined {
  return (serverContext as { req?: { socket?: { remoteAddress?: string } } }).req?.socket?.remoteAddress;
}
