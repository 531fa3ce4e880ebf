// SSRF guard for webhook URLs: the rule of every address the API stores (shared/urls.ts: an
// absolute https address), and no host that resolves to a loopback, private, link-local (cloud
// metadata: 169.254.169.254, fd00:ec2::254), shared, reserved or multicast address. Checked
// when an endpoint is registered and again at every delivery, on the very addresses the
// connection uses (guardedLookup), so a DNS answer changed after registration cannot point a
// delivery inside. WEBHOOK_ALLOW_PRIVATE_URLS=true lets http through and lifts the address
// rule (tests and local development).
import dns from 'node:dns';
import net from 'node:net';
import { urlProblem } from '../shared/urls.js';

const blocked = new net.BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(address, prefix, 'ipv6');

const MAPPED_V4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** Whether a delivery may connect to this address. */
export function isPublicAddress(address: string): boolean {
  const mapped = MAPPED_V4.exec(address);
  if (mapped) return isPublicAddress(mapped[1]!);
  const family = net.isIP(address);
  if (family === 4) return !blocked.check(address, 'ipv4');
  if (family === 6) return !blocked.check(address, 'ipv6') && !/^::ffff:/i.test(address);
  return false;
}

class UnsafeUrlError extends Error {}

/** Why `url` may not receive webhooks (undefined: it may), after resolving its host. */
export async function checkWebhookUrl(url: string, allowPrivate: boolean): Promise<string | undefined> {
  const problem = urlProblem(url, { http: allowPrivate });
  if (problem) return problem;
  if (allowPrivate) return undefined;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = net.isIP(host) ? [host] : (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return `its host ${host} does not resolve`;
  }
  const inside = addresses.find((a) => !isPublicAddress(a));
  return inside ? `resolves to ${inside}, a loopback, private, link-local or reserved address` : undefined;
}

/**
 * A `lookup` for http(s).request that refuses private addresses: the check applies to the
 * addresses the socket connects to. (An IP literal skips lookup: checkWebhookUrl covers it.)
 */
export function guardedLookup(allowPrivate: boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true, verbatim: true }, (err, addresses) => {
      if (err) return (callback as (e: Error) => void)(err);
      const list = addresses as dns.LookupAddress[];
      const inside = allowPrivate ? undefined : list.find((a) => !isPublicAddress(a.address));
      if (inside || list.length === 0) {
        return (callback as (e: Error) => void)(
          new UnsafeUrlError(`${hostname} resolves to ${inside?.address ?? 'nothing'}, which webhooks may not reach`),
        );
      }
      if ((options as dns.LookupOptions).all) return (callback as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      (callback as (e: null, a: string, f: number) => void)(null, list[0]!.address, list[0]!.family);
    });
  };
}
