// Which address a request is counted under: the peer's, unless the peer is a trusted proxy.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { isAddressOrCidr, REPO_ROOT } from '../../lib/core/config/env';
import {
  addressKey,
  CLIENT_ADDRESS_HEADER,
  normalizeAddress,
  resolveClientAddress,
  trustedProxies,
  UNKNOWN_ADDRESS,
  withTrustedClientAddress,
} from '../../lib/core/net/client-address';

const none = trustedProxies([]);
const proxy = trustedProxies(['10.0.0.5', '192.168.1.0/24', 'fd00::/64']);

describe('resolveClientAddress', () => {
  it('takes the peer and ignores forwarding headers when no proxy is trusted', () => {
    expect(
      resolveClientAddress(
        { peer: '203.0.113.9', forwardedFor: '1.2.3.4', realIp: '5.6.7.8' },
        none,
      ),
    ).toBe('203.0.113.9');
  });

  it('ignores forwarding headers from a peer that is not one of the trusted proxies', () => {
    expect(
      resolveClientAddress({ peer: '10.0.0.6', forwardedFor: '1.2.3.4', realIp: undefined }, proxy),
    ).toBe('10.0.0.6');
  });

  it('walks X-Forwarded-For from the right past trusted proxies, so a forged left part is ignored', () => {
    expect(
      resolveClientAddress(
        {
          peer: '10.0.0.5',
          forwardedFor: '9.9.9.9, 198.51.100.7, 192.168.1.20',
          realIp: undefined,
        },
        proxy,
      ),
    ).toBe('198.51.100.7');
  });

  it('stops at a hop that is not an address, keeping the nearest trusted one', () => {
    expect(
      resolveClientAddress(
        { peer: '10.0.0.5', forwardedFor: 'evil, 192.168.1.20', realIp: undefined },
        proxy,
      ),
    ).toBe('192.168.1.20');
  });

  it('takes X-Real-IP from a trusted proxy that sends no X-Forwarded-For', () => {
    expect(
      resolveClientAddress(
        { peer: '10.0.0.5', forwardedFor: undefined, realIp: '198.51.100.8' },
        proxy,
      ),
    ).toBe('198.51.100.8');
  });

  it('normalizes IPv4-mapped IPv6 peers and refuses garbage', () => {
    expect(normalizeAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(normalizeAddress('[::1]')).toBe('::1');
    expect(normalizeAddress('not-an-ip')).toBeNull();
    expect(
      resolveClientAddress({ peer: undefined, forwardedFor: '1.2.3.4', realIp: undefined }, none),
    ).toBe(UNKNOWN_ADDRESS);
  });

  it('counts an IPv6 client by its /64', () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2:bbbb::2')).toBe(addressKey('2001:db8:1:2:aaaa::1'));
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('198.51.100.7')).toBe('198.51.100.7');
  });
});

describe('PERFJUDGE_TRUSTED_PROXIES entries', () => {
  it.each(['10.0.0.5', '10.0.0.0/8', '::1', 'fd00::/64', '0.0.0.0/0'])('accepts %s', (entry) =>
    expect(isAddressOrCidr(entry)).toBe(true),
  );
  it.each(['10.0.0.0/33', 'fd00::/129', 'proxy.example', '10.0.0.5/8/1', '10.0.0/8', ''])(
    'refuses %s',
    (entry) => expect(isAddressOrCidr(entry)).toBe(false),
  );

  it('stops a process at start-up with a message naming the variable and the bad entry', () => {
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', '-e', "import('./lib/core/config/env.ts').then((m) => m.env())"],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, PERFJUDGE_TRUSTED_PROXIES: '10.0.0.5, proxy.example' },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain(
      'PERFJUDGE_TRUSTED_PROXIES: proxy.example is not an IP address or CIDR range',
    );
  });
});

describe('withTrustedClientAddress', () => {
  it("drops the address header in a process the web server did not start (a client's forgery)", () => {
    const forged = new Request('http://localhost/api/auth/sign-in/email', {
      method: 'POST',
      headers: { [CLIENT_ADDRESS_HEADER]: '1.2.3.4', 'content-type': 'application/json' },
      body: '{}',
    });
    const cleaned = withTrustedClientAddress(forged);
    expect(cleaned.headers.has(CLIENT_ADDRESS_HEADER)).toBe(false);
    expect(cleaned.headers.get('content-type')).toBe('application/json');
  });
});
