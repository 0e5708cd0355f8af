import { describe, expect, it } from 'vitest';
import { ipv6Bytes, isForbiddenAddress, isLoopbackName } from './address-policy.js';

describe('address policy', () => {
  it.each([
    '127.0.0.1',
    '127.0.0.2',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.100.100.200',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '198.18.0.1',
    '::',
    '::1',
    '::127.0.0.1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '::ffff:0:10.0.0.1',
    '64:ff9b::7f00:1',
    '64:ff9b::10.0.0.1',
    '64:ff9b:1::1',
    '2002:7f00:1::',
    '2002:c0a8:101::1',
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
    '2001:0:7f00:1::1',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd00:ec2::254',
    'ff02::1',
    '100::1',
    '2001:db8::1',
    'not-an-address',
  ])('refuses %s', (address) => expect(isForbiddenAddress(address)).toBe(true));

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '2606:2800:220:1:248:1893:25c8:1946',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
  ])('allows the public address %s', (address) => expect(isForbiddenAddress(address)).toBe(false));

  it('reads every IPv6 spelling into the same bytes', () => {
    const expected = Buffer.from(ipv6Bytes('::ffff:7f00:1')!).toString('hex');
    for (const a of ['::ffff:127.0.0.1', '0:0:0:0:0:ffff:7f00:1', '0000:0000:0000:0000:0000:FFFF:7F00:0001'])
      expect(Buffer.from(ipv6Bytes(a)!).toString('hex'), a).toBe(expected);
    expect(ipv6Bytes('127.0.0.1')).toBeNull();
  });

  it('names localhost and its subdomains, with or without trailing dots', () => {
    for (const n of ['localhost', 'LOCALHOST', 'localhost.', 'a.localhost', 'x.y.localhost..'])
      expect(isLoopbackName(n), n).toBe(true);
    expect(isLoopbackName('example.com')).toBe(false);
    expect(isLoopbackName('localhost.example.com')).toBe(false);
  });
});
