// TRUST_PROXY and the one rule that derives the client's address from the socket's peer and
// X-Forwarded-For (src/http/client-address.ts), as Express's and Fastify's `trust proxy`.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { clientAddress, compileTrust } from '../../src/http/client-address.js';

const trustOf = (value: string | undefined) => loadConfig({ TRUST_PROXY: value }).TRUST_PROXY;
const client = (setting: string | undefined, peer: string | undefined, xff?: string) =>
  clientAddress(peer, xff, compileTrust(trustOf(setting)));

describe('TRUST_PROXY', () => {
  it('reads none (default), a count of proxies, or addresses and ranges', () => {
    expect(trustOf(undefined)).toEqual({ hops: 0 });
    expect(trustOf('')).toEqual({ hops: 0 });
    expect(trustOf('false')).toEqual({ hops: 0 });
    expect(trustOf('2')).toEqual({ hops: 2 });
    expect(trustOf(' 10.0.0.1, 192.168.0.0/16 ,::1, fd00::/8 ')).toEqual({ addresses: ['10.0.0.1', '192.168.0.0/16', '::1', 'fd00::/8'] });
    expect(trustOf('loopback,uniquelocal')).toEqual({
      addresses: ['127.0.0.1/8', '::1/128', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
    });
  });

  it('refuses true (any X-Forwarded-For believed) and what is not an address, naming the variable', () => {
    for (const bad of ['true', '10.0.0.0/33', 'proxy.internal', '10.0.0.1/8/2', '-1', 'constructor']) {
      expect(() => trustOf(bad), bad).toThrow(ConfigError);
      expect(() => trustOf(bad), bad).toThrow(/TRUST_PROXY/);
    }
  });
});

describe('the client address', () => {
  it('is the socket peer without TRUST_PROXY, whatever X-Forwarded-For says', () => {
    expect(client(undefined, '10.0.0.5', '203.0.113.7')).toBe('10.0.0.5');
    expect(client('0', '10.0.0.5', '203.0.113.7')).toBe('10.0.0.5');
    expect(client(undefined, undefined, '203.0.113.7')).toBe('local');
  });

  it('with a count: the address the outermost trusted proxy saw, not what the client wrote before it', () => {
    expect(client('1', '10.0.0.5', '203.0.113.7')).toBe('203.0.113.7');
    expect(client('1', '10.0.0.5', 'spoofed, 203.0.113.7')).toBe('203.0.113.7');
    expect(client('2', '10.0.0.5', 'spoofed, 203.0.113.7, 10.0.0.9')).toBe('203.0.113.7');
    // fewer hops than proxies: the furthest there is
    expect(client('3', '10.0.0.5', '203.0.113.7')).toBe('203.0.113.7');
    // no header: the peer
    expect(client('1', '10.0.0.5', undefined)).toBe('10.0.0.5');
    expect(client('1', '10.0.0.5', '')).toBe('10.0.0.5');
  });

  it('with addresses: the first hop, from the peer back, that is not a trusted proxy', () => {
    const setting = '10.0.0.0/8, 2001:db8::1';
    expect(client(setting, '10.0.0.5', 'spoofed, 203.0.113.7, 10.1.1.1')).toBe('203.0.113.7');
    expect(client(setting, '2001:db8::1', '203.0.113.7')).toBe('203.0.113.7');
    // a peer that is not a trusted proxy is the client, whatever it forwards
    expect(client(setting, '198.51.100.3', '203.0.113.7')).toBe('198.51.100.3');
    // something that is not an address stops the walk there
    expect(client(setting, '10.0.0.5', '203.0.113.7, unknown')).toBe('unknown');
  });

  it('sees an IPv4 client through a dual-stack socket as itself, and matches IPv4 rules', () => {
    expect(client(undefined, '::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(client('10.0.0.0/8', '::ffff:10.0.0.5', '203.0.113.7')).toBe('203.0.113.7');
    expect(client('loopback', '::1', '2001:DB8::7')).toBe('2001:db8::7');
  });
});
