import { createHash, generateKeyPairSync } from 'node:crypto';
import { ManualClock } from '@tessera/platform';
import { beforeAll, describe, expect, it } from 'vitest';
import { encryptedPdf } from '../../test/support/fixtures.js';
import { samplePdf } from '../../test/support/pdfs.js';
import { createTestCa } from '../../test/support/pki.js';
import type { KeyEntryRecord } from '../domain/key-entry.js';
import type { WirePadesParameters } from '../domain/pades-parameters.js';
import { byteRangeContent } from '../pdf/prepare.js';
import { preparePades } from './pades.js';
import { PreparedUpdates, type PreparationInputs } from './prepared-updates.js';

/**
 * The updates operation 1 prepares and operation 4 takes again (issue 21 bench): a kept update is exactly what a
 * new preparation gives, every input of the preparation is part of the key, only the same document bytes take it,
 * a wrong password is still refused after the right one was used, and entries expire and are bounded.
 */
const doc = (text: string) => Buffer.from(text);
const inputs: PreparationInputs = {
  tenantId: 'tenant-a',
  password: undefined,
  params: { mode: 'APPROVAL', reason: 'Approval', visualSignatureParameters: { fieldParameters: { page: 1 } } },
  signingDate: new Date('2026-11-26T10:00:00Z'),
  contentsBytes: 4096,
  fonts: {},
  digestAlgorithm: 'SHA256',
};
const update = (text: string, original = doc('pdf')) => ({
  original,
  update: Buffer.from(text),
  byteRange: [0, 1, 2, 3] as [number, number, number, number],
  documentSha256: createHash('sha256').update(original).digest(),
  messageDigest: Buffer.alloc(32),
});

describe('prepared updates', () => {
  it('keys by the document and every input of the preparation, members in any order', () => {
    const base = PreparedUpdates.key(doc('pdf'), inputs);
    expect(
      PreparedUpdates.key(doc('pdf'), {
        ...inputs,
        params: { visualSignatureParameters: { fieldParameters: { page: 1 } }, reason: 'Approval', mode: 'APPROVAL' },
      }),
    ).toBe(base);
    const variants: PreparationInputs[] = [
      { ...inputs, tenantId: 'tenant-b' },
      { ...inputs, password: 'secret' },
      { ...inputs, params: { ...(inputs.params as object), reason: 'Other' } },
      {
        ...inputs,
        params: { ...(inputs.params as object), visualSignatureParameters: { fieldParameters: { page: 2 } } },
      },
      { ...inputs, signingDate: new Date('2026-11-26T10:00:01Z') },
      { ...inputs, contentsBytes: 5120 },
      { ...inputs, fonts: { Serif: '/fonts/serif.ttf' } },
      { ...inputs, digestAlgorithm: 'SHA512' },
    ];
    const keys = new Set([base, PreparedUpdates.key(doc('other pdf'), inputs)]);
    for (const variant of variants) keys.add(PreparedUpdates.key(doc('pdf'), variant));
    expect(keys.size).toBe(variants.length + 2);
  });

  it('forgets an entry after its lifetime and the oldest beyond its limit', () => {
    const clock = new ManualClock(new Date('2026-11-26T10:00:00Z'));
    const updates = new PreparedUpdates(clock, 60_000, 2);
    updates.set('a', update('a'));
    clock.advance(30);
    updates.set('b', update('b'));
    expect(updates.get('a', doc('pdf'))?.update.toString()).toBe('a');
    clock.advance(31);
    expect(updates.get('a', doc('pdf'))).toBeUndefined();
    expect(updates.get('b', doc('pdf'))?.update.toString()).toBe('b');
    updates.set('c', update('c'));
    updates.set('d', update('d'));
    expect(updates.size).toBe(2);
    expect(updates.get('b', doc('pdf'))).toBeUndefined();
    expect(updates.get('c', doc('pdf'))?.update.toString()).toBe('c');
  });

  it('gives an entry only for the same document bytes, and keeps at most its byte budget', () => {
    const updates = new PreparedUpdates(new ManualClock(), 60_000, 64, 10);
    updates.set('a', update('a', doc('pdf-1')));
    expect(updates.get('a', doc('pdf-1'))?.update.toString()).toBe('a');
    // Same key (same length and end), other bytes: not this document's update.
    expect(updates.get('a', doc('pdg-1'))).toBeUndefined();
    updates.set('b', update('bb', doc('pdf-2')));
    expect(updates.size).toBe(1);
    expect(updates.get('a', doc('pdf-1'))).toBeUndefined();
    updates.set('c', update('c', doc('a document over the budget')));
    expect(updates.size).toBe(1);
    expect(updates.get('c', doc('a document over the budget'))).toBeUndefined();
  });

  describe('preparePades', () => {
    let entry: KeyEntryRecord;
    beforeAll(async () => {
      const ca = await createTestCa();
      const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const spki = publicKey.export({ format: 'der', type: 'spki' });
      entry = {
        kid: 'k',
        providerId: 'software',
        providerKid: 'p',
        keyKind: 'RSA',
        publicKeySpki: spki,
        certificate: await ca.issue(spki),
        certificateChain: [ca.certificate],
        access: { subjectId: 's', accessLevel: 'TENANT', roleRestrictions: [] },
        createdAt: new Date(),
      };
    });
    const params: WirePadesParameters = {
      reason: 'Kept',
      visualSignatureParameters: {
        textParameters: { text: 'Signed' },
        fieldParameters: { originX: '50f', originY: '100f', width: '200f', height: '60f' },
      },
    };
    const prepare = (
      pdf: Buffer,
      updates: PreparedUpdates,
      more: { password?: string; digest?: 'SHA256' | 'SHA512' } = {},
    ) =>
      preparePades({
        tenantId: 'tenant-a',
        pdf,
        password: more.password,
        params,
        signingDate: new Date('2026-11-26T10:00:00Z'),
        entry,
        fonts: {},
        digestAlgorithm: more.digest ?? 'SHA256',
        updates,
      });

    it.each(['SHA256', 'SHA512'] as const)(
      'gives from a kept update what a new preparation gives (%s)',
      async (digest) => {
        const pdf = await samplePdf();
        const updates = new PreparedUpdates(new ManualClock(), 60_000);
        const first = await prepare(pdf, updates, { digest });
        expect(updates.size).toBe(1);
        const kept = await prepare(Buffer.from(pdf), updates, { digest });
        const fresh = await prepare(Buffer.from(pdf), new PreparedUpdates(new ManualClock(), 60_000), { digest });
        for (const result of [kept, fresh]) {
          expect(result.prepared.update).toEqual(first.prepared.update);
          expect(result.prepared.byteRange).toEqual(first.prepared.byteRange);
          expect(result.messageDigest).toEqual(first.messageDigest);
          expect(result.documentSha256).toEqual(createHash('sha256').update(pdf).digest());
        }
        const algorithm = digest === 'SHA256' ? 'sha256' : 'sha512';
        expect(first.messageDigest).toEqual(createHash(algorithm).update(byteRangeContent(first.prepared)).digest());
        expect(byteRangeContent(first.prepared).subarray(0, pdf.length)).toEqual(pdf);
      },
    );

    it('still refuses a wrong password after the right one prepared the document', async () => {
      const pdf = await encryptedPdf('user-pw', 'owner-pw');
      const updates = new PreparedUpdates(new ManualClock(), 60_000);
      await prepare(pdf, updates, { password: 'user-pw' });
      await expect(prepare(pdf, updates, { password: 'wrong' })).rejects.toThrow(/password/i);
      await expect(prepare(pdf, updates)).rejects.toThrow(/password/i);
    });
  });
});
