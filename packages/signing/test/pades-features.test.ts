import { readFileSync } from 'node:fs';
import { constants, generateKeyPairSync, privateEncrypt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSigningBed, signThroughApi, type SigningBed } from './support/bed.js';
import { encryptedPdf, pdfWithEmptyField, solidPng } from './support/fixtures.js';
import { inkIn, pdfsig, renderPage, samplePdf, solidJpeg } from './support/pdfs.js';

/**
 * PAdES form parameters of 002 §2.1 (issue 21 §3), each signed document validated by pdfsig: certification with
 * DocMDP P=1/2/3, the signing time in the given zone, visible signatures (image, standard-14 and embedded TrueType
 * text, alignment, "100f" field parameters) whose field pdftoppm renders non-blank, an existing empty field by
 * fieldId, a password-protected PDF that keeps its protection, and the split flow with a key outside the service.
 */
const DEJAVU = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';

describe('PAdES form parameters (pglite)', () => {
  let bed: SigningBed;
  beforeAll(async () => {
    bed = await startSigningBed('pglite', {
      fonts: { DejaVuSans: DEJAVU },
      signatureConfigs: {
        default: { digestAlgorithm: 'SHA256' },
        pades: {
          digestAlgorithm: 'SHA256',
          signatureFormParameters: { padesSignatureFormParameters: { mode: 'APPROVAL' } },
        },
      },
    });
    await bed.softwareEntry('pades-rsa');
  });
  afterAll(async () => bed?.close());

  it.each([
    ['NO_CHANGE_PERMITTED', 1],
    ['MINIMAL_CHANGES_PERMITTED', 2],
    ['CHANGES_PERMITTED', 3],
  ] as const)('certifies with %s (DocMDP P=%i), valid by pdfsig', async (permission, p) => {
    const signed = await signThroughApi(bed, {
      pdf: await samplePdf(),
      kid: 'pades-rsa',
      pades: { mode: 'CERTIFICATION', certificationPermission: permission },
    });
    const text = signed.toString('latin1');
    expect(text).toMatch(/\/Perms\s*<<\s*\/DocMDP \d+ 0 R/);
    expect(text).toMatch(new RegExp(`/TransformMethod /DocMDP[\\s\\S]*?/P ${p}`));
    const result = await pdfsig(signed);
    expect(result.signatures).toEqual([expect.objectContaining({ valid: true, wholeDocument: true })]);
  });

  it('refuses a second signature on a document certified with no changes permitted, and a certification after a signature', async () => {
    const certified = await signThroughApi(bed, {
      pdf: await samplePdf(),
      kid: 'pades-rsa',
      pades: { mode: 'CERTIFICATION' },
    });
    await expect(signThroughApi(bed, { pdf: certified, kid: 'pades-rsa' })).rejects.toThrow(
      /determine 400.*no changes permitted/,
    );
    const approved = await signThroughApi(bed, { pdf: await samplePdf(), kid: 'pades-rsa' });
    await expect(
      signThroughApi(bed, { pdf: approved, kid: 'pades-rsa', pades: { mode: 'CERTIFICATION' } }),
    ).rejects.toThrow(/first signature/);
  });

  it('writes the signing time in the signinTimeZone offset, with reason, contact, location and signer name', async () => {
    const signed = await signThroughApi(bed, {
      pdf: await samplePdf(),
      kid: 'pades-rsa',
      pades: {
        signinTimeZone: 'GMT+3',
        reason: 'Zone',
        contactInfo: 'c@example.org',
        location: 'Nairobi',
        signerName: 'Zoë Signer',
      },
    });
    const text = signed.toString('latin1');
    expect(text).toMatch(/\/M \(D:\d{14}\+03'00'\)/);
    expect(text).toContain('/ContactInfo (c@example.org)');
    expect(text).toMatch(/\/Name <FEFF/);
    expect((await pdfsig(signed)).signatures[0]!.valid).toBe(true);
  });

  it('draws a visible signature: image and standard-font text in the field, which renders non-blank', async () => {
    const field = { originX: '100f', originY: '200f', width: '220f', height: '80f' };
    const signed = await signThroughApi(bed, {
      pdf: await samplePdf(),
      kid: 'pades-rsa',
      pades: {
        visualSignatureParameters: {
          image: { name: 'seal.png', mimeType: 'image/png', content: solidPng(40, 20, [200, 0, 0]).toString('base64') },
          backgroundColor: 'WHITE',
          imageScaling: 'ZOOM_AND_CENTER',
          alignmentHorizontal: 'CENTER',
          alignmentVertical: 'NONE',
          rotation: 'AUTOMATIC',
          textParameters: {
            text: 'Signed by\nTest Signer',
            font: 'Helvetica-Bold',
            signerTextPosition: 'TOP',
            signerTextHorizontalAlignment: 'LEFT',
            signerTextVerticalAlignment: 'MIDDLE',
            textWrapping: 'FILL_BOX',
            padding: '4f',
            textColor: 'RED',
            backgroundColor: 'GRAY',
          },
          fieldParameters: { ...field, page: 1 },
        },
      },
    });
    expect((await pdfsig(signed)).signatures[0]!.valid).toBe(true);
    const page = await renderPage(signed, 1);
    expect(inkIn(page, { x: 100, y: 200, width: 220, height: 80 })).toBeGreaterThan(0.2);
    // Outside the field the page stays white.
    expect(inkIn(page, { x: 350, y: 400, width: 200, height: 200 })).toBe(0);
  });

  it('draws a JPEG image alone, scaled into the field, which renders non-blank', async () => {
    const jpeg = await solidJpeg(60, 30, [20, 40, 160]);
    expect([...jpeg.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    const signed = await signThroughApi(bed, {
      pdf: await samplePdf(),
      kid: 'pades-rsa',
      pades: {
        visualSignatureParameters: {
          image: { name: 'seal.jpg', mimeType: 'image/jpeg', content: jpeg.toString('base64') },
          imageScaling: 'STRETCH',
          fieldParameters: { page: 1, originX: '300f', originY: '500f', width: '120f', height: '60f' },
        },
      },
    });
    expect(signed.toString('latin1')).toContain('/DCTDecode');
    expect((await pdfsig(signed)).signatures[0]!.valid).toBe(true);
    const page = await renderPage(signed, 1);
    expect(inkIn(page, { x: 302, y: 502, width: 116, height: 56 })).toBeGreaterThan(0.95);
    expect(inkIn(page, { x: 50, y: 600, width: 200, height: 200 })).toBe(0);
  });

  it('draws text with an embedded TrueType font, configured by name and given as base64, on page 2', async () => {
    for (const font of ['DejaVuSans', readFileSync(DEJAVU).toString('base64')]) {
      const signed = await signThroughApi(bed, {
        pdf: await samplePdf({ pages: 2 }),
        kid: 'pades-rsa',
        pades: {
          visualSignatureParameters: {
            textParameters: {
              text: 'Überprüft — signé ✓',
              font,
              textWrapping: 'FILL_BOX',
              signerTextHorizontalAlignment: 'CENTER',
            },
            fieldParameters: { page: 2, originX: '50f', originY: '50f', width: '300f', height: '60f' },
          },
        },
      });
      expect(signed.toString('latin1')).toContain('/FontFile2');
      expect((await pdfsig(signed)).signatures[0]!.valid).toBe(true);
      const page = await renderPage(signed, 2);
      expect(inkIn(page, { x: 50, y: 50, width: 300, height: 60 })).toBeGreaterThan(0.02);
    }
  });

  it('turns the appearance with the page when rotation is AUTOMATIC (a page rotated 90°), still valid by pdfsig', async () => {
    const signed = await signThroughApi(bed, {
      pdf: await samplePdf({ rotate: 90 }),
      kid: 'pades-rsa',
      pades: {
        visualSignatureParameters: {
          rotation: 'AUTOMATIC',
          textParameters: { text: 'Rotated with the page' },
          fieldParameters: { originX: '100f', originY: '100f', width: '200f', height: '50f' },
        },
      },
    });
    // The appearance is drawn upright in a 50 × 200 box and turned by its /Matrix (ISO 32000-1 §8.10.1).
    expect(signed.toString('latin1')).toMatch(
      /\/BBox \[ 0 0 50 200 \][\s\S]*?\/Matrix \[ 0 1 -1 0 200 0 \]|\/Matrix \[ 0 1 -1 0 200 0 \][\s\S]*?\/BBox \[ 0 0 50 200 \]/,
    );
    expect((await pdfsig(signed)).signatures[0]!.valid).toBe(true);
    const page = await renderPage(signed, 1);
    expect(page.width).toBeGreaterThan(page.height);
  });

  it('signs into an existing empty signature field named by fieldId', async () => {
    // PDF user space: the field spans x 300..500, y 600..680 (from the top: 162..242).
    const pdf = await pdfWithEmptyField('ApproverSignature', [300, 600, 500, 680]);
    const signed = await signThroughApi(bed, {
      pdf,
      kid: 'pades-rsa',
      pades: {
        visualSignatureParameters: {
          textParameters: { text: 'Approved' },
          fieldParameters: { fieldId: 'ApproverSignature' },
        },
      },
    });
    const result = await pdfsig(signed);
    expect(result.signatures).toHaveLength(1);
    expect(result.text).toContain('Signature Field Name: ApproverSignature');
    expect(result.signatures[0]!.valid).toBe(true);
    const page = await renderPage(signed, 1);
    expect(inkIn(page, { x: 300, y: 162, width: 200, height: 80 })).toBeGreaterThan(0.02);
    // Signing the same field again is refused.
    await expect(
      signThroughApi(bed, {
        pdf: signed,
        kid: 'pades-rsa',
        pades: {
          visualSignatureParameters: {
            textParameters: { text: 'x' },
            fieldParameters: { fieldId: 'ApproverSignature' },
          },
        },
      }),
    ).rejects.toThrow(/signed already/);
  });

  it('signs a password-protected PDF, which keeps its protection; a second signature keeps the first valid', async () => {
    const pdf = await encryptedPdf('user-secret', 'owner-secret');
    const once = await signThroughApi(bed, {
      pdf,
      kid: 'pades-rsa',
      password: 'user-secret',
      pades: { reason: 'Protected' },
    });
    expect(once.toString('latin1')).toContain('/Encrypt');
    const first = await pdfsig(once, 'user-secret');
    expect(first.signatures).toEqual([expect.objectContaining({ valid: true, wholeDocument: true })]);
    const twice = await signThroughApi(bed, {
      pdf: once,
      kid: 'pades-rsa',
      password: 'owner-secret',
      pades: {
        visualSignatureParameters: {
          textParameters: { text: 'Second' },
          fieldParameters: { originX: '50f', originY: '100f', width: '150f', height: '40f' },
        },
      },
    });
    const both = await pdfsig(twice, 'user-secret');
    expect(both.signatures.map((s) => s.valid)).toEqual([true, true]);
    const page = await renderPage(twice, 1, 'user-secret');
    expect(inkIn(page, { x: 50, y: 100, width: 150, height: 40 })).toBeGreaterThan(0.02);
  });

  it('runs the split flow: determine → digest → sign outside the service → merge, valid by pdfsig', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const certificate = await bed.ca.issue(publicKey.export({ format: 'der', type: 'spki' }), {
      subject: 'CN=Remote Signer',
    });
    const imported = await bed.call('POST', '/providers/external/certificates', {
      kid: 'remote-hsm',
      certificate: certificate.toString('base64'),
      certificateChain: [bed.ca.certificate.toString('base64')],
    });
    expect(imported.status).toBe(201);
    const origData = {
      name: 'contract.pdf',
      mimeType: 'application/pdf',
      content: (await samplePdf()).toString('base64'),
    };
    const binding = { kid: 'remote-hsm', signatureConfigId: 'pades', keyProviderId: 'external' };
    const determined = await bed.call('POST', '/signature-input', { origData, signMode: 'DOCUMENT', binding });
    expect(determined.status).toBe(200);
    const digested = await bed.call('POST', '/digest', { signInput: determined.body.signInput });
    expect(digested.body.signInput.signMode).toBe('DIGEST');
    // The service refuses to sign with a key it does not hold.
    const refused = await bed.call('POST', '/signature', { signInput: digested.body.signInput });
    expect(refused.status).toBe(400);
    expect(refused.body.error_description).toContain('external');
    // Outside the service: PKCS #1 v1.5 over the digest (DigestInfo SHA-256, RFC 8017 §9.2).
    const digestInfo = Buffer.concat([
      Buffer.from('3031300d060960864801650304020105000420', 'hex'),
      Buffer.from(digested.body.signInput.input, 'base64'),
    ]);
    const value = privateEncrypt({ key: privateKey, padding: constants.RSA_PKCS1_PADDING }, digestInfo);
    const signature = {
      value: value.toString('base64'),
      algorithm: 'RSA_SHA256',
      signMode: 'DIGEST',
      binding,
      date: digested.body.signInput.signingDate,
      signatureFormParameters: digested.body.signInput.signatureFormParameters,
    };
    const merged = await bed.call('POST', '/merge', { origData, signature });
    expect(merged.status).toBe(200);
    const result = await pdfsig(Buffer.from(merged.body.signOutput.value, 'base64'));
    expect(result.signatures).toEqual([expect.objectContaining({ valid: true, wholeDocument: true })]);
    expect(result.text).toContain('Remote Signer');
    // A signature over other data does not merge.
    const forged = await bed.call('POST', '/merge', {
      origData,
      signature: { ...signature, value: Buffer.alloc(256, 1).toString('base64') },
    });
    expect(forged.status).toBe(400);
  });
});
