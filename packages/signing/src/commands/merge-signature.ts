import { AppError, defineCommand } from '@tessera/platform';
import { signedData } from '../cms/cades.js';
import { algorithmSpec, effectiveDigest, type SignatureAlgorithm } from '../domain/algorithms.js';
import { badRequest } from '../domain/errors.js';
import type { WirePadesParameters } from '../domain/pades-parameters.js';
import { decodeDocument, isCanonicalBase64 } from '../flow/documents.js';
import { readKeyEntry } from '../flow/key-entries.js';
import { padesAttributesOfDigest, preparePades, signingCertificate } from '../flow/pades.js';
import { isPades, resolveSignatureConfig } from '../flow/signature-config.js';
import type { OrigDataT, SignatureT } from '../http/schemas.js';
import { digestOf, verifySignature } from '../keys/verify-signature.js';
import { signedPdfBase64 } from '../pdf/prepare.js';
import type { SigningServices } from '../services.js';

export const MERGE_SIGNATURE = 'signing.merge-signature';

export interface SignOutput {
  signOutput: { name: string; mimeType: string; value: string; digestAlgorithm: string; signature: SignatureT };
  audit: { documentSha256: string; kid: string; algorithm: string };
}

/**
 * Operation 4 (002 §4.1): the signature merged into the original data. The client carries the original document
 * between the steps (nothing is kept server-side): for PAdES the document is prepared again from the original and the
 * signature's date and parameters, which gives the same bytes as in operation 1; the signature must verify with the
 * key entry's public key over the CMS signed attributes of that byte range, else 400 — so a signature made
 * elsewhere (split flow) is checked before it is embedded. The signature's date must be recent (configuration
 * `signatureValiditySeconds`): a prepared signature is not mergeable forever. The CMS (CAdES detached) is written
 * into /Contents. Other data gets a detached CMS SignedData over the data when the key entry has a certificate,
 * else the raw signature value.
 */
export const mergeSignature = (s: SigningServices) =>
  defineCommand<{ origData: OrigDataT; signature: SignatureT }, SignOutput>({
    id: MERGE_SIGNATURE,
    access: 'read',
    businessIds: (input, output) => (output ? { ...output.audit } : { kid: input.signature.binding.kid }),
    async run(ctx, { origData, signature }) {
      const { binding } = signature;
      const data = decodeDocument(origData.content, s.config.maxDocumentBytes, 'origData.content');
      const value = Buffer.from(signature.value, 'base64');
      const spec = algorithmSpec(signature.algorithm as SignatureAlgorithm);
      const digestAlgorithm = resolveSignatureConfig(s.config, binding.signatureConfigId, undefined).digestAlgorithm;
      const hash = effectiveDigest(spec, digestAlgorithm);
      const entry = await readKeyEntry(s, ctx, binding.kid);
      const auditOf = (documentSha256: Buffer) => ({
        documentSha256: documentSha256.toString('base64'),
        kid: entry.kid,
        algorithm: spec.name,
      });
      const form = signature.signatureFormParameters;

      if (isPades(origData.mimeType, form)) {
        const date = new Date(signature.date);
        if (Number.isNaN(date.getTime())) throw badRequest('signature.date is not a date.', 'signature.date');
        const now = s.clock.now().getTime();
        if (now - date.getTime() > s.config.signatureValiditySeconds * 1000)
          throw badRequest(
            `The signature's date is more than ${s.config.signatureValiditySeconds} s old: determine the signature input again.`,
            'signature.date',
          );
        if (date.getTime() - now > s.config.clockSkewSeconds * 1000)
          throw badRequest("The signature's date lies in the future.", 'signature.date');
        const { prepared, messageDigest, documentSha256 } = await preparePades({
          tenantId: ctx.tenantId,
          pdf: data,
          password: origData.password,
          params: form!.padesSignatureFormParameters as WirePadesParameters,
          signingDate: date,
          entry,
          fonts: s.config.fonts,
          digestAlgorithm,
          updates: s.preparedUpdates,
        });
        const attributes = padesAttributesOfDigest(entry, digestAlgorithm, messageDigest);
        if (!verifySignature(entry.publicKeySpki, spec, hash, attributes.der, value)) throw doesNotVerify(entry.kid);
        const cms = signedData({
          attributes,
          digestAlgorithm,
          spec,
          signature: value,
          certificate: signingCertificate(entry),
          chain: entry.certificateChain,
        });
        let signed: string;
        try {
          const text = isCanonicalBase64(origData.content, data) ? origData.content : undefined;
          signed = signedPdfBase64(prepared, cms, text);
        } catch (cause) {
          throw new AppError('invalid_request', 'The signature does not fit the room reserved for it.', { cause });
        }
        return {
          signOutput: {
            name: origData.name,
            mimeType: 'application/pdf',
            value: signed,
            digestAlgorithm,
            signature,
          },
          audit: auditOf(documentSha256),
        };
      }

      const audit = auditOf(digestOf('SHA256', data));

      if (!verifySignature(entry.publicKeySpki, spec, hash, data, value)) throw doesNotVerify(entry.kid);
      if (!entry.certificate)
        return {
          signOutput: {
            name: origData.name,
            mimeType: 'application/octet-stream',
            value: signature.value,
            digestAlgorithm: hash,
            signature,
          },
          audit,
        };
      const cms = signedData({
        attributes: null,
        digestAlgorithm: hash,
        spec,
        signature: value,
        certificate: entry.certificate,
        chain: entry.certificateChain,
      });
      return {
        signOutput: {
          name: `${origData.name}.p7s`,
          mimeType: 'application/pkcs7-signature',
          value: cms.toString('base64'),
          digestAlgorithm: hash,
          signature,
        },
        audit,
      };
    },
  });

const doesNotVerify = (kid: string) =>
  badRequest(
    `The signature does not verify with the key entry ${kid} over this document's signature input (same document, parameters and date as when it was determined?).`,
    'signature.value',
  );
