import { defineCommand } from '@tessera/platform';
import { checkCertificateChain, parseCertificate } from '../domain/certificates.js';
import { badRequest, keyEntryExists } from '../domain/errors.js';
import type { KeyEntryRecord } from '../domain/key-entry.js';
import { accessOf } from '../flow/access.js';
import { accessView, keyEntryView, type KeyEntryView } from '../flow/key-entries.js';
import type { ImportCertificateBodyT } from '../http/schemas.js';
import { keyKindOf, spkiOf } from '../keys/public-keys.js';
import type { SigningServices } from '../services.js';
import { insertKeyEntry } from '../storage/key-entry-rows.js';

export const IMPORT_CERTIFICATE = 'signing.import-certificate';

export interface KeyEntryOutput {
  keyEntry: KeyEntryView;
  accessRestrictions: ReturnType<typeof accessView>;
}

/**
 * Operation 5 (002 §4.1): an X.509 certificate imported as key entry `kid` under provider `{providerId}`. The chain
 * must be in order and every certificate valid now; the certificate's public key must be a key the provider holds
 * (`providerKid` when given, else found by its public key). The external provider holds no keys: its entries
 * serve the split flow. The caller becomes the entry's subject.
 */
export const importCertificate = (s: SigningServices) =>
  defineCommand<ImportCertificateBodyT & { providerId: string }, KeyEntryOutput>({
    id: IMPORT_CERTIFICATE,
    access: 'write',
    businessIds: (input, output) => ({
      kid: input.kid,
      providerId: input.providerId,
      ...(output?.keyEntry.certificate ? { certificateSha256: output.keyEntry.certificate.fingerPrint } : {}),
    }),
    async run(ctx, input) {
      const provider = s.providers.get(input.providerId, ctx.tenantId);
      const leaf = parseCertificate(input.certificate, 'certificate');
      const chain = (input.certificateChain ?? []).map((c, i) => parseCertificate(c, `certificateChain.${i}`));
      checkCertificateChain(leaf, chain, s.clock.now(), s.config.clockSkewSeconds);
      const kind = keyKindOf(leaf.publicKey);
      if (!kind)
        throw badRequest('The certificate holds a key of a kind the service does not sign with.', 'certificate');
      const spki = spkiOf(leaf.publicKey);

      return ctx.unitOfWork(async (sql) => {
        const unit = { tenantId: ctx.tenantId, sql };
        let providerKid: string | null = null;
        if (provider.kind !== 'external') {
          const key = input.providerKid
            ? await provider.findKey(unit, input.providerKid)
            : await provider.findKeyByPublicKey(unit, spki);
          if (!key)
            throw badRequest(
              input.providerKid
                ? `Key provider ${provider.id} holds no key ${input.providerKid}.`
                : `Key provider ${provider.id} holds no key matching the certificate's public key.`,
              'certificate',
            );
          if (!key.publicKeySpki.equals(spki))
            throw badRequest(
              `The certificate's public key does not match the key ${key.providerKid} of provider ${provider.id}.`,
              'certificate',
            );
          providerKid = key.providerKid;
        }
        const entry: KeyEntryRecord = {
          kid: input.kid,
          providerId: provider.id,
          providerKid,
          keyKind: kind,
          publicKeySpki: spki,
          certificate: Buffer.from(leaf.raw),
          certificateChain: chain.map((c) => Buffer.from(c.raw)),
          access: accessOf(ctx, input.accessRestrictions),
          createdAt: s.clock.now(),
        };
        if (!(await insertKeyEntry(sql, entry))) throw keyEntryExists(input.kid);
        return { keyEntry: keyEntryView(entry), accessRestrictions: accessView(entry) };
      });
    },
  });
