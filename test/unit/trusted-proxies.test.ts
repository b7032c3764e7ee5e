import { describe, expect, it } from 'vitest';
import { isAddressOrRange } from '../../src/config/trusted-proxies.js';
import { TrustedProxies } from '../../src/http/trusted-proxies.js';

describe('TrustedProxies.clientOf', () => {
  const ingress = new TrustedProxies(['10.0.0.0/8', 'fd00::/8', '192.0.2.7']);

  it('is the peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(TrustedProxies.none.clientOf('10.1.2.3', '203.0.113.5')).toBe('10.1.2.3');
    expect(TrustedProxies.none.clientOf(undefined, '203.0.113.5')).toBe('unknown');
  });

  it('is the peer when the peer is not a trusted proxy', () => {
    expect(ingress.clientOf('198.51.100.9', '203.0.113.5')).toBe('198.51.100.9');
  });

  it('is the right-most forwarded address that is not a trusted proxy', () => {
    expect(ingress.clientOf('10.1.2.3', '203.0.113.5')).toBe('203.0.113.5');
    // The client wrote the left-most entry itself: it is never believed.
    expect(ingress.clientOf('10.1.2.3', '1.1.1.1, 203.0.113.5')).toBe('203.0.113.5');
    // Two proxies in a row (a load balancer, then the Ingress controller).
    expect(ingress.clientOf('10.1.2.3', '1.1.1.1, 203.0.113.5, 192.0.2.7')).toBe('203.0.113.5');
    // Several headers are one list, in order.
    expect(ingress.clientOf('10.1.2.3', ['1.1.1.1', '203.0.113.5'])).toBe('203.0.113.5');
  });

  it('stops at a malformed entry, keeping what the last trusted hop saw', () => {
    expect(ingress.clientOf('10.1.2.3', '203.0.113.5, not-an-address')).toBe('10.1.2.3');
    expect(ingress.clientOf('10.1.2.3', '203.0.113.5:4711')).toBe('10.1.2.3');
    expect(ingress.clientOf('10.1.2.3', '')).toBe('10.1.2.3');
  });

  it('reads IPv6 and IPv4-mapped peers', () => {
    expect(ingress.clientOf('fd00::1', '2001:db8::5')).toBe('2001:db8::5');
    expect(ingress.clientOf('::ffff:10.0.0.9', '203.0.113.5')).toBe('203.0.113.5');
    expect(ingress.clientOf('::ffff:198.51.100.9', '203.0.113.5')).toBe('198.51.100.9');
  });

  it('is the left-most address when every hop is a trusted proxy', () => {
    expect(ingress.clientOf('10.1.2.3', '10.9.9.9, 10.8.8.8')).toBe('10.9.9.9');
  });
});

describe('server.trustedProxies entries', () => {
  it('are addresses or CIDR ranges whose prefix fits the family', () => {
    for (const good of ['10.0.0.0/8', '127.0.0.1', '::1', 'fd00::/8', '0.0.0.0/0', '2001:db8::/128']) expect(isAddressOrRange(good), good).toBe(true);
    for (const bad of ['10.0.0.0/33', 'fd00::/129', 'ingress.local', '10.0.0.0/8/1', '10.0.0.0/', '10.0.0.0/x', '']) expect(isAddressOrRange(bad), bad).toBe(false);
  });
});
