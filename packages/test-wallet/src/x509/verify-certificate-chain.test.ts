import { describe, expect, it } from 'vitest';
import { systemClock, type Clock } from '../common/clock.js';
import { generateEs256Key, toPublicJwk } from '../crypto/generate-es256-key.js';
import { pemToX5cEntry } from './convert-pem.js';
import {
  createCertificateAuthority,
  createLeafCertificate,
  createSelfSignedLeafCertificate,
} from './create-certificates.js';
import { readCertificateNames } from './read-certificate-names.js';
import { verifyCertificateChain } from './verify-certificate-chain.js';

async function chain(clock: Clock = systemClock) {
  const authority = await createCertificateAuthority('CA', clock, await generateEs256Key());
  const leafKey = await generateEs256Key();
  const leaf = await createLeafCertificate({
    authority,
    publicJwk: toPublicJwk(leafKey),
    commonName: 'leaf',
    names: { dnsNames: ['verifier.example'], uris: ['https://verifier.example/id'] },
    clock,
  });
  return { authority, leafKey, x5c: [pemToX5cEntry(leaf)] };
}

describe('verifyCertificateChain', () => {
  it('trusts a leaf issued by a configured anchor', async () => {
    const { authority, x5c } = await chain();
    expect(verifyCertificateChain(x5c, [authority.certificatePem], new Date())).toEqual({ trusted: true });
  });

  it('trusts a self-signed leaf configured as the anchor itself', async () => {
    const pem = await createSelfSignedLeafCertificate({
      privateJwk: await generateEs256Key(),
      commonName: 'self',
      names: { dnsNames: ['a.example'] },
      clock: systemClock,
    });
    expect(verifyCertificateChain([pemToX5cEntry(pem)], [pem], new Date())).toEqual({ trusted: true });
  });

  it('does not trust without anchors, with another anchor, or outside the validity period', async () => {
    const { x5c } = await chain();
    const other = await createCertificateAuthority('Other CA', systemClock, await generateEs256Key());
    expect(verifyCertificateChain(x5c, [], new Date())).toEqual({
      trusted: false,
      reason: 'no trust anchor configured',
    });
    expect(verifyCertificateChain(x5c, [other.certificatePem], new Date())).toMatchObject({
      trusted: false,
      reason: /trust anchor/,
    });
    const later = new Date(Date.now() + 11 * 365 * 24 * 3600 * 1000);
    expect(verifyCertificateChain(x5c, [other.certificatePem], later)).toMatchObject({
      trusted: false,
      reason: /validity period/,
    });
  });

  it('refuses a chain whose second certificate did not issue the first', async () => {
    const first = await chain();
    const second = await chain();
    const x5c = [first.x5c[0]!, pemToX5cEntry(second.authority.certificatePem)];
    expect(verifyCertificateChain(x5c, [second.authority.certificatePem], new Date())).toMatchObject({
      trusted: false,
      reason: /not issued by/,
    });
  });

  it('reads the SAN dNSName and URI entries', async () => {
    const { x5c } = await chain();
    expect(readCertificateNames(x5c[0]!)).toEqual({
      sanDnsNames: ['verifier.example'],
      sanUriNames: ['https://verifier.example/id'],
    });
  });
});
