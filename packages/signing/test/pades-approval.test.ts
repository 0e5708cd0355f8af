import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { signThroughApi, startSigningBed, type SigningBed } from './support/bed.js';
import { pdfsig, samplePdf } from './support/pdfs.js';

/**
 * PAdES through the API on both engines (002 §4.1 operations 1, 3, 4; issue 21 §3): an invisible approval signature
 * and a second one as an incremental update, each validated by poppler's pdfsig; the audit events carry the
 * document's hash, the key id and the algorithm, never the document.
 */
describe.each(DATABASE_KINDS)('PAdES approval signatures (%s)', (kind) => {
  let bed: SigningBed;
  beforeAll(async () => {
    bed = await startSigningBed(kind);
    await bed.softwareEntry('signer-rsa');
    await bed.softwareEntry('signer-ec', 'EC_P256');
  });
  afterAll(async () => bed?.close());

  it('signs invisibly; pdfsig reports the signature valid over the whole document', async () => {
    const signed = await signThroughApi(bed, {
      pdf: await samplePdf(),
      kid: 'signer-rsa',
      pades: { reason: 'Approval', location: 'Vienna', contactInfo: 'signer@example.org', signerName: 'Test Signer' },
    });
    const result = await pdfsig(signed);
    expect(result.signatures).toHaveLength(1);
    expect(result.signatures[0]).toMatchObject({ valid: true, wholeDocument: true });
    expect(result.text).toContain('ETSI.CAdES.detached');
    expect(signed.toString('latin1')).toContain('/Reason (Approval)');
    expect(signed.toString('latin1')).toContain('/Location (Vienna)');
  });

  it('adds a second signature (ECDSA) as an incremental update that keeps the first valid', async () => {
    const once = await signThroughApi(bed, { pdf: await samplePdf(), kid: 'signer-rsa' });
    const twice = await signThroughApi(bed, { pdf: once, kid: 'signer-ec' });
    expect(twice.subarray(0, once.length).equals(once)).toBe(true);
    const result = await pdfsig(twice);
    expect(result.signatures.map((s) => s.valid)).toEqual([true, true]);
    expect(result.signatures[1]!.wholeDocument).toBe(true);
  });

  it('audits each signature with the digest, the key id and the algorithm, never the document', async () => {
    const pdf = await samplePdf();
    await signThroughApi(bed, { pdf, kid: 'signer-rsa' });
    const { events } = await bed.t.platform.audit.query({
      tenantId: 'demo',
      commandId: 'signing.create-signature',
      limit: 100,
    });
    const last = events[events.length - 1]!;
    expect(last.businessIds).toMatchObject({ kid: 'signer-rsa', algorithm: 'RSA_SHA256', providerId: 'software' });
    expect(last.businessIds.documentDigest).toMatch(/^SHA256:/);
    const merges = await bed.t.platform.audit.query({
      tenantId: 'demo',
      commandId: 'signing.merge-signature',
      limit: 100,
    });
    expect(merges.events.some((e) => e.businessIds.kid === 'signer-rsa' && e.businessIds.documentSha256)).toBe(true);
    expect(JSON.stringify([...events, ...merges.events])).not.toContain(pdf.toString('base64').slice(0, 200));
  });
});
