import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TrustedTenantOverride } from './trusted-tenant-override.js';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

describe('TrustedTenantOverride', () => {
  it('trusts nobody when no network is configured', () => {
    expect(new TrustedTenantOverride({ networks: [] }).trusts('127.0.0.1', undefined)).toBe(false);
  });

  it('trusts peers inside the networks, IPv4, IPv6 and IPv4-mapped IPv6', () => {
    const o = new TrustedTenantOverride({ networks: ['10.0.0.0/8', 'fd00::/8', '192.0.2.1'] });
    expect(o.trusts('10.20.30.40', undefined)).toBe(true);
    expect(o.trusts('::ffff:10.1.1.1', undefined)).toBe(true);
    expect(o.trusts('fd12::1', undefined)).toBe(true);
    expect(o.trusts('192.0.2.1', undefined)).toBe(true);
    expect(o.trusts('192.0.2.2', undefined)).toBe(false);
    expect(o.trusts('11.0.0.1', undefined)).toBe(false);
    expect(o.trusts('not-an-address', undefined)).toBe(false);
    expect(o.trusts(undefined, undefined)).toBe(false);
  });

  it('asks for the secret as well when one is configured', () => {
    const o = new TrustedTenantOverride({ networks: ['127.0.0.0/8'], secretSha256: sha('s3cret') });
    expect(o.trusts('127.0.0.1', 's3cret')).toBe(true);
    expect(o.trusts('127.0.0.1', 's3cret ')).toBe(false);
    expect(o.trusts('127.0.0.1', undefined)).toBe(false);
    expect(o.trusts('203.0.113.9', 's3cret')).toBe(false);
  });

  it('refuses a configuration that is not a network', () => {
    for (const cidr of ['10.0.0.0/33', 'fd00::/129', 'example.org/8', '10.0.0.0/x'])
      expect(() => new TrustedTenantOverride({ networks: [cidr] })).toThrow(/not a CIDR network/);
  });
});
