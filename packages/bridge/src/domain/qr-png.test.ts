import { createHash } from 'node:crypto';
import QRCode from 'qrcode';
import { describe, expect, it } from 'vitest';
import { bestMasked } from './qr-png.js';
import { deepLink } from './request-object.js';

describe('QR symbol of a deep link', () => {
  it('is the symbol qrcode makes for the same byte segment, its mask chosen by the same penalty (200 deep links)', () => {
    const masks = new Set<number>();
    for (let i = 0; i < 200; i++) {
      const text = deepLink(
        i % 2 ? 'x509_san_dns:verifier.example.org' : 'redirect_uri:https://rp.example/cb',
        'https://verifier.example.org',
        // Fixed inputs, so that which masks win (asserted below) is the same on every run.
        createHash('sha256').update(`deep link ${i}`).digest().subarray(0, 16).toString('base64url'),
      );
      const data = Buffer.from(text, 'utf8');
      const theirs = QRCode.create([{ data, mode: 'byte' }], { errorCorrectionLevel: 'M' });
      const ours = bestMasked(data);
      expect(ours.size).toBe(theirs.modules.size);
      expect(Buffer.from(ours.modules).equals(Buffer.from(theirs.modules.data))).toBe(true);
      masks.add(theirs.maskPattern ?? -1);
    }
    // Several masks won: the comparison covered more than one choice (random inputs once gave only three).
    expect(masks.size).toBeGreaterThan(3);
    // qrcode's own search is the slow side of the comparison: room for a busy machine.
  }, 60_000);
});
